"""Presets register themselves by name with their options model; `run` validates the options and times the answer.

    class MyOptions(Options):
        rounds: int = Field(2, ge=0, description="repair rounds")

    @preset("mine", "one line for `groundsql presets`", options=MyOptions)
    def mine(ctx: Context, options: MyOptions) -> Answer: ...

A preset that links a schema mixes `LinkerChoice` into its options (and names its default chain with
`linker=`), so that `--linker` is accepted and the chosen linkers' options are validated with its own.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from groundsql.answer import Answer, Candidate
from groundsql.context import Context
from groundsql.errors import ConfigError, ModelError, RunInterrupted
from groundsql.generation.tree_repair import repair_note
from groundsql.knowledge import KnowledgeOptions, prepare
from groundsql.options import NoOptions, Options, combine, parse_options, register
from groundsql.selection.review import review

log = logging.getLogger("groundsql")

Preset = Callable[[Context, Any], Answer]
PRESETS: dict[str, Preset] = {}
DESCRIPTIONS: dict[str, str] = {}
DEFAULT_PRESET = "auto"


@dataclass(frozen=True)
class PresetInfo:
    name: str
    function: Preset
    description: str
    options: type[Options]
    linker: str | None  # the linker chain it runs when no `linker` option is given (None: no linker)


INFO: dict[str, PresetInfo] = {}


def preset(name: str, description: str, *, options: type[Options] = NoOptions,
           linker: str | None = None) -> Callable[[Preset], Preset]:
    """Register a preset under `name`; it is called as `function(ctx, options)` with its validated `options`.

    Args:
        name: the name used by `--preset`.
        description: one line for `groundsql presets`.
        options: its options model (a subclass of `groundsql.options.Options`).
        linker: the linker chain it runs by default, whose options it then also accepts.
    """

    def add(function: Preset) -> Preset:
        PRESETS[name] = function
        DESCRIPTIONS[name] = description
        INFO[name] = PresetInfo(name, function, description, register(options, f"preset {name!r}"), linker)
        return function

    return add


def get_preset(name: str) -> Preset:
    return preset_info(name).function


def preset_info(name: str) -> PresetInfo:
    try:
        return INFO[name]
    except KeyError:
        raise ConfigError(f"unknown preset {name!r}; choose one of: {', '.join(sorted(PRESETS))}") from None


def options_model(name: str, linker: str | None = None) -> type[Options]:
    """The options a run of preset `name` accepts: its own, `KnowledgeOptions`, plus `LinkOptions` and each
    linker's when it links (with `linker`, the chain given; else its default chain)."""
    from groundsql.linking import linker_options

    info = preset_info(name)
    chain = (linker if "linker" in info.options.model_fields else None) or info.linker
    # every preset's prompts go through the one renderer, so every preset accepts its switches
    return combine(info.options, KnowledgeOptions, *(linker_options(chain) if chain else []))


def preset_options(name: str, raw: Mapping[str, Any] | Options | None = None) -> Options:
    """Validate the options given for a run of preset `name` (an unknown key or a bad value is one clear
    `OptionsError`); the result holds the preset's and its linkers' settings."""
    given = raw.given() if isinstance(raw, Options) else dict(raw or {})
    linker = given.get("linker")
    if linker is not None and not isinstance(linker, str):
        raise ConfigError(f"option 'linker' for preset {name!r}: expected text such as 'apex' or 'vector,apex'")
    model = options_model(name, linker)
    return parse_options(model, given, what=f"preset {name!r}" + (f" with linker {linker!r}" if linker else ""))


def run(ctx: Context, preset_name: str = DEFAULT_PRESET) -> Answer:
    """Answer `ctx.question` with a preset; the answer carries total elapsed time and the trace.

    `ctx.options` is validated against the preset (and its linkers) first."""
    info = preset_info(preset_name)
    ctx.options = preset_options(preset_name, ctx.options)
    started = time.perf_counter()
    prepare(ctx)  # the catalog and knowledge folder every prompt draws on, resolved once
    try:
        answer = info.function(ctx, ctx.settings(info.options))
    except (ModelError, RunInterrupted) as exc:
        if ctx.cache.provisional is None:
            raise
        answer = _best_so_far(ctx, exc)
    except Exception as exc:
        if not parser_failure(exc):
            raise
        # model-written SQL the SQL parser cannot handle (deep nesting, a sqlglot bug): an answer that says so,
        # never an undocumented error (the guard refuses such a statement too)
        log.warning("the SQL parser failed on the model's SQL (%s); the run ends without a result", type(exc).__name__)
        if ctx.cache.provisional is not None:
            answer = _best_so_far(ctx, exc)
        else:
            answer = Answer(question=ctx.question, sql="", result=None, preset=preset_name, model=ctx.model().spec,
                            trace=ctx.trace, error=PARSER_FAILURE)
            answer.elapsed_s = time.perf_counter() - started
            return answer
    answer.preset = preset_name
    chosen = next((c for c in answer.candidates if c.repairs and c.sql == answer.sql), None)
    note = repair_note(chosen) if chosen is not None else None
    if note and note not in answer.notes:
        answer.notes.append(note)
    if not answer.partial:  # a stopped run makes no further query
        review(ctx, answer)
    answer.elapsed_s = time.perf_counter() - started
    return answer


PARSER_FAILURE = ("refused: the model's SQL could not be read by the SQL parser (nested too deeply, or a form "
                  "the parser fails on); ask again or simplify the question")


def parser_failure(exc: BaseException) -> bool:
    """Whether `exc` is the SQL parser failing: running out of stack, or an error raised inside sqlglot."""
    if isinstance(exc, RecursionError):
        return True
    frames = traceback.extract_tb(exc.__traceback__)
    return bool(frames) and f"{os.sep}sqlglot{os.sep}" in frames[-1].filename


def _best_so_far(ctx: Context, stopped: Exception) -> Answer:
    """The answer the preset announced before the run stopped, marked partial, with why it stopped."""
    chosen: Candidate = ctx.cache.provisional
    with contextlib.suppress(RunInterrupted):  # a cancelled trace takes no more events
        ctx.trace.note("partial", reason=str(stopped), sql=chosen.sql)
    return Answer(question=ctx.question, sql=chosen.sql, result=chosen.result, error=chosen.error, preset="",
                  model=ctx.model().spec, trace=ctx.trace, candidates=[chosen], partial=True,
                  notes=[f"best answer so far: the run stopped before its checks finished ({stopped})"])
