"""The ledger-driven orchestrator (AgentNLQ §3.3.5–3.3.9): a fast loop run by the orchestrator model and a
slow loop run by the SQL generator agent, over one immutable task ledger and one progress ledger.

Each fast round the orchestrator, seeing the fact sheet, the tables it names and the pruned history, picks one
action: `emit` (it writes the query; parsed, run and checked at once), `delegate` (the generator writes it) or
`execute` (run a query to look at the data; bounded by `max_probes`, not an answer attempt). After
`escalate_after` consecutive failed attempts control escalates to the generator with the full metadata; its
query returns to the orchestrator's checks, and the fast loop resumes if it fails. At most `max_attempts`
queries are tried; then the best attempt is returned with low confidence.

Every round, escalation and compression is noted on the trace (step `agentnlq`) and sent to the step listener
(`ctx.on_step`, else logged at INFO, which `ask --verbose` shows).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from groundsql.catalog import estimate_tokens
from groundsql.context import Context, StepListener
from groundsql.errors import ModelError, ModelNotInstalled
from groundsql.generation.agents.domain_notes import DomainNotes
from groundsql.generation.agents.feedback import Verdict, judge_sql
from groundsql.generation.agents.generator_agent import generator_messages, notes_block, write_sql
from groundsql.generation.agents.history import history_messages
from groundsql.generation.agents.progress_ledger import Attempt, Probe, ProgressLedger
from groundsql.generation.agents.schema_context import SchemaContext
from groundsql.generation.agents.structured import ask_structured
from groundsql.generation.agents.task_ledger import TaskLedger
from groundsql.generation.schema_text import render_subset
from groundsql.generation.tree_repair import TreeRepairOptions
from groundsql.linking.subset import SchemaSubset
from groundsql.models import Message
from groundsql.prompts import dialect_name, render
from groundsql.sql.extract import extract_sql

log = logging.getLogger("groundsql")

MAX_DECISION_TOKENS = 400


class OrchestrationOptions(TreeRepairOptions):
    """The loop's bounds, the ablation switches of escalation and compression, and the tree repairs every
    failing attempt gets before its feedback is written."""

    max_attempts: int = Field(4, ge=1, description="queries tried by both loops together before a best-effort "
                                                   "answer with low confidence")
    escalate_after: int = Field(2, ge=1, description="consecutive failed attempts that escalate to the SQL "
                                                     "generator (slow loop)")
    max_probes: int = Field(1, ge=0, description="queries the orchestrator may run to look at the data")
    escalation: bool = Field(True, description="escalate to the slow loop at all (false: ablation)")
    compression: bool = Field(True, description="compress the history into one structured message after each "
                                                "failure (false: raw turns, ablation)")
    history_budget: int = Field(1500, ge=100, description="history tokens above which only the first and latest "
                                                          "attempts are kept")
    result_checks: bool = Field(True, description="judge results with the sanity checks and the expected row "
                                                  "count, not only errors and empty results")
    json_schema: bool = Field(True, description="constrain the ledger and decision replies to a JSON schema "
                                                "(false: parse leniently and re-ask)")
    shape_checks: bool = Field(True, description="add the question-shape checks (count or list, unasked LIMIT, "
                                                 "idle join, …) to the execution feedback (false: ablation)")
    accept_repeated: bool = Field(True, description="accept an empty or suspicious result that a later attempt "
                                                    "reproduces (the same query, or the same rows)")


class Decision(BaseModel):
    """The orchestrator's reply each fast round."""

    model_config = ConfigDict(extra="ignore")

    action: Literal["emit", "delegate", "execute"]
    sql: str = ""


@dataclass
class Outcome:
    """How the loop ended: the chosen attempt, whether it succeeded, and on which path."""

    chosen: Attempt | None
    solved: bool
    path: str  # "fast", "escalated" or "unsolved"

    @property
    def confirmed(self) -> bool:
        """Solved by a reproduced empty or suspicious result rather than a clean one."""
        return self.chosen is not None and self.chosen.outcome == "confirmed"
    progress: ProgressLedger


@dataclass
class _Run:
    ctx: Context
    schema: SchemaContext
    ledger: TaskLedger | None
    notes: DomainNotes
    options: OrchestrationOptions
    listener: StepListener
    orchestrator_context: str
    progress: ProgressLedger


def orchestrate(ctx: Context, schema: SchemaContext, ledger: TaskLedger | None, notes: DomainNotes,
                options: OrchestrationOptions, *, listener: StepListener | None = None) -> Outcome:
    """Run the fast and slow loops until a query passes every check or `max_attempts` are spent."""
    context = _orchestrator_context(ctx, schema, ledger, notes)
    run = _Run(ctx, schema, ledger, notes, options, listener or log_step, context, ProgressLedger())
    progress = run.progress
    rounds = 0
    while len(progress.attempts) < options.max_attempts and rounds < options.max_attempts + options.max_probes:
        rounds += 1
        if options.escalation and progress.consecutive_failures >= options.escalate_after:
            attempt = _slow_round(run)
        else:
            attempt = _fast_round(run)
        if attempt is None:  # a probe: the orchestrator looked at the data
            continue
        earlier = progress.confirmed_by(attempt, ctx.db.dialect) if options.accept_repeated else None
        if earlier is not None:
            attempt.outcome = "confirmed"
            attempt.feedback += f"\nThe same result as attempt {earlier.number}: accepted as confirmed."
        progress.record(attempt)
        if attempt.loop == "slow":
            progress.consecutive_failures = 0  # the orchestrator resumes; it may escalate again later
        _report(run, "round", attempt=attempt.number, loop=attempt.loop, action=attempt.action, sql=attempt.sql,
                outcome=attempt.outcome, feedback=attempt.feedback)
        if attempt.succeeded:
            break
        if options.compression:
            _compress(run)
    return _outcome(run)


def _fast_round(run: _Run) -> Attempt | None:
    ctx, progress = run.ctx, run.progress
    decision = _decide(run)
    number = len(progress.attempts) + 1
    if decision.action == "execute" and decision.sql and len(progress.probes) < run.options.max_probes:
        verdict = judge_sql(ctx, decision.sql, source="agentnlq:probe", role="orchestrator", sanity=False,
                            repair=run.options)
        progress.probes.append(Probe(decision.sql, verdict.feedback))
        _report(run, "probe", sql=decision.sql, outcome=verdict.outcome)
        return None
    if decision.action == "delegate" or not decision.sql:
        sql = _generator_sql(run, step="agentnlq:delegate")
        return _attempt(run, number, "fast", "delegate", sql, role="generator")
    return _attempt(run, number, "fast", "emit", decision.sql, role="orchestrator")


def _slow_round(run: _Run) -> Attempt:
    progress = run.progress
    progress.escalations += 1
    _report(run, "escalate", after=progress.consecutive_failures, escalation=progress.escalations,
            failed=[a.number for a in progress.failed()])
    sql = _generator_sql(run, step="agentnlq:escalate")
    return _attempt(run, len(progress.attempts) + 1, "slow", "escalate", sql, role="generator")


def _attempt(run: _Run, number: int, loop: str, action: str, sql: str, *, role: str) -> Attempt:
    expected = run.ledger.sheet.expected_rows if run.ledger is not None else "unknown"
    verdict: Verdict = judge_sql(run.ctx, sql, source=f"agentnlq:{loop}", role=role, expected_rows=expected,
                                 sanity=run.options.result_checks, repair=run.options,
                                 shape=run.options.shape_checks)
    return Attempt(number=number, loop=loop, action=action, sql=verdict.candidate.sql, outcome=verdict.outcome,
                   feedback=verdict.feedback, candidate=verdict.candidate, problems=len(verdict.findings))


def _decide(run: _Run) -> Decision:
    """The orchestrator's action; a reply that stays malformed falls back to its SQL (emit) or to delegating."""
    ctx = run.ctx
    history, pruned = _history(run)
    status = (f"Attempts so far: {len(run.progress.attempts)} of {run.options.max_attempts}."
              if run.progress.attempts else "No query has been tried yet.")
    messages: list[Message] = [
        {"role": "system", "content": render("agentnlq_system", dialect=dialect_name(ctx.db.dialect))},
        {"role": "user", "content": run.orchestrator_context},
        *history,
        {"role": "user", "content": render("agentnlq_orchestrator_turn", status=status, question=ctx.question)},
    ]
    reply = ask_structured(ctx, "agentnlq:orchestrate", messages, Decision, role="orchestrator",
                           max_tokens=MAX_DECISION_TOKENS, constrained=run.options.json_schema)
    if reply.value is not None:
        decision = reply.value
        decision.sql = extract_sql(decision.sql, ctx.db.dialect) or decision.sql.strip()
        return decision
    sql = next((found for text in reply.texts if (found := extract_sql(text, ctx.db.dialect))), "")
    fallback = Decision(action="emit", sql=sql) if sql else Decision(action="delegate")
    ctx.trace.note("agentnlq", stage="decision-fallback", problem=reply.problem, action=fallback.action)
    return fallback


def _generator_sql(run: _Run, *, step: str) -> str:
    history, _ = _history(run)
    fact_sheet = run.ledger.render() if run.ledger is not None else ""
    messages = generator_messages(run.ctx, run.schema, run.notes, fact_sheet, history)
    try:
        return write_sql(run.ctx, messages, step=step)
    except ModelNotInstalled:
        raise
    except ModelError as exc:
        log.warning("%s failed: %s", step, exc)
        return ""


def _history(run: _Run) -> tuple[list[Message], bool]:
    history, pruned = history_messages(run.ctx.question, run.progress, compression=run.options.compression,
                                       budget=run.options.history_budget)
    if pruned:
        run.ctx.trace.note("agentnlq", stage="prune", kept=[run.progress.attempts[0].number,
                                                            run.progress.attempts[-1].number])
    return history, pruned


def _compress(run: _Run) -> None:
    """After a failure: the history becomes one structured message (kept on the ledger and the trace)."""
    before = sum(estimate_tokens(a.sql) + estimate_tokens(a.feedback) for a in run.progress.attempts)
    messages, pruned = history_messages(run.ctx.question, run.progress, compression=True,
                                        budget=run.options.history_budget)
    run.progress.summary = messages[0]["content"] if messages else ""
    _report(run, "compress", attempts=len(run.progress.attempts), raw_tokens=before,
            tokens=estimate_tokens(run.progress.summary), pruned=pruned, text=run.progress.summary)


def _outcome(run: _Run) -> Outcome:
    progress = run.progress
    latest = progress.latest
    if latest is not None and latest.succeeded:
        escalated = any(a.loop == "slow" for a in progress.attempts)
        outcome = Outcome(latest, True, "escalated" if escalated else "fast", progress)
    else:
        outcome = Outcome(progress.best(), False, "unsolved", progress)
    _report(run, "outcome", path=outcome.path, attempts=len(progress.attempts), escalations=progress.escalations,
            chosen=outcome.chosen.number if outcome.chosen else None)
    run.ctx.trace.note("agentnlq", stage="progress_ledger", ledger=progress.to_dict())
    return outcome


def _orchestrator_context(ctx: Context, schema: SchemaContext, ledger: TaskLedger | None,
                          domain: DomainNotes) -> str:
    """The fast loop's compact context: the fact sheet and the tables it names (whole schema context without a
    usable ledger), the rules and dialect notes."""
    dialect = dialect_name(ctx.db.dialect)
    notes = notes_block(domain)
    if ledger is None or not ledger.tables:
        return render("agentnlq_orchestrator", context_label=f"Schema of the {dialect} database",
                      context=schema.text, notes_block=notes, dialect=dialect)
    subset = SchemaSubset()
    for table in ledger.tables:
        subset.add(table)
    context = f"Fact sheet:\n{ledger.render()}\n\nTables it needs:\n{render_subset(ctx, subset)}"
    return render("agentnlq_orchestrator", context_label="What the task needs", context=context,
                  notes_block=notes, dialect=dialect)


def _report(run: _Run, event: str, **data) -> None:
    run.ctx.trace.note("agentnlq", stage=event, **data)
    run.listener(event, data)


def log_step(event: str, data: dict) -> None:
    """The default step listener: one INFO line per event (`groundsql ask --verbose` shows them)."""
    if event == "schema_context":
        log.info("agentnlq schema context: %s (%s of %s tokens; the whole schema: %s) · tables: %s", data["mode"],
                 data["tokens"], data["budget"], data["full_tokens"], ", ".join(data["tables"]))
    elif event == "task_ledger":
        text = "\n".join(f"    {line}" for line in str(data["text"]).splitlines())
        log.info("agentnlq task ledger%s:\n%s", "" if data.get("written_by_model", True) else
                 " (the model's reply was unusable)", text)
    elif event == "round":
        sql = " ".join(str(data.get("sql") or "(no query)").split())[:140]
        log.info("agentnlq attempt %s · %s · %s → %s · %s", data["attempt"], data["loop"], data["action"],
                 data["outcome"], sql)
    elif event == "escalate":
        log.info("agentnlq escalating to the SQL generator after %s failed attempts", data["after"])
    elif event == "compress":
        log.info("agentnlq history compressed: %s attempts, ~%s tokens (raw ~%s)", data["attempts"],
                 data["tokens"], data["raw_tokens"])
    elif event == "probe":
        log.info("agentnlq probe → %s · %s", data["outcome"], " ".join(str(data["sql"]).split())[:140])
    elif event == "outcome":
        log.info("agentnlq done: %s after %s attempts (%s escalations)", data["path"], data["attempts"],
                 data["escalations"])
    else:
        log.info("agentnlq %s: %s", event, data)
