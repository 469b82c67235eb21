"""Execution-guided self-refinement (SSEV §3.1.3): show the model its SQL and what went wrong, retry."""

from __future__ import annotations

from groundsql.answer import Candidate
from groundsql.context import Context
from groundsql.generation.diagnosis import diagnose
from groundsql.generation.direct import MAX_SQL_TOKENS
from groundsql.generation.tree_repair import TreeRepairOptions, tree_repair
from groundsql.knowledge import draft_notes
from groundsql.prompts import dialect_name, evidence_block, render
from groundsql.sql.extract import extract_sql

#: Outcomes worth another round. An empty result is often right, so it is retried but kept if nothing better.
REPAIRABLE = {"refused", "syntax", "no_such_table", "no_such_column", "ambiguous_column", "type_mismatch", "empty_result",
              "timeout", "too_many_rows", "other"}


def execute_candidate(ctx: Context, sql: str, *, source: str, role: str = "generator") -> Candidate:
    if not sql:
        return Candidate(sql="", error="the model's reply held no SQL query", source=source,
                         model=ctx.model(role).spec, expert=role)
    result, error = ctx.try_query(sql, step=f"{source}:execute")
    return Candidate(sql=sql, result=result, error=error, source=source, model=ctx.model(role).spec, expert=role)


def refine(ctx: Context, candidate: Candidate, schema_text: str, *, rounds: int = 2,
           role: str = "generator", retry_temperature: float | None = None, hint: str = "") -> Candidate:
    """Up to `rounds` repair attempts while the candidate errors or returns nothing.

    Each attempt first tries the exact tree repairs (no model call, see `tree_repair`); only what they leave
    unfixed goes to the model, with their hints. Returns the first candidate that runs with rows; otherwise the
    best one seen (a run with no rows beats an error), so failing candidates still reach voting. `hint` is added
    to every model round's targeted hint (recap: the latest critique and the expected output format).
    """
    options = ctx.settings(TreeRepairOptions)
    best = candidate
    current = candidate
    for round_number in range(1, rounds + 2):
        fixed = tree_repair(ctx, current, options=options)
        if fixed.repaired:
            current = fixed.candidate
            current.rounds = max(round_number - 1, 0)
            if _better(current, best):
                best = current
            if current.ok and current.result.row_count > 0:
                return current
        if round_number > rounds:
            break
        verdict = diagnose(current.sql, current.result, current.error, ctx.schema)
        if verdict.kind == "ok" or verdict.kind not in REPAIRABLE:
            break
        ctx.trace.note("refine", round=round_number, kind=verdict.kind)
        revised = revise(ctx, current, schema_text, problem=verdict.problem, hint=verdict.hint + fixed.hint_text() + (f"\n{hint}" if hint else ""),
                         role=role, retry_temperature=retry_temperature)
        if revised is None:
            break
        current = revised
        current.rounds = round_number
        if _better(current, best):
            best = current
        if current.ok and current.result.row_count > 0:
            return current
    return best


def revise(ctx: Context, candidate: Candidate, schema_text: str, *, problem: str, hint: str,
           role: str = "generator", retry_temperature: float | None = None) -> Candidate | None:
    """One repair round with the given feedback; None when the model offers no new query.

    With `retry_temperature`, a greedy reply that repeats the failing query gets one sampled retry (small
    models often echo their query back unchanged).
    """
    dialect = dialect_name(ctx.db.dialect)
    notes = draft_notes(ctx, candidate.sql, shown=schema_text)  # the syntax the failing query's constructs need
    messages = [
        {"role": "system", "content": render("sql_system", dialect=dialect)},
        {"role": "user", "content": render(
            "refine_sql", dialect=dialect, schema=schema_text, evidence_block=evidence_block(ctx.evidence),
            question=ctx.question, sql=candidate.sql or "(no query)", problem=problem,
            hint=f"{hint}\n{notes}" if notes else hint,
        )},
    ]
    completion = ctx.chat("refine", messages, role=role, max_tokens=MAX_SQL_TOKENS, temperature=0.0)
    sql = extract_sql(completion.text, ctx.db.dialect)
    if (not sql or sql == candidate.sql) and retry_temperature:
        completion = ctx.chat("refine", messages, role=role, max_tokens=MAX_SQL_TOKENS,
                              temperature=retry_temperature, seed=candidate.rounds + 1)
        sql = extract_sql(completion.text, ctx.db.dialect)
    if not sql or sql == candidate.sql:
        return None
    revised = execute_candidate(ctx, sql, source=candidate.source, role=role)
    revised.strategy = candidate.strategy
    return revised


def _better(new: Candidate, old: Candidate) -> bool:
    def score(c: Candidate) -> int:
        if not c.ok:
            return 0
        return 2 if c.result.row_count > 0 else 1

    return score(new) > score(old)
