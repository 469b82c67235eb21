"""Presets: short readable functions composing the stages. Importing this package registers them all."""

from groundsql.pipelines import baseline  # noqa: F401  (registers baseline, refine)
from groundsql.pipelines.registry import DEFAULT_PRESET, DESCRIPTIONS, PRESETS, get_preset, preset, run

__all__ = ["DEFAULT_PRESET", "DESCRIPTIONS", "PRESETS", "get_preset", "preset", "run"]
