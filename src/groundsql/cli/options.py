"""Options shared by commands that run presets: --linker, --experts, --option KEY=VALUE."""

from __future__ import annotations

import json
from typing import Any

import click

linker_option = click.option("--linker", default=None, metavar="SPEC",
                             help="Schema linker or comma chain, e.g. apex or vector,apex (see docs/linking.md).")
experts_option = click.option("--experts", default=None, metavar="SPEC,SPEC",
                              help="Models voting as experts beside --model (weighted majority), comma-separated.")
model_for_option = click.option("--model-for", "model_for", multiple=True, metavar="ROLE=SPEC",
                                help="A model for one role (planner, generator, judge, orchestrator…); other "
                                     "roles use --model (repeatable).")
preset_options = click.option("--option", "preset_options", multiple=True, metavar="KEY=VALUE",
                              help="A preset option, e.g. refine_rounds=3 or vote=rwma (repeatable; "
                                   "`groundsql presets --options PRESET` lists them).")


def parse_preset_options(pairs: tuple[str, ...], *, linker: str | None = None,
                         experts: str | None = None) -> dict[str, Any]:
    """KEY=VALUE pairs as a dict; values are read as JSON where they parse (3, 0.5, true), else as text."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"expected KEY=VALUE, got {pair!r}", param_hint="--option")
        try:
            options[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            options[key.strip()] = value
    if linker:
        options["linker"] = linker
    if experts:
        options["experts"] = [spec.strip() for spec in experts.split(",") if spec.strip()]
    return options


def parse_model_roles(pairs: tuple[str, ...]) -> dict[str, str]:
    """ROLE=SPEC pairs of --model-for as {role: spec}."""
    roles: dict[str, str] = {}
    for pair in pairs:
        role, sep, spec = pair.partition("=")
        if not sep or not role.strip() or not spec.strip():
            raise click.BadParameter(f"expected ROLE=SPEC, got {pair!r}", param_hint="--model-for")
        roles[role.strip()] = spec.strip()
    return roles


def check_flags(preset: str, **flags: bool) -> None:
    """Refuse a flag (--linker, --experts, --clarify) that the preset has no option for, naming those that do."""
    from groundsql.pipelines import INFO, options_model

    for flag, given in flags.items():
        if given and flag not in options_model(preset).model_fields:
            takers = sorted(name for name, info in INFO.items() if flag in options_model(name).model_fields)
            raise click.UsageError(f"--{flag} has no effect with preset {preset!r}; use it with "
                                   f"{', '.join(takers) or 'no preset'}")
