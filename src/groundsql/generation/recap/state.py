"""What the recap loop knows at each step: the plan and its versions, the latest critique and observation, the
actions taken, and the queries that ran."""

from __future__ import annotations

from dataclasses import dataclass, field

from groundsql.answer import Candidate
from groundsql.generation.recap.planner import Plan


@dataclass
class RecapState:
    schema_text: str
    plan: Plan
    knowledge: list[str] = field(default_factory=list)
    plan_versions: list[Plan] = field(default_factory=list)
    syntax: dict[str, str] = field(default_factory=dict)
    critique: str = ""  # the latest feedback: SQL critique, validator verdict, or why an action was refused
    observation: str = ""  # what the last executed action returned
    plan_step: int = 0  # index of the plan step the action agent works on
    steps: int = 0  # actions taken (the step limit counts these)
    refused_in_a_row: int = 0  # invalid or repeated actions since the last one that ran
    done: set[tuple[str, str]] = field(default_factory=set)  # (action, normalized SQL) already executed
    history: list[str] = field(default_factory=list)  # one line per action, for the action agent's prompt
    attempts: list[Candidate] = field(default_factory=list)  # every query run as an answer, in order
    final: Candidate | None = None  # the candidate the validator passed (or that was accepted without one)
    relinks: int = 0
    refine_rounds: int = 0
    plan_critique_rounds: int = 0
    sql_revisions: list[bool] = field(default_factory=list)  # per SQL-critic revision: adopted or not
    validator_verdicts: list[bool] = field(default_factory=list)

    def current_step(self) -> str:
        steps = self.plan.steps
        return steps[min(self.plan_step, len(steps) - 1)] if steps else ""

    def set_plan(self, plan: Plan) -> None:
        self.plan = plan
        self.plan_versions.append(plan)
        self.plan_step = 0
