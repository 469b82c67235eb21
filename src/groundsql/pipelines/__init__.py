"""Presets: short readable functions composing the stages. Importing this package registers them all."""

from groundsql.pipelines import apex, baseline, prospy, ssev  # noqa: F401  (registers apex, baseline, prospy, refine, ssev)
from groundsql.pipelines.registry import DEFAULT_PRESET, DESCRIPTIONS, PRESETS, get_preset, preset, run

__all__ = ["DEFAULT_PRESET", "DESCRIPTIONS", "PRESETS", "get_preset", "preset", "run"]
