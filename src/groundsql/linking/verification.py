"""APEX-SQL §3.2.3 table verification: one agent per candidate table probes it for its hypothesised role.

Each agent writes a few exploratory queries, runs them through the guarded `Database.execute` (via
`ctx.try_query`) and decides, from what the data showed, whether the table and which of its columns are needed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import sqlglot
from pydantic import Field
from sqlglot import exp
from sqlglot.errors import SqlglotError

from groundsql.budgets import BudgetOptions, budget_value
from groundsql.catalog.schema import Table
from groundsql.context import Context
from groundsql.errors import ModelError
from groundsql.linking.common import ask_json, resolve_column, table_text
from groundsql.prompts import dialect_name, evidence_block, render

log = logging.getLogger("groundsql")

EXPLORE_ROWS = 20
VERDICT_SCHEMA = {
    "type": "object",
    "properties": {
        "relevant": {"type": "boolean"},
        "columns": {"type": "array", "items": {"type": "object", "properties": {
            "column": {"type": "string"}, "reason": {"type": "string"}, "observation": {"type": "string"}}}},
        "summary": {"type": "string"},
    },
    "required": ["relevant"],
}


@dataclass
class Verdict:
    """What one table agent concluded; `columns` maps a needed column to (reason, observation)."""

    table: str
    role: str
    relevant: bool
    columns: dict[str, tuple[str, str]] = field(default_factory=dict)
    summary: str = ""
    observations: str = ""
    verified: bool = True  # False when the agent could not decide and the table was kept unverified


class VerifyOptions(BudgetOptions):
    verify_queries: int | None = Field(None, ge=0, description="exploratory queries per profiled table (0: no "
                                                               "profiling; none: the budget profile's, small 3, "
                                                               "paper 8)")


def verify_table(ctx: Context, table: Table, role: str, reason: str = "", *,
                 columns: dict[str, str] | None = None) -> Verdict:
    """Explore `table` (restricted to its candidate columns) and decide whether it is needed.

    `columns` are the hypothesised roles of its columns (semantic linking), shown to the agent with the table's
    role. With `verify_queries` 0 the caller does not profile at all (see the `apex` linker)."""
    dialect = ctx.db.dialect
    max_queries = max(1, int(budget_value(ctx.settings(VerifyOptions), "verify_queries")))
    ddl = table_text(ctx, table)
    role_text = f"{role}: {reason}" if reason else role
    if columns:
        role_text += "\nColumn roles: " + ", ".join(f"{name} ({what})" for name, what in columns.items())
    messages = [{"role": "user", "content": render(
        "link_explore", dialect=dialect_name(dialect), max_queries=max_queries, table=ddl,
        question=ctx.question, evidence_block=evidence_block(ctx.evidence), role=role_text)}]
    queries: list[str] = []
    try:
        reply = ctx.chat(f"link.explore:{table.name}", messages, role="generator", temperature=0.0,
                         max_tokens=250).text
        queries = exploration_queries(reply, dialect)[:max_queries]
    except ModelError as exc:
        log.warning("exploration of %s failed: %s", table.name, exc)
    if not queries:
        queries = [_default_probe(table, dialect)]
    observations = []
    for sql in queries:
        result, error = ctx.try_query(sql, step=f"link.explore:{table.name}", max_rows=EXPLORE_ROWS)
        outcome = result.summary(threshold=10, head=5) if result is not None else f"error: {error}"
        observations.append(f"{sql}\n{outcome}")
    observed = "\n\n".join(observations)
    decide = [{"role": "user", "content": render(
        "link_verify", table_name=table.name, table=ddl, observations=observed, question=ctx.question,
        evidence_block=evidence_block(ctx.evidence))}]
    value = ask_json(ctx, f"link.verify:{table.name}", decide, role="generator", max_tokens=300,
                     schema=VERDICT_SCHEMA)[0]
    if not isinstance(value, dict):
        return Verdict(table.name, role, relevant=True, summary="no verdict; kept unverified",
                       observations=observed, verified=False)
    columns: dict[str, tuple[str, str]] = {}
    for item in value.get("columns") or []:
        if isinstance(item, dict):
            name = resolve_column(table, item.get("column"))
            if name is not None:
                columns[name] = (str(item.get("reason") or ""), str(item.get("observation") or ""))
    relevant = value.get("relevant")
    relevant = relevant.strip().lower() in ("true", "yes") if isinstance(relevant, str) else bool(relevant)
    return Verdict(table.name, role, relevant=relevant, columns=columns,
                   summary=str(value.get("summary") or ""), observations=observed)


def exploration_queries(reply: str, dialect: str) -> list[str]:
    """The SELECT statements in a reply's first code block (or the whole reply), split and checked by sqlglot."""
    text = reply or ""
    if "```" in text:
        parts = text.split("```")
        text = parts[1] if len(parts) > 1 else text
        first, _, rest = text.partition("\n")
        if first.strip().lower() in ("sql", "sqlite", "duckdb", "postgresql", "mysql", ""):
            text = rest
    try:
        statements = sqlglot.parse(text, read=dialect)
    except SqlglotError:
        statements = []
        # Models often separate queries by blank lines or comment lines instead of semicolons: try each piece.
        for chunk in text.replace("\n\n", ";").replace("\n--", ";\n--").split(";"):
            try:
                statements.extend(sqlglot.parse(chunk, read=dialect))
            except SqlglotError:
                continue
    return [s.sql(dialect=dialect, comments=False) for s in statements if isinstance(s, exp.Query)]


def _default_probe(table: Table, dialect: str) -> str:
    """A row sample, used when the agent proposed no runnable query."""
    columns = [exp.column(c.name, quoted=True) for c in table.columns] or [exp.Star()]
    query = exp.select(*columns).from_(exp.table_(exp.to_identifier(table.name, quoted=True))).limit(5)
    return query.sql(dialect=dialect)
