"""Settings of choosing an answer: the experts, the vote's seed and judge, weight learning, confidence."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field, PlainSerializer

from groundsql.options import Options
from groundsql.selection.confidence import DEFAULT_THRESHOLD


def _split(value: Any) -> Any:
    """'a,b' → ['a', 'b'] (the CLI's --experts)."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


def _specs(value: list[Any]) -> list[str]:
    return [item if isinstance(item, str) else getattr(item, "spec", str(item)) for item in value]


#: Model specs (or loaded models, through the API) voting as experts.
ExpertList = Annotated[list[Any], BeforeValidator(_split), PlainSerializer(_specs)]


class CheckOptions(Options):
    """Which exact checks run on a candidate (every check, and the rewrite it proposes, can be switched off)."""

    checks_off: Annotated[list[str], BeforeValidator(_split)] = Field(
        [], description="exact checks (sanity or question-shape, by name; docs/checks.md) that do not run, "
                        "comma-separated: their findings and rewrites are left out")


class SelectionOptions(CheckOptions):
    """Mixed into the options of presets that vote."""

    experts: ExpertList = Field([], description="extra models voting as experts (weighted majority), "
                                                "comma-separated specs")
    seed: int | None = Field(None, description="seed of the randomized vote (none: from the question)")
    judge: bool = Field(True, description="let the judge model break ties")
    learn_weights: bool = Field(True, description="update the experts' weights after each answer")
    epsilon: float | None = Field(None, gt=0, le=1, description="weight update rate (none: the paper's "
                                                                "sqrt(ln N / T))")
    confidence_threshold: float = Field(DEFAULT_THRESHOLD, ge=0, le=1,
                                        description="below this confidence the answer carries a warning")
    clarify: bool = Field(False, description="below the threshold, return a clarifying question instead")
