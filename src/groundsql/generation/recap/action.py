"""Action agent: the next action from a fixed set (run SQL as the answer, inspect the data with a bounded query,
terminate), given the question, the current plan step, the latest critique, the last observation and the syntax
notes. Invalid and repeated actions are detected here and never executed."""

from __future__ import annotations

from dataclasses import dataclass

import sqlglot
from pydantic import Field, field_validator
from sqlglot import exp
from sqlglot.errors import SqlglotError

from groundsql.context import Context
from groundsql.generation.recap.replies import Reply, ask_json, short_text
from groundsql.generation.recap.state import RecapState
from groundsql.generation.recap.syntax import notes_text
from groundsql.prompts import dialect_name, render
from groundsql.sql.extract import extract_sql

KINDS = ("run_sql", "inspect", "terminate")
FORCED = "Now use run_sql with the full query that answers the question.\n"
_ALIASES = {"sql": "run_sql", "execute": "run_sql", "exec_sql": "run_sql", "run": "run_sql", "query": "run_sql",
            "explore": "inspect", "look": "inspect", "stop": "terminate", "done": "terminate", "finish": "terminate"}


class ActionReply(Reply):
    thought: str = Field("", json_schema_extra=short_text())
    # The enum reaches the provider's JSON schema (a grammar for the embedded model); other spellings that still
    # arrive are normalized below, and unknown ones are refused by `check_action`.
    action: str = Field(json_schema_extra={"enum": list(KINDS)})
    sql: str = ""

    @field_validator("action")
    @classmethod
    def _normalized(cls, value: str) -> str:
        key = "_".join(str(value).strip().lower().replace("-", " ").split())
        return _ALIASES.get(key, key)


class AnswerNowReply(ActionReply):
    """The reply when the loop needs an answer query now: its schema allows `run_sql` only."""

    action: str = Field(json_schema_extra={"enum": ["run_sql"]})


@dataclass
class Action:
    kind: str  # run_sql | inspect | terminate | invalid | repeated
    sql: str = ""
    thought: str = ""
    reason: str = ""  # why an action was refused

    @property
    def executable(self) -> bool:
        return self.kind in ("run_sql", "inspect")


def next_action(ctx: Context, state: RecapState, *, role: str = "generator", answer_now: bool = False) -> Action:
    """Ask for the next action and check it; a refused action comes back as `invalid` or `repeated`. With
    `answer_now` (the last step without an answer yet, or after refused actions in a row) the agent is told to
    run its answer query, and the reply's schema allows nothing else (a grammar for the embedded model)."""
    prompt = render(
        "recap_action", dialect=dialect_name(ctx.db.dialect), schema=state.schema_text, question=ctx.question,
        plan=state.plan.text(), step=state.current_step(), output_format=state.plan.format_text() or "(not given)",
        syntax=f"Syntax notes:\n{notes_text(state.syntax)}\n" if state.syntax else "",
        history="\n".join(state.history[-4:]) or "(none yet)",
        observation=state.observation or "(nothing yet)", critique=state.critique or "(none)",
        forced=FORCED if answer_now else "",
    )
    reply = ask_json(ctx, "recap:action", prompt, AnswerNowReply if answer_now else ActionReply, role=role,
                     max_tokens=320)
    if reply is None:
        return Action(kind="invalid", reason="the reply was not a valid action")
    return check_action(reply, state, ctx.db.dialect)


def check_action(reply: ActionReply, state: RecapState, dialect: str) -> Action:
    """Classify a reply: an unknown action, a query that is not one SELECT, or an action already taken are
    refused with a reason."""
    if reply.action not in KINDS:
        return Action(kind="invalid", thought=reply.thought,
                      reason=f"unknown action {reply.action!r}; choose one of {', '.join(KINDS)}")
    if reply.action == "terminate":
        return Action(kind="terminate", thought=reply.thought)
    sql = extract_sql(reply.sql, dialect) if reply.sql.strip() else ""
    if not sql or not _is_query(sql, dialect):
        return Action(kind="invalid", thought=reply.thought, sql=reply.sql,
                      reason=f"{reply.action} needs one SELECT query in \"sql\"")
    if (reply.action, normalized(sql, dialect)) in state.done:
        return Action(kind="repeated", thought=reply.thought, sql=sql,
                      reason="this exact action was already taken; its result is above — do something different")
    return Action(kind=reply.action, sql=sql, thought=reply.thought)


def normalized(sql: str, dialect: str) -> str:
    """The query in one canonical spelling, so that whitespace or case changes do not make a new action."""
    try:
        return sqlglot.parse_one(sql, read=dialect).sql(dialect=dialect, normalize=True)
    except (SqlglotError, ValueError):
        return " ".join(sql.lower().split())


def _is_query(sql: str, dialect: str) -> bool:
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (SqlglotError, ValueError):
        return True  # unparseable by sqlglot is for the engine (and the self-refiner) to judge
    return isinstance(tree, exp.Query)
