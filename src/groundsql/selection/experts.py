"""The experts taking part in a vote: per-role models ('expert:<name>') or the `experts` option's specs."""

from __future__ import annotations

from dataclasses import dataclass

from groundsql.context import Context
from groundsql.selection.options import SelectionOptions

PREFIX = "expert:"


@dataclass(frozen=True)
class Expert:
    role: str  # the model role the expert is called through
    name: str  # the stable name its weight is kept under (the model spec, else the role)


def resolve_experts(ctx: Context, options: SelectionOptions | None = None) -> list[Expert]:
    """Experts from the context: roles named 'expert:…' first, else the generator plus the specs of the
    `experts` option (loaded with `load_model` and registered as roles: `--experts` adds models to the main
    one), else the generator alone."""
    roles = sorted(role for role in ctx.models if role.startswith(PREFIX))
    if not roles:
        specs = (options or ctx.settings(SelectionOptions)).experts
        if specs:
            from groundsql.models import load_model

            for index, spec in enumerate(specs, 1):
                ctx.models.setdefault(f"{PREFIX}{index}", spec if not isinstance(spec, str) else load_model(spec))
            roles = ["generator"] + [f"{PREFIX}{index}" for index in range(1, len(specs) + 1)]
    if not roles:
        roles = ["generator"]
    specs_seen: dict[str, int] = {}
    for role in roles:
        spec = ctx.model(role).spec
        specs_seen[spec] = specs_seen.get(spec, 0) + 1
    return [Expert(role=role, name=ctx.model(role).spec if specs_seen[ctx.model(role).spec] == 1 else role)
            for role in roles]
