"""Presets: short readable functions composing the stages. Importing this package registers them all."""

from groundsql.pipelines import (  # noqa: F401  (registers agentnlq, apex, auto, baseline, prospy, recap, refine, ssev)
    agentnlq,
    apex,
    auto,
    baseline,
    prospy,
    recap,
    ssev,
)
from groundsql.pipelines.registry import (
    DEFAULT_PRESET,
    DESCRIPTIONS,
    INFO,
    PRESETS,
    PresetInfo,
    get_preset,
    options_model,
    preset,
    preset_info,
    preset_options,
    run,
)

__all__ = ["DEFAULT_PRESET", "DESCRIPTIONS", "INFO", "PRESETS", "PresetInfo", "get_preset", "options_model", "preset",
           "preset_info", "preset_options", "run"]
