"""The exploration loop (APEX-SQL §3.3.2): explore, refine the plan, write SQL, confirm — within a budget.

Each turn rebuilds the prompt from a consolidated state (exploratory queries with their compressed results,
the latest plan, the latest SQL and its outcome) instead of the whole chat history, so prompts stay short and
share a long constant prefix (the embedded model reuses its cache for it). Near the action or token limit
the model is told to write SQL; replies that follow no format are repaired or asked again, never fatal.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import Field
from sqlglot.errors import SqlglotError

from groundsql.answer import Candidate
from groundsql.budgets import BudgetOptions, budget_value, profile
from groundsql.context import Context
from groundsql.errors import ModelError
from groundsql.generation.actions import Action, parse_action
from groundsql.generation.confirmation import findings_hint, result_findings
from groundsql.generation.diagnosis import diagnose
from groundsql.generation.refinement import execute_candidate
from groundsql.generation.tree_repair import needs_repair, tree_repair
from groundsql.prompts import dialect_name, evidence_block, render

log = logging.getLogger("groundsql")

REPLY_TOKENS = 256
FOLLOW_UP_TOKENS = 160
EXPLORE_ROWS = 100
MAX_STALE = 2  # after this many turns without progress, SQL is forced
OBSERVATION_CHARS = 700
PLAN_CHARS = 600

StepListener = Callable[[str, dict], None]


class ExploreOptions(BudgetOptions):
    max_actions: int | None = Field(None, ge=1, description="actions per exploration trajectory (1: write SQL at "
                                                            "once; none: the budget profile's, small 6, paper 40)")
    max_explore_tokens: int | None = Field(None, ge=1, description="prompt + completion tokens per trajectory (none: "
                                                                   "the budget profile's, small 12000, paper 56000)")
    force_sql_actions: int | None = Field(None, ge=0, description="from this many actions on, the next action must "
                                                                  "be [SQL] (none: the profile's, small 5, paper 38)")
    force_sql_tokens: int | None = Field(None, ge=0, description="past this many tokens the next action must be "
                                                                 "[SQL] (none: the profile's, small 10200, paper "
                                                                 "52000)")
    explore_repair: bool = Field(True, description="tree-repair a failing or empty [SQL] inside the trajectory and "
                                                   "show the model the repaired query (no model call; false: the "
                                                   "paper's plain error feedback)")
    confirm_checks: bool = Field(True, description="check a [CONFIRM]ed query's result with the exact sanity checks "
                                                   "and send findings back instead of accepting the model's word "
                                                   "(false: the paper's confirmation)")


@dataclass
class Budget:
    actions: int = 6
    tokens: int = 12000
    force_actions: int | None = None  # default: one action before the limit
    force_tokens: int | None = None  # default: 85% of the token limit
    keep_observations: int | None = 4  # None: every exploration result stays in the state

    def __post_init__(self) -> None:
        if self.force_actions is None:
            self.force_actions = self.actions - 1
        if self.force_tokens is None:
            self.force_tokens = int(self.tokens * 0.85)

    @classmethod
    def from_options(cls, options: ExploreOptions) -> Budget:
        """The options' limits, each from the budget profile unless it was set explicitly; forcing defaults to
        one action before the limit when only `max_actions` was set."""
        actions = budget_value(options, "max_actions")
        tokens = budget_value(options, "max_explore_tokens")
        force_actions = options.force_sql_actions
        if force_actions is None:
            force_actions = (actions - 1 if options.max_actions is not None
                             else budget_value(options, "force_sql_actions"))
        force_tokens = options.force_sql_tokens
        if force_tokens is None:
            force_tokens = (int(tokens * 0.85) if options.max_explore_tokens is not None
                            else budget_value(options, "force_sql_tokens"))
        return cls(actions=actions, tokens=tokens, force_actions=min(force_actions, actions - 1),
                   force_tokens=force_tokens, keep_observations=profile(options).keep_observations)

    def to_dict(self) -> dict:
        return {"actions": self.actions, "tokens": self.tokens, "force_actions": self.force_actions,
                "force_tokens": self.force_tokens, "keep_observations": self.keep_observations}


@dataclass
class Observation:
    sql: str
    text: str


@dataclass
class ExplorationState:
    plan: str = ""
    initial_plan: str = ""  # shown in the constant prompt prefix; the state repeats only a revised plan
    observations: list[Observation] = field(default_factory=list)
    attempts: list[Candidate] = field(default_factory=list)  # every [SQL], in order
    feedback: str = ""  # what the last [SQL] returned, or why it failed
    confirmed: bool = False
    actions: int = 0
    tokens: int = 0
    invalid: int = 0
    stale: int = 0  # consecutive turns that learnt nothing (invalid, or exploration already done)
    log: list[dict] = field(default_factory=list)
    keep_observations: int | None = 4  # exploration results kept (None: all)
    repair: bool = True  # tree-repair a failing [SQL] (option `explore_repair`)
    confirm_checks: bool = True  # check a [CONFIRM]ed result before accepting it (option `confirm_checks`)
    checked: set[str] = field(default_factory=set)  # confirmed queries whose findings were already sent back

    @property
    def last(self) -> Candidate | None:
        return self.attempts[-1] if self.attempts else None


def explore(ctx: Context, schema_text: str, *, tips: str = "", plan: str = "", role: str = "generator",
            sample: int = 0, temperature: float = 0.0, budget: Budget | None = None,
            listener: StepListener | None = None) -> Candidate:
    """Run one exploration trajectory and return its candidate (the confirmed SQL, else the best attempt).

    Args:
        ctx: the question's context; every call and query is recorded on its trace.
        schema_text: the linked schema as prompt text.
        tips: retrieved guidance (bullet list), may be empty.
        plan: the realization-path plan, may be empty.
        role: the model role to call (an expert's role for multi-model runs).
        sample: index of this trajectory (varies the seed and names the step on the trace).
        temperature: sampling temperature of this trajectory.
        budget: action and token limits; SQL is forced on the last action or near the token limit.
        listener: called with (event, data) after every action, for live display.
    """
    settings = ctx.settings(ExploreOptions)
    budget = budget or Budget.from_options(settings)
    dialect = dialect_name(ctx.db.dialect)
    state = ExplorationState(plan=plan[:PLAN_CHARS], initial_plan=plan[:PLAN_CHARS],
                             keep_observations=budget.keep_observations, repair=settings.explore_repair,
                             confirm_checks=settings.confirm_checks)
    system = render("explore_system", dialect=dialect)
    task = render("explore_task", dialect=dialect, schema=schema_text, evidence_block=evidence_block(ctx.evidence),
                  tips_block=f"Tips:\n{tips}\n\n" if tips else "",
                  plan_block=f"Plan:\n{state.plan}\n" if state.plan else "", question=ctx.question)
    step = f"explore:{sample}"
    while state.actions < budget.actions and not state.confirmed:
        forced = (state.actions >= budget.force_actions or state.tokens >= budget.force_tokens
                  or state.stale >= MAX_STALE)
        messages = [{"role": "system", "content": system},
                    {"role": "user", "content": task + "\n\n" + _state_text(state, budget, forced)}]
        try:
            completion = ctx.chat(step, messages, role=role, temperature=temperature, max_tokens=REPLY_TOKENS,
                                  seed=1000 * sample + state.actions)
        except ModelError as exc:
            log.warning("exploration stopped: %s", exc)
            state.log.append({"action": "ERROR", "error": str(exc)})
            break
        state.actions += 1
        state.tokens += completion.prompt_tokens + completion.completion_tokens
        action = _parse(completion.text, ctx.db.dialect)
        if action.wanted:
            action = _complete_bare_tag(ctx, state, messages, completion.text, action, step, role, temperature)
        if forced and action.kind not in ("SQL", "CONFIRM"):
            action = _force_sql(action, completion.text, ctx.db.dialect)
        _apply(ctx, state, action, sample, listener)
    return _result(ctx, state, sample, role)


def _apply(ctx: Context, state: ExplorationState, action: Action, sample: int,
           listener: StepListener | None) -> None:
    record: dict = {"action": action.kind}
    if action.repaired:
        record["repaired"] = action.repaired
    state.stale = 0 if action.kind in ("REFINE", "SQL", "CONFIRM") else state.stale + 1
    if action.kind == "EXPLORE":
        record["queries"] = []
        for sql in action.queries:
            if any(o.sql == sql for o in state.observations):
                continue
            state.stale = 0
            result, error = ctx.try_query(sql, step=f"explore:{sample}:probe", max_rows=EXPLORE_ROWS)
            text = result.summary() if result is not None else f"error: {error}"
            state.observations.append(Observation(sql=sql, text=_clip(text, OBSERVATION_CHARS)))
            record["queries"].append({"sql": sql, "rows": result.row_count if result else None, "error": error})
        if state.keep_observations is not None:
            del state.observations[:-state.keep_observations]
    elif action.kind == "REFINE":
        state.plan = _clip(action.body, PLAN_CHARS)
        record["plan"] = state.plan
    elif action.kind == "SQL" or (action.kind == "CONFIRM" and action.sql and _is_new(state, action.sql)):
        _run_sql(ctx, state, action.sql, sample)
        record["sql"] = action.sql
        record["ok"] = state.last.ok if state.last else False
    elif action.kind == "CONFIRM":
        if state.last is not None and state.last.ok:
            findings = _confirm_findings(ctx, state)
            if findings:
                record["findings"] = [f.check for f in findings]
                state.feedback = ("Checked against the data before confirming:\n" + findings_hint(findings)
                                  + "\nFix the query with [SQL], or [CONFIRM] again if it is right as it is.")
            else:
                state.confirmed = True
        else:
            state.feedback = "There is no working query to confirm yet; write one with [SQL]."
        record["confirmed"] = state.confirmed
    else:
        state.invalid += 1
        state.feedback = "Your last reply had no action. Start the reply with [EXPLORE], [REFINE], [SQL] or [CONFIRM]."
    state.log.append(record)
    ctx.trace.note("explore_step", sample=sample, **record)
    if listener is not None:
        listener("explore_step", {"sample": sample, **record})


def _run_sql(ctx: Context, state: ExplorationState, sql: str, sample: int) -> None:
    if state.last is not None and state.last.sql == sql and state.last.ok:
        state.confirmed = True  # the same working query twice reads as a confirmation
        return
    candidate = execute_candidate(ctx, sql, source="explore")
    repair_line = ""
    if state.repair and needs_repair(candidate):
        fixed = tree_repair(ctx, candidate)
        if fixed.repaired:
            rules = ", ".join(dict.fromkeys(f.rule for f in fixed.fixes))
            repair_line = (f"Your query was repaired from the schema ({rules}); the repaired query:\n"
                           f"```sql\n{fixed.candidate.sql}\n```\n")
            candidate = fixed.candidate
            ctx.trace.note("explore_repair", sample=sample, rules=rules, sql=candidate.sql, ok=candidate.ok)
    state.attempts.append(candidate)
    verdict = diagnose(candidate.sql, candidate.result, candidate.error, ctx.schema)
    if candidate.error:
        state.feedback = repair_line + f"{verdict.problem}\n{verdict.hint}".strip()
    else:
        state.feedback = repair_line + _clip(candidate.result.summary(threshold=10, head=5), OBSERVATION_CHARS)
        if verdict.kind != "ok":
            state.feedback += f"\nNote: {verdict.problem} {verdict.hint}".rstrip()


def _confirm_findings(ctx: Context, state: ExplorationState) -> list:
    """What the exact checks find in the result about to be confirmed (once per query: a second [CONFIRM] of the
    same query is accepted, so the model keeps the last word on findings it judged wrong)."""
    candidate = state.last
    if not state.confirm_checks or candidate is None or candidate.sql in state.checked:
        return []
    state.checked.add(candidate.sql)
    findings = result_findings(ctx, candidate)
    if findings:
        ctx.trace.note("confirm_checks", sql=candidate.sql, findings=[f.check for f in findings])
    return findings


def _parse(reply: str, dialect: str) -> Action:
    """`parse_action`, with any parser failure on odd model text read as an invalid action."""
    try:
        return parse_action(reply, dialect)
    except (SqlglotError, ValueError, RecursionError) as exc:
        log.debug("unparseable reply (%s): %r", exc, reply[:200])
        return Action(kind="INVALID", repaired=f"unparseable reply: {exc}")


def _complete_bare_tag(ctx: Context, state: ExplorationState, messages: list[dict], reply: str, action: Action,
                       step: str, role: str, temperature: float) -> Action:
    """Small models often stop right after a tag; ask once, in the same chat, for the query it announced."""
    follow = messages + [{"role": "assistant", "content": reply},
                         {"role": "user", "content": f"Write the {action.wanted} query now, in a ```sql block."}]
    try:
        completion = ctx.chat(step, follow, role=role, temperature=temperature, max_tokens=FOLLOW_UP_TOKENS)
    except ModelError:
        return action
    state.tokens += completion.prompt_tokens + completion.completion_tokens
    retry = _parse(f"[{action.wanted}]\n{completion.text}", ctx.db.dialect)
    if retry.kind == action.wanted:
        retry.repaired = f"bare [{action.wanted}] completed by a follow-up"
        return retry
    return action


def _force_sql(action: Action, reply: str, dialect: str) -> Action:
    """On the last turn any query in the reply becomes the answer; otherwise the turn is lost."""
    from groundsql.sql.extract import extract_sql

    sql = action.sql if action.kind == "EXPLORE" and action.queries else extract_sql(reply, dialect)
    if sql:
        return Action(kind="SQL", body=reply, queries=[sql], repaired=f"{action.kind} on the last turn read as [SQL]")
    return action


def _is_new(state: ExplorationState, sql: str) -> bool:
    return state.last is None or state.last.sql != sql


def _state_text(state: ExplorationState, budget: Budget, forced: bool) -> str:
    lines = []
    if state.observations:
        lines.append("Exploration results:")
        for index, obs in enumerate(state.observations, 1):
            lines.append(f"{index}. {obs.sql}\n{obs.text}")
    history = "\n".join(lines)
    plan_line = f"Current plan:\n{state.plan}\n" if state.plan and state.plan != state.initial_plan else ""
    last = ""
    if state.last is not None:
        last = f"Your last query:\n```sql\n{state.last.sql}\n```\n{state.feedback}\n"
    elif state.feedback:
        last = state.feedback + "\n"
    left = budget.actions - state.actions
    previous = state.log[-1]["action"] if state.log else ""
    if forced:
        instruction = "This is your last turn: reply with [SQL] and the final query."
    elif previous in ("SQL", "CONFIRM") and state.last is not None and state.last.ok:
        instruction = f"{left} turns left. If this result answers the question reply [CONFIRM], else fix it with [SQL]."
    elif previous in ("SQL", "CONFIRM") and state.last is not None:
        instruction = f"{left} turns left. Fix the query with [SQL], or check the data with [EXPLORE]."
    elif not state.log:
        instruction = (f"{left} turns left. Start with [EXPLORE] to check the values and joins you need, "
                       "or [SQL] if you are sure.")
    else:
        instruction = f"{left} turns left. Next: [EXPLORE] to check more, or [SQL] to answer."
    return render("explore_state", history=history, plan_line=plan_line, last_sql=last, instruction=instruction)


def _result(ctx: Context, state: ExplorationState, sample: int, role: str) -> Candidate:
    """The confirmed query, else the best attempt (rows beat no rows beat errors; later beats earlier)."""
    if state.confirmed and state.last is not None:
        chosen = state.last
    elif state.attempts:
        chosen = max(reversed(state.attempts), key=_quality)
    else:
        chosen = Candidate(sql="", error="exploration ended without a query", source="explore")
    chosen.model = ctx.model(role).spec
    chosen.expert = role
    chosen.strategy = state.plan
    chosen.source = "explore"
    ctx.trace.note("explore_done", sample=sample, actions=state.actions, tokens=state.tokens,
                   confirmed=state.confirmed, invalid=state.invalid, sql=chosen.sql, ok=chosen.ok)
    return chosen


def _quality(candidate: Candidate) -> int:
    if not candidate.ok:
        return 0
    return 2 if candidate.result.row_count > 0 else 1


def _clip(text: str, limit: int) -> str:
    text = (text or "").strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"
