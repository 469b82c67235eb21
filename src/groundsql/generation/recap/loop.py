"""The recap loop (ReCAPAgent-SQL §3.3): knowledge → plan ⇄ plan critique → syntax help → act → SQL critique →
self-refine or re-link → validate, until the validator passes a result or the step limit is reached.

Every agent's turn is noted on the trace (`recap` notes: plan versions, critiques, actions, observations,
verdicts) and passed to a listener (`ask --verbose` logs it)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from pydantic import Field

from groundsql.answer import Candidate
from groundsql.context import Context
from groundsql.generation.direct import schema_prompt_text
from groundsql.generation.recap.action import next_action, normalized
from groundsql.generation.recap.knowledge import retrieve_knowledge
from groundsql.generation.recap.plan_critique import critique_plan
from groundsql.generation.recap.planner import fallback_plan, make_plan
from groundsql.generation.recap.schema_linker import NOT_FOUND, presql_link, relink
from groundsql.generation.recap.self_refiner import needs_refinement, self_refine
from groundsql.generation.recap.sql_critique import critique_sql, exact_critique
from groundsql.generation.recap.state import RecapState
from groundsql.generation.recap.syntax import retrieve_syntax
from groundsql.generation.recap.validator import validate_result
from groundsql.generation.refinement import execute_candidate
from groundsql.generation.tree_repair import tree_repair
from groundsql.generation.validator import Verdict
from groundsql.options import Options
from groundsql.selection.checks import settles

log = logging.getLogger("groundsql")

#: Refused actions in a row after which, while nothing has answered yet, the agent must run its answer query.
MAX_REFUSED = 1

#: Receives (agent, data) after each agent's turn.
TurnListener = Callable[[str, dict], None]


class RecapLoopOptions(Options):
    """Settings of the recap agents and their loop."""

    max_steps: int = Field(8, ge=1, description="actions the action agent may take (the loop's step limit)")
    plan_critique: bool = Field(True, description="let the plan critic review the plan (off: ablation)")
    plan_critique_rounds: int = Field(3, ge=1, description="plan critique rounds at most")
    sql_critique: bool = Field(True, description="let the SQL critic review each answer query (off: ablation)")
    validator: bool = Field(True, description="validate each result; a pass ends the loop (off: ablation, the "
                                              "first query with rows ends it)")
    syntax_help: bool = Field(True, description="dialect syntax notes for the action agent after planning")
    syntax_topics: Literal["keywords", "model"] = Field("keywords", description="how the notes' topics are "
                                                                                "chosen: keywords (the words "
                                                                                "of the question and plan, no "
                                                                                "call) or model (the paper's "
                                                                                "syntax retriever asks)")
    refine_rounds: int = Field(2, ge=0, description="repair rounds per failing or empty candidate")
    relink_limit: int = Field(2, ge=0, description="schema re-linkings on table/column-not-found errors")
    knowledge_k: int = Field(3, ge=0, description="knowledge snippets given to the planner")
    inspect_rows: int = Field(5, ge=1, description="rows an exploratory query may return")
    schema_linking: Literal["presql", "on_error"] = Field(
        "presql", description="presql: PreSQL draft over the full schema → its tables and columns (compact "
                              "form) → plan and act on them (PostSQL), re-linked again on a not-found error; "
                              "on_error: the full schema until a table/column-not-found error (ablation)")
    shape_checks: bool = Field(True, description="run the exact question-shape checks before the SQL critic and "
                                                 "the validator ask the model: a finding is the critique, its "
                                                 "rewrite the revision (false: the join check only, ablation)")
    loop: Literal["always", "flagged"] = Field(
        "flagged", description="flagged: plan, act, critique and validate only when the PreSQL draft fails, "
                               "returns no rows or an exact check finds something in it, else the draft is the "
                               "answer (on the training databases the loop turned right drafts wrong more often "
                               "than it fixed them); always: after every draft (the paper)")


@dataclass(frozen=True)
class AgentRoles:
    """The model roles the agents call: the expert's own model plans and acts; the critics use `judge`."""

    planner: str
    actor: str
    critic: str

    @classmethod
    def for_expert(cls, role: str) -> AgentRoles:
        return cls("planner", "generator", "judge") if role == "generator" else cls(role, role, "judge")


@dataclass
class RecapRun:
    candidate: Candidate  # the validated result, else the best query that ran
    state: RecapState

    @property
    def validated(self) -> bool:
        return self.state.final is not None


def solve(ctx: Context, options: RecapLoopOptions, *, role: str = "generator",
          listener: TurnListener | None = None) -> RecapRun:
    """Run the agents for one expert (`role`) until a result is validated or `max_steps` actions are spent."""
    roles = AgentRoles.for_expert(role)

    def say(agent: str, **data) -> None:
        ctx.trace.note("recap", agent=agent, expert=role, **data)
        if listener is not None:
            listener(agent, data)

    knowledge = retrieve_knowledge(ctx, options.knowledge_k)
    say("knowledge", snippets=knowledge)
    schema_text = schema_prompt_text(ctx)
    state = RecapState(schema_text=schema_text, plan=fallback_plan(ctx), knowledge=knowledge)
    if options.schema_linking == "presql":
        _presql(ctx, state, roles, say)
        if options.loop == "flagged" and state.attempts and settles(ctx, state.attempts[0]):
            state.final = state.attempts[0]
            say("draft-kept", sql=state.final.sql, reason="the PreSQL draft ran, returned rows and no exact "
                                                           "check found anything in it")
    if state.final is None:
        _plan(ctx, state, options, roles, say)
        if options.syntax_help:
            state.syntax = retrieve_syntax(ctx, state.plan, role=roles.actor, mode=options.syntax_topics)
            say("syntax", topics=list(state.syntax))
    while state.final is None and state.steps < options.max_steps:
        _step(ctx, state, options, roles, say)
    candidate = state.final or _best(state.attempts) or Candidate(
        sql="", error="no query ran within the step limit", source="recap", model=ctx.model(roles.actor).spec)
    say("done", steps=state.steps, validated=state.final is not None, sql=candidate.sql,
        plan_versions=len(state.plan_versions), plan_critique_rounds=state.plan_critique_rounds,
        refine_rounds=state.refine_rounds, relinks=state.relinks, verdicts=state.validator_verdicts,
        sql_revisions=state.sql_revisions)
    return RecapRun(candidate=candidate, state=state)


def _presql(ctx: Context, state: RecapState, roles: AgentRoles, say) -> None:
    """PreSQL → linking → PostSQL (§3.1.1, encapsulated in ReCAP's schema linker): one draft over the full schema;
    the tables and columns it reads, in compact form, become the schema the planner and the action agent see. The
    draft that runs is kept as the loop's first attempt (a fallback answer) and shown as the first observation."""
    linked = presql_link(ctx, state.schema_text, role=roles.actor)
    if linked is None:
        say("schema-link", mode="presql", schema="(no usable draft: the full schema is kept)")
        return
    draft, state.schema_text = linked
    say("schema-link", mode="presql", sql=draft.sql, schema=state.schema_text)
    if draft.ok:
        state.attempts.append(draft)
    state.observation = f"A first draft of the query (PreSQL):\n{draft.sql}\n{_outcome(draft)}"


def _plan(ctx: Context, state: RecapState, options: RecapLoopOptions, roles: AgentRoles, say) -> None:
    """The first plan, then up to `plan_critique_rounds` critique → revise rounds."""
    plan = make_plan(ctx, state.schema_text, knowledge=state.knowledge, role=roles.planner)
    state.set_plan(plan or fallback_plan(ctx))
    _say_plan(state, say, fallback=plan is None)
    if not options.plan_critique:
        return
    for round_number in range(1, options.plan_critique_rounds + 1):
        verdict = critique_plan(ctx, state.plan, state.schema_text, role=roles.critic)
        state.plan_critique_rounds += 1
        say("plan-critique", round=round_number, update_plan=bool(verdict and verdict.update_plan),
            reasons=verdict.reasons if verdict else [])
        if verdict is None or not verdict.update_plan:
            return
        revised = make_plan(ctx, state.schema_text, knowledge=state.knowledge, previous=state.plan,
                            critique=verdict.reasons, role=roles.planner)
        if revised is None or revised.same_as(state.plan):
            return  # nothing changed: another round would not either
        state.set_plan(revised)
        _say_plan(state, say)


def _say_plan(state: RecapState, say, *, fallback: bool = False) -> None:
    say("plan", version=len(state.plan_versions), steps=list(state.plan.steps),
        expected=state.plan.format_text(), fallback=fallback)


def _step(ctx: Context, state: RecapState, options: RecapLoopOptions, roles: AgentRoles, say) -> None:
    """One action: refused, terminate, inspect, or an answer query with its critique, repair and validation."""
    no_answer = not any(c.ok for c in state.attempts if c.source != "recap:presql")
    answer_now = no_answer and (state.steps == options.max_steps - 1 or state.refused_in_a_row >= MAX_REFUSED)
    action = next_action(ctx, state, role=roles.actor, answer_now=answer_now)
    state.steps += 1
    say("action", number=state.steps, action=action.kind, sql=action.sql, thought=action.thought, reason=action.reason,
        forced=answer_now)
    state.refused_in_a_row = state.refused_in_a_row + 1 if action.kind in ("invalid", "repeated") else 0
    if action.kind in ("invalid", "repeated"):
        state.critique = f"Your last action was refused: {action.reason}."
        state.history.append(f"{state.steps}. {action.kind} action, refused: {action.reason}")
        return
    if action.kind == "terminate":
        # the PreSQL draft is no answer of the loop's: terminating on it alone would skip every check
        last = next((c for c in reversed(state.attempts) if c.source != "recap:presql"), None)
        if last is not None and last.ok:
            state.final = last
            say("terminate", sql=last.sql)
        else:
            state.critique = "Nothing has answered the question yet: run an answer query with run_sql first."
            state.history.append(f"{state.steps}. terminate, refused: no answer query has run")
        return
    state.done.add((action.kind, normalized(action.sql, ctx.db.dialect)))
    if action.kind == "inspect":
        result, error = ctx.try_query(action.sql, step="recap:inspect", max_rows=options.inspect_rows)
        state.observation = result.digest(head=options.inspect_rows) if result is not None else \
            f"error: {error}"
        say("observation", sql=action.sql, text=state.observation)
        state.history.append(f"{state.steps}. inspect: {action.sql}")
        state.plan_step += 1
        return
    _answer(ctx, state, action.sql, options, roles, say)


def _answer(ctx: Context, state: RecapState, sql: str, options: RecapLoopOptions, roles: AgentRoles, say) -> None:
    candidate = execute_candidate(ctx, sql, source="recap", role=roles.actor)
    say("observation", sql=sql, text=_outcome(candidate))
    if options.sql_critique:
        candidate = _critiqued(ctx, state, candidate, roles, say, exact=options.shape_checks)
    if needs_refinement(ctx, candidate):
        fixed = tree_repair(ctx, candidate)  # exact fixes from the syntax tree, no model call
        if fixed.repaired:
            say("tree-repair", sql=fixed.candidate.sql, rules=[f.rule for f in fixed.fixes])
            candidate = fixed.candidate
    kind = needs_refinement(ctx, candidate)
    if kind in NOT_FOUND and state.relinks < options.relink_limit:
        _relinked(ctx, state, candidate, roles, say)
        return
    if kind is not None and options.refine_rounds:
        refined = self_refine(ctx, candidate, state, rounds=options.refine_rounds, role=roles.actor)
        if refined is not candidate:
            say("self-refine", sql=refined.sql, text=_outcome(refined))
            candidate = refined
    state.attempts.append(candidate)
    state.done.add(("run_sql", normalized(candidate.sql, ctx.db.dialect)))
    state.observation = f"{candidate.sql}\n{_outcome(candidate)}"
    state.history.append(f"{state.steps}. run_sql: {candidate.sql} → "
                         f"{'error' if not candidate.ok else f'{candidate.result.row_count} row(s)'}")
    state.plan_step += 1
    if not candidate.ok:
        state.critique = f"The query failed: {candidate.error}"
        return
    if not options.validator:
        if candidate.result.row_count > 0:
            state.final = candidate
        else:
            state.critique = "The query returned no rows."
        return
    verdict = _judge(ctx, state, candidate, roles, say, exact=options.shape_checks)
    if verdict.rewrite:
        _try_rewrite(ctx, state, verdict.rewrite, roles, say, exact=options.shape_checks)


def _judge(ctx: Context, state: RecapState, candidate: Candidate, roles: AgentRoles, say, *,
           exact: bool = True) -> Verdict:
    """The validator's verdict on a query that ran: a pass makes it final, a fail becomes the next critique."""
    verdict = validate_result(ctx, candidate, state.plan, role=roles.critic, shape=exact)
    state.validator_verdicts.append(verdict.valid)
    say("validate", valid=verdict.valid, feedback="" if verdict.valid else verdict.feedback())
    if verdict.valid:
        state.final = candidate
    else:
        state.critique = f"A reviewer rejected the result: {verdict.feedback()}"
    return verdict


def _try_rewrite(ctx: Context, state: RecapState, sql: str, roles: AgentRoles, say, *, exact: bool = True) -> None:
    """Run a deterministic check's rewrite of a rejected query and validate it like any answer query."""
    rewritten = execute_candidate(ctx, sql, source="recap:check-rewrite", role=roles.actor)
    say("check-rewrite", sql=sql, text=_outcome(rewritten))
    if not rewritten.ok or not rewritten.result.row_count:
        return
    state.attempts.append(rewritten)
    state.done.add(("run_sql", normalized(rewritten.sql, ctx.db.dialect)))
    _judge(ctx, state, rewritten, roles, say, exact=exact)


def _critiqued(ctx: Context, state: RecapState, candidate: Candidate, roles: AgentRoles, say, *,
               exact: bool = True) -> Candidate:
    """The critic's revision when it offers one that does no worse than the original. With `exact`, the
    question-shape checks speak first: their findings are the critique and their rewrite the revision, and the
    model critic is not asked (a 1.5B critic passed an unasked LIMIT and a list for 'how many')."""
    critique = exact_critique(ctx, candidate) if exact else None
    if critique is None:
        critique = critique_sql(ctx, candidate, state.plan, role=roles.critic)
    say("sql-critique", reasoning=critique.reasoning, revised=critique.revised_sql, exact=critique.exact)
    if not critique.revised_sql:
        return candidate
    state.critique = critique.reasoning
    source = "recap:shape" if critique.exact else "recap-critique"
    revised = execute_candidate(ctx, critique.revised_sql, source=source, role=roles.actor)
    say("observation", sql=revised.sql, text=_outcome(revised))
    adopted = _score(revised) >= _score(candidate)
    state.sql_revisions.append(adopted)
    return revised if adopted else candidate


def _relinked(ctx: Context, state: RecapState, candidate: Candidate, roles: AgentRoles, say) -> None:
    """A not-found error: re-link the schema in compact form and re-plan on it."""
    state.relinks += 1
    state.attempts.append(candidate)
    state.done.add(("run_sql", normalized(candidate.sql, ctx.db.dialect)))
    _, state.schema_text = relink(ctx, candidate.sql, candidate.error or "", role=roles.actor)
    say("schema-link", relinks=state.relinks, schema=state.schema_text)
    plan = make_plan(ctx, state.schema_text, knowledge=state.knowledge, previous=state.plan,
                     critique=["Use only the tables and columns of the schema shown."], error=candidate.error or "",
                     role=roles.planner)
    if plan is not None:
        state.set_plan(plan)
        _say_plan(state, say)
    state.observation = f"{candidate.sql}\nerror: {candidate.error}"
    state.critique = "The query named a table or column that does not exist; the schema above was re-linked."
    state.history.append(f"{state.steps}. run_sql: {candidate.sql} → not found; schema re-linked")


def _outcome(candidate: Candidate) -> str:
    if not candidate.ok:
        return f"error: {candidate.error}"
    return candidate.result.digest()


def _score(candidate: Candidate) -> int:
    if not candidate.ok:
        return 0
    return 2 if candidate.result.row_count > 0 else 1


def _best(attempts: list[Candidate]) -> Candidate | None:
    """The best query that ran (rows beat no rows beat an error); the latest among equals."""
    best = None
    for candidate in attempts:
        if best is None or _score(candidate) >= _score(best):
            best = candidate
    return best
