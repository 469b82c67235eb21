"""Execution-grounded feedback (AgentNLQ §3.3.7): parse with sqlglot, run through the guarded executor, then
judge the result with heuristics, never with the model's opinion of its own query.

Signals, in order: no query in the reply; a parse error; an engine error or a refused statement (the guard's
refusal is feedback like any other error), after the exact tree repairs had their try (`tree_repair`: no model
call; a fix that runs replaces the query, the rules' hints join the feedback); an empty or cut-off result; the result sanity checks
(`selection.checks`, including the result-only `null_columns` and `duplicates`) and, with `shape`, the
question-shape checks (`selection.shape`: a list for 'how many', an unasked LIMIT, an idle join, …); and the row
count against what the fact sheet expects (one number, a few rows, a list).
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlglot
from sqlglot.errors import SqlglotError

from groundsql.answer import Candidate
from groundsql.context import Context
from groundsql.db import Result
from groundsql.generation.diagnosis import diagnose
from groundsql.generation.refinement import execute_candidate
from groundsql.generation.tree_repair import TreeRepairOptions, tree_repair
from groundsql.prompts import dialect_name
from groundsql.selection.checks import CHECKS, RESULT_CHECKS, Finding, sanity_check
from groundsql.selection.shape import SHAPE_CHECKS

#: Above this many rows an answer expected to have "a few" rows looks off by an order of magnitude.
FEW_ROWS = 50
RESULT_PREVIEW_CHARS = 600


@dataclass(frozen=True)
class Verdict:
    outcome: str  # ok | no_sql | syntax | refused | no_such_table | … | empty_result | too_many_rows | suspicious
    feedback: str
    candidate: Candidate
    findings: tuple[Finding, ...] = ()


def judge_sql(ctx: Context, sql: str, *, source: str, role: str, expected_rows: str = "unknown",
              sanity: bool = True, repair: TreeRepairOptions | None = None, shape: bool = False) -> Verdict:
    """Validate, execute and check `sql`; the verdict says whether it answers cleanly and, if not, why.

    The verdict's candidate holds the query as finally run: the tree-repaired one when a repair helped
    (`repair`: the tree-repair settings; None: the run's)."""
    if not sql:
        candidate = Candidate(sql="", error="the reply held no SQL query", source=source,
                              model=ctx.model(role).spec, expert=role)
        return Verdict("no_sql", "The reply held no SQL query. Reply with one query.", candidate)
    problem = parse_problem(sql, ctx.db.dialect)
    if problem:
        candidate = Candidate(sql=sql, error=problem, source=source, model=ctx.model(role).spec, expert=role)
        return Verdict("syntax", f"It does not parse as {dialect_name(ctx.db.dialect)}: {problem}", candidate)
    candidate = execute_candidate(ctx, sql, source=source, role=role)
    repaired = tree_repair(ctx, candidate, options=repair)
    candidate = repaired.candidate
    fixed = "".join(f"\nRepaired without a model call: {f.detail}" for f in repaired.fixes)
    diagnosis = diagnose(candidate.sql, candidate.result, candidate.error, ctx.schema)
    if diagnosis.kind != "ok":
        return Verdict(diagnosis.kind, _join(diagnosis.problem, diagnosis.hint + repaired.hint_text()) + fixed,
                       candidate)
    checks = CHECKS + RESULT_CHECKS + (SHAPE_CHECKS if shape else ())
    findings = sanity_check(ctx, candidate, checks=checks) if sanity else []
    findings += expectation_findings(candidate.result, expected_rows)
    preview = result_preview(candidate.result)
    if findings:
        hints = "\n".join(f"- {f.hint}" for f in findings)
        return Verdict("suspicious", f"It ran: {preview}{fixed}\nBut the result looks wrong:\n{hints}",
                       candidate, tuple(findings))
    return Verdict("ok", f"It ran: {preview}{fixed}", candidate)


def parse_problem(sql: str, dialect: str) -> str | None:
    """The first line of sqlglot's parse error, or None when the statement parses."""
    try:
        sqlglot.parse_one(sql, read=dialect)
    except SqlglotError as exc:
        return str(exc).strip().splitlines()[0][:300] if str(exc).strip() else "the statement does not parse"
    return None


def expectation_findings(result: Result | None, expected_rows: str) -> list[Finding]:
    """The row count against the fact sheet's expectation: one row, a few rows, or a list."""
    if result is None or not result.rows or expected_rows == "unknown":
        return []
    rows = result.row_count
    if expected_rows == "one" and rows > 1:
        return [Finding("row_count", f"one row was expected but the result has {rows}",
                        f"The question asks for a single answer but the query returns {rows} rows; aggregate, "
                        f"filter or limit it to the one row asked for.")]
    if expected_rows == "many" and rows == 1:
        return [Finding("row_count", "a list was expected but the result has one row",
                        "The question asks for a list, but the query returns a single row; check for an "
                        "aggregate or a LIMIT that collapses the list.")]
    if expected_rows == "few" and rows > FEW_ROWS:
        return [Finding("row_count", f"a few rows were expected but the result has {rows}",
                        f"The question asks for a few rows, but the query returns {rows}; check for a missing "
                        f"filter or join condition.")]
    return []


def result_preview(result: Result | None) -> str:
    if result is None:
        return "no result"
    text = result.summary()
    return text if len(text) <= RESULT_PREVIEW_CHARS else text[:RESULT_PREVIEW_CHARS] + " …"


def _join(problem: str, hint: str) -> str:
    return f"{problem}\n{hint}".strip() if hint else problem
