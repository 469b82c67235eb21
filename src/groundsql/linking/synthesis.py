"""APEX-SQL §3.2.3 global synthesis: the final columns, with reasons and rejected candidates.

The model sees every candidate table with its verdict and observations and may ask for a bounded number of
extra verification rounds (queries it wants run) before deciding. A column the verification marked relevant
stays unless the model explicitly rejects it with a reason (the paper's rejection requirement).
"""

from __future__ import annotations

import json
import logging
from typing import Any

from pydantic import Field

from groundsql.catalog.schema import Schema
from groundsql.context import Context
from groundsql.linking.common import ask_json, resolve_column, resolve_table
from groundsql.linking.semantic import RoleMap
from groundsql.linking.subset import SchemaSubset
from groundsql.linking.verification import EXPLORE_ROWS, Verdict, exploration_queries
from groundsql.options import Options
from groundsql.prompts import evidence_block, render

log = logging.getLogger("groundsql")

DEFAULT_ROUNDS = 1
MAX_EXTRA_QUERIES = 3
OBSERVATION_CHARS = 400
SYNTHESIS_SCHEMA = {
    "type": "object",
    "properties": {
        "tables": {"type": "array", "items": {"type": "object", "properties": {
            "table": {"type": "string"},
            "columns": {"type": "array", "items": {"type": "object", "properties": {
                "column": {"type": "string"}, "reason": {"type": "string"}}}}}}},
        "rejected": {"type": "array", "items": {"type": "object", "properties": {
            "table": {"type": "string"}, "column": {"type": "string"}, "reason": {"type": "string"}}}},
        "queries": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["tables"],
}


class SynthesisOptions(Options):
    synthesis_rounds: int = Field(DEFAULT_ROUNDS, ge=0, description="query rounds the synthesis step may ask for "
                                                                    "before deciding")


def synthesize(ctx: Context, schema: Schema, roles: RoleMap, verdicts: list[Verdict]) -> SchemaSubset:
    """Decide the final subset of the pruned `schema` from the verdicts (up to `synthesis_rounds` query rounds)."""
    rounds = ctx.settings(SynthesisOptions).synthesis_rounds
    messages = [{"role": "user", "content": _prompt(ctx, schema, roles, verdicts, rounds)}]
    reply: Any = None
    for round_index in range(rounds + 1):
        reply = ask_json(ctx, "link.synthesize", messages, role="planner", max_tokens=400,
                         schema=SYNTHESIS_SCHEMA)[0]
        queries = [q for q in reply.get("queries") or [] if isinstance(q, str)] if isinstance(reply, dict) else []
        if not queries or round_index == rounds:
            break
        observed = _run_queries(ctx, queries[:MAX_EXTRA_QUERIES])
        messages += [{"role": "assistant", "content": json.dumps(reply)},
                     {"role": "user", "content": f"Query results:\n{observed}\n\nNow give the final JSON; "
                                                 "leave \"queries\" empty unless more checks are essential."}]
    return _decide(schema, roles, verdicts, reply)


def union_of_verdicts(schema: Schema, roles: RoleMap, verdicts: list[Verdict]) -> SchemaSubset:
    """Without global synthesis ('w/o Global Synthesis'): the columns every relevant verdict kept, no model call."""
    subset = _decide(schema, roles, verdicts, None)
    subset.notes.append("no global synthesis: the union of the profiling verdicts")
    return subset


def _prompt(ctx: Context, schema: Schema, roles: RoleMap, verdicts: list[Verdict], rounds: int) -> str:
    by_table = {v.table: v for v in verdicts}
    blocks = []
    for table in schema.tables:
        verdict = by_table.get(table.name)
        mark = "MARKED RELEVANT" if verdict is None or verdict.relevant else "MARKED IRRELEVANT"
        lines = [f"Table {table.name} [{mark}] role: {roles.role(table.name)}"]
        column_roles = roles.column_roles(table.name)
        for column in table.columns:
            why = verdict.columns.get(column.name) if verdict else None
            said = f" [{column_roles[column.name]}]" if column.name in column_roles else ""
            lines.append(f"  {column.name} ({column.type or 'TEXT'}){said}"
                         + (f": {why[0]}; {why[1]}".rstrip("; ") if why else ""))
        if verdict and verdict.summary:
            lines.append(f"  Summary: {verdict.summary}")
        if verdict and verdict.observations:
            lines.append("  Observations: " + verdict.observations[:OBSERVATION_CHARS].replace("\n", "\n    "))
        blocks.append("\n".join(lines))
    return render("link_synthesize", question=ctx.question, evidence_block=evidence_block(ctx.evidence),
                  summary=roles.summary or "(not described)", candidates="\n\n".join(blocks), rounds_left=rounds)


def _run_queries(ctx: Context, queries: list[str]) -> str:
    lines = []
    for text in queries:
        for sql in exploration_queries(text, ctx.db.dialect)[:1]:
            result, error = ctx.try_query(sql, step="link.synthesize", max_rows=EXPLORE_ROWS)
            lines.append(f"{sql}\n" + (result.summary(threshold=10, head=5) if result is not None else f"error: {error}"))
    return "\n\n".join(lines) or "(no runnable query)"


def _decide(schema: Schema, roles: RoleMap, verdicts: list[Verdict], reply: Any) -> SchemaSubset:
    subset = SchemaSubset()
    rejected: set[tuple[str, str]] = set()
    if isinstance(reply, dict):
        for item in reply.get("rejected") or []:
            table = resolve_table(schema, item.get("table")) if isinstance(item, dict) else None
            column = resolve_column(table, item.get("column")) if table is not None else None
            if column is not None:
                rejected.add((table.name, column))
                subset.notes.append(f"rejected {table.name}.{column}: {item.get('reason') or ''}".strip())
        for item in reply.get("tables") or []:
            table = resolve_table(schema, item.get("table")) if isinstance(item, dict) else None
            if table is None:
                continue
            subset.add(table.name, role=roles.role(table.name), reason=roles.reason(table.name))
            for col in item.get("columns") or []:
                name = resolve_column(table, col.get("column") if isinstance(col, dict) else col)
                if name is not None:
                    why = str(col.get("reason") or "") if isinstance(col, dict) else ""
                    subset.add(table.name, name, reason=why or "chosen in global synthesis")
    for verdict in verdicts:  # a column marked relevant stays unless explicitly rejected
        if not verdict.relevant:
            continue
        table = schema.table(verdict.table)
        fallback = "kept unverified" if not verdict.verified else "table marked relevant"
        columns = verdict.columns or {c.name: (fallback, "") for c in table.columns}
        kept = [(name, why) for name, why in columns.items() if (verdict.table, name) not in rejected]
        if kept:
            subset.add(verdict.table, role=verdict.role, reason=verdict.summary)
        for name, (reason, observation) in kept:
            subset.add(verdict.table, name, reason=reason or "marked relevant in verification",
                       evidence=[observation] if observation else [])
    if not subset.tables:
        subset = SchemaSubset.from_schema(schema, reason="synthesis chose nothing; pruned schema kept")
        subset.notes.append("global synthesis chose nothing; kept the pruned schema")
    return subset
