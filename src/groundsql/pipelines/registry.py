"""Presets register themselves by name; `run` builds the context and times the answer."""

from __future__ import annotations

import time
from collections.abc import Callable

from groundsql.answer import Answer
from groundsql.context import Context
from groundsql.errors import ConfigError
from groundsql.knowledge import prepare

Preset = Callable[[Context], Answer]
PRESETS: dict[str, Preset] = {}
DESCRIPTIONS: dict[str, str] = {}
DEFAULT_PRESET = "refine"


def preset(name: str, description: str) -> Callable[[Preset], Preset]:
    def register(function: Preset) -> Preset:
        PRESETS[name] = function
        DESCRIPTIONS[name] = description
        return function

    return register


def get_preset(name: str) -> Preset:
    try:
        return PRESETS[name]
    except KeyError:
        raise ConfigError(f"unknown preset {name!r}; choose one of: {', '.join(sorted(PRESETS))}") from None


def run(ctx: Context, preset_name: str = DEFAULT_PRESET) -> Answer:
    """Answer `ctx.question` with a preset; the answer carries total elapsed time and the trace."""
    function = get_preset(preset_name)
    started = time.perf_counter()
    prepare(ctx)  # the catalog and knowledge folder every prompt draws on, resolved once
    answer = function(ctx)
    answer.preset = preset_name
    answer.elapsed_s = time.perf_counter() - started
    return answer
