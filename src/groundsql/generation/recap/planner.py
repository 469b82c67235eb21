"""Planner: a step-by-step plan in JSON plus the expected output format (the answer's columns and their types)."""

from __future__ import annotations

from pydantic import Field, field_validator

from groundsql.context import Context
from groundsql.generation.recap.replies import Reply, ask_json, short_list
from groundsql.prompts import dialect_name, render

MAX_STEPS = 8


class OutputColumn(Reply):
    name: str
    type: str = "TEXT"


class Plan(Reply):
    """What the planner returns; `steps` is never empty once validated."""

    steps: list[str] = Field(min_length=1, json_schema_extra=short_list(MAX_STEPS))
    expected_columns: list[OutputColumn] = Field(default_factory=list)

    @field_validator("steps")
    @classmethod
    def _non_blank(cls, steps: list[str]) -> list[str]:
        kept = [" ".join(str(s).split()) for s in steps if str(s).strip()][:MAX_STEPS]
        if not kept:
            raise ValueError("at least one non-empty step is needed")
        return kept

    def same_as(self, other: Plan) -> bool:
        return self.steps == other.steps and self.format_text() == other.format_text()

    def text(self) -> str:
        return "\n".join(f"{number}. {step}" for number, step in enumerate(self.steps, 1))

    def format_text(self) -> str:
        """The expected output format, one line (empty when the planner gave none)."""
        return ", ".join(f"{c.name} ({c.type})" for c in self.expected_columns)


def fallback_plan(ctx: Context) -> Plan:
    """The plan used when the planner gives no usable reply: answer the question in one query."""
    return Plan(steps=[f"Write one query that answers: {ctx.question}"])


def make_plan(ctx: Context, schema_text: str, *, knowledge: list[str], previous: Plan | None = None,
              critique: list[str] | None = None, error: str = "", role: str = "planner") -> Plan | None:
    """A new plan, or a revision of `previous` that addresses `critique` (or a schema `error`); None when the model
    gave no valid plan."""
    revision = ""
    if previous is not None:
        reasons = "\n".join(f"- {r}" for r in critique or []) or "- (none given)"
        revision = render("recap_plan_revision", plan=previous.text(), reasons=reasons,
                          error=f"The last query failed with: {error}\n" if error else "")
    prompt = render("recap_plan", dialect=dialect_name(ctx.db.dialect), schema=schema_text,
                    knowledge=_knowledge_block(knowledge), question=ctx.question, revision=revision)
    return ask_json(ctx, "recap:plan", prompt, Plan, role=role, max_tokens=350)


def _knowledge_block(knowledge: list[str]) -> str:
    if not knowledge:
        return ""
    return "Knowledge that may help:\n" + "\n".join(f"- {k}" for k in knowledge) + "\n"
