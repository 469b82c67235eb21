"""Budget profiles of APEX-SQL: `budget=small` (laptop-sized defaults) and `budget=paper` (the paper's numbers).

A budget option left unset (none) takes its value from the profile; one set explicitly wins over the profile, so
`budget=paper max_actions=10` is the paper's budget with ten actions. Every number of the `paper` profile is from
the APEX-SQL paper; where the paper gives none, the profile keeps the `small` value and says so in `SOURCES`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from pydantic import Field

from groundsql.options import Options

Profile = Literal["small", "paper"]
DEFAULT_PROFILE: Profile = "small"


@dataclass(frozen=True)
class BudgetProfile:
    """The numbers one profile sets (None: no limit)."""

    max_actions: int  # actions per exploration trajectory
    max_explore_tokens: int  # prompt + completion tokens per trajectory
    force_sql_actions: int  # from this many actions on, the next action must be [SQL]
    force_sql_tokens: int  # past this many tokens, the next action must be [SQL]
    samples: int  # exploration trajectories per expert
    plan_samples: int  # draft logical plans merged into the master plan
    link_batch_tokens: int  # schema tokens per pruning batch
    verify_tables: int | None  # tables profiled by verification agents (None: every pruned table)
    verify_queries: int  # exploratory queries per profiled table
    tips: int | None  # retrieved tips per prompt (None: every matched tip)
    keep_observations: int | None  # exploration results kept in the consolidated state (None: all)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


PROFILES: dict[str, BudgetProfile] = {
    # Sized for the embedded 1.5B model's 8k-token context on a laptop CPU.
    "small": BudgetProfile(max_actions=6, max_explore_tokens=12000, force_sql_actions=5, force_sql_tokens=10200,
                           samples=2, plan_samples=2, link_batch_tokens=3000, verify_tables=12, verify_queries=3,
                           tips=8, keep_observations=4),
    # APEX-SQL §4.2.5, §4.3.4 and Appendix A.
    "paper": BudgetProfile(max_actions=40, max_explore_tokens=56000, force_sql_actions=38, force_sql_tokens=52000,
                           samples=8, plan_samples=2, link_batch_tokens=12000, verify_tables=None, verify_queries=8,
                           tips=None, keep_observations=None),
}

#: Where each number of the `paper` profile comes from.
SOURCES: dict[str, str] = {
    "max_actions": "§4.3.4: a limit of 40 actions per question",
    "max_explore_tokens": "§4.3.4: a limit of 56k tokens per question",
    "force_sql_actions": "§4.3.4: a mandatory SQL synthesis action is triggered at 38 actions",
    "force_sql_tokens": "§4.3.4: … or 52k tokens",
    "samples": "§4.3.4: we sample 8 candidates per task",
    "plan_samples": "§4.2.5: we sample N=2 paths at temperature 0.8, then aggregate them at 0.2",
    "link_batch_tokens": "§4.2.5: each batch constrained to 8–12k tokens (the upper end)",
    "verify_tables": "§3.2.3: independent agents for each table of the pruned schema (no limit)",
    "verify_queries": "Appendix A, F_exp: 'Generate 3-8 SQLite queries' (the upper end)",
    "tips": "§3.3.1: every tip whose rule matches (no limit)",
    "keep_observations": "§4.3.4: consolidation keeps every exploratory query and its result",
}


class BudgetOptions(Options):
    """Mixed into the options of the `apex` preset and the `apex` linker."""

    budget: Profile = Field(DEFAULT_PROFILE, description="budget profile: small (laptop-sized) or paper (APEX-SQL's "
                                                         "40 actions / 56k tokens, SQL forced at 38 / 52k, 8 samples, "
                                                         "12k-token batches, 8 probes per table); an option set "
                                                         "explicitly wins over its profile")


def profile(options: Options) -> BudgetProfile:
    """The profile the options name (`small` when they have no `budget` field)."""
    return PROFILES[str(getattr(options, "budget", DEFAULT_PROFILE))]


def budget_value(options: Options, name: str) -> Any:
    """The option `name` when it was given (a field whose default is none counts as given when not none), else
    the value of the options' budget profile."""
    info = type(options).model_fields.get(name)
    if info is not None:
        value = getattr(options, name)
        if value is not None and (name in options.model_fields_set or info.default is None):
            return value
    return getattr(profile(options), name)
