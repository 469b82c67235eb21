"""`agentnlq` (AgentNLQ §3.2–3.4): schema context by budget → task ledger → orchestrated fast/slow loops.

0. Metadata generation (`enrich=true`, off by default): one-line descriptions of undescribed tables and columns.
   By default (`draft=true`, not in the paper) a plain one-call query comes first; it is the answer when it
   settles (ran, rows, no exact check's finding), and the steps below run only for a flagged draft
   (`draft=false`: the paper's path on every question).
1. Schema context: the whole schema when its text fits `schema_budget` tokens, else the `vector` linker's
   top-k columns with their tables' keys (the check is noted on the trace).
2. Task ledger: a fact sheet written once and checked against the schema, the join graph and the question's
   shape (`task_ledger`).
3. Orchestration: the orchestrator model's fast loop, escalation to the generator model's slow loop after
   `escalate_after` failures, at most `max_attempts` queries, execution-grounded feedback, compressed history.
Roles: `orchestrator` and `generator` (`--model-for ROLE=SPEC`), each defaulting to `--model`. Every statement
runs through the guarded `Database.execute`; a refused one is feedback for the next round.
"""

from __future__ import annotations

from pydantic import Field

from groundsql.answer import Answer
from groundsql.context import Context
from groundsql.generation.agents.domain_notes import domain_notes
from groundsql.generation.agents.enrichment import enrich_descriptions
from groundsql.generation.agents.orchestrator import OrchestrationOptions, Outcome, log_step, orchestrate
from groundsql.generation.agents.schema_context import build_schema_context
from groundsql.generation.agents.task_ledger import TaskLedger, build_task_ledger
from groundsql.generation.draft import plain_draft
from groundsql.generation.tree_repair import repair_note
from groundsql.linking.options import DEFAULT_FULL_BUDGET, LinkerChoice
from groundsql.pipelines.registry import preset
from groundsql.selection.outcome import build_answer

#: Confidence of an answer by how it was reached; below 0.5 the answer carries a low-confidence note.
FAST_CONFIDENCE = 0.9
ESCALATED_CONFIDENCE = 0.75
CONFIRMED_CONFIDENCE = 0.6  # a reproduced empty or suspicious result
BEST_EFFORT_CONFIDENCE = {"rows": 0.3, "empty": 0.2, "failed": 0.0}


class AgentNlqOptions(OrchestrationOptions, LinkerChoice):
    """Settings of `agentnlq`; `task_ledger`, `escalation` and `compression` double as ablation switches."""

    schema_budget: int = Field(DEFAULT_FULL_BUDGET, ge=0, description="tokens the whole schema text may take; "
                                                                      "above it, retrieve the top-k columns")
    task_ledger: bool = Field(True, description="write and check the fact sheet first (false: ablation, the "
                                                "loops see the schema context instead)")
    ledger_shape: bool = Field(True, description="head the fact sheet with the answer's shape read from the "
                                                 "question's words (count or list, LIMIT or not) and correct the "
                                                 "model's fields that contradict it (false: ablation)")
    draft: bool = Field(True, description="write one plain query first (the one-call prompt over the whole "
                                          "schema); when it runs, returns rows and no exact check finds anything "
                                          "in it, it is the answer, and the fact sheet and loops run only for a "
                                          "flagged draft (false: the paper's path on every question)")
    enrich: bool = Field(False, description="AgentNLQ's metadata generation: the generator writes one-line "
                                            "descriptions of the tables and columns that have none before the "
                                            "schema context is built (one call per table, once per database "
                                            "and model in a process; off by default: it costs calls)")


@preset("agentnlq", "AgentNLQ: a plain draft kept when the exact checks pass it; otherwise schema by budget (else "
                    "vector retrieval), a checked fact sheet, an orchestrator's "
                    "fast loop with escalation to a SQL generator, execution feedback, compressed history",
        options=AgentNlqOptions, linker="vector")
def agentnlq(ctx: Context, options: AgentNlqOptions) -> Answer:
    listener = ctx.on_step or log_step
    draft = plain_draft(ctx, step="agentnlq:draft") if options.draft else None
    if draft is not None:
        listener("draft", {"sql": draft.candidate.sql, "kept": draft.kept})
        if draft.kept:
            answer = build_answer(ctx, draft.candidate, [draft.candidate], confidence=draft.confidence(ctx))
            answer.stages = {"draft": draft.candidate.sql, "final": answer.sql}
            return answer
    if options.enrich:
        listener("enrich", enrich_descriptions(ctx))
    schema = build_schema_context(ctx, budget=options.schema_budget, retriever=options.linker)
    listener("schema_context", schema.to_dict())
    notes = domain_notes(ctx)
    ledger: TaskLedger | None = None
    if options.task_ledger:
        ledger = build_task_ledger(ctx, schema, notes, constrained=options.json_schema, shape=options.ledger_shape)
        listener("task_ledger", {"text": ledger.render(), "unknown_tables": list(ledger.unknown_tables),
                                 "written_by_model": ledger.written_by_model, "corrections": list(ledger.corrections)})
    outcome = orchestrate(ctx, schema, ledger, notes, options, listener=listener)
    answer = _answer(ctx, outcome, schema.tables if schema.mode == "retrieved" else None)
    if draft is not None:
        answer.stages = {"draft": draft.candidate.sql} | answer.stages
    return answer


def _answer(ctx: Context, outcome: Outcome, retrieved_tables: list[str] | None) -> Answer:
    from groundsql.answer import Candidate

    chosen = outcome.chosen
    attempts = outcome.progress.attempts
    candidate = chosen.candidate if chosen is not None else Candidate(sql="", error="no query was written")
    answer = build_answer(ctx, candidate, [a.candidate for a in attempts], confidence=_confidence(outcome),
                          linked_schema={t: [] for t in retrieved_tables} if retrieved_tables else None)
    note = repair_note(candidate)
    if note:
        answer.notes.append(note)
    if chosen is not None and (not outcome.solved or outcome.confirmed):
        answer.warnings = [line for line in chosen.feedback.splitlines() if line.startswith("- ")]
    answer.stages = ({"first_attempt": attempts[0].sql} if attempts else {}) | {"final": answer.sql}
    return answer


def _confidence(outcome: Outcome) -> float:
    if outcome.solved and outcome.confirmed:
        return CONFIRMED_CONFIDENCE
    if outcome.solved:
        return FAST_CONFIDENCE if outcome.path == "fast" else ESCALATED_CONFIDENCE
    chosen = outcome.chosen
    if chosen is None or not chosen.candidate.ok:
        return BEST_EFFORT_CONFIDENCE["failed"]
    return BEST_EFFORT_CONFIDENCE["rows" if chosen.candidate.result.row_count else "empty"]
