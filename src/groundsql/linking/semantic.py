"""APEX-SQL §3.2.3 semantic linking: the hypothesised role of each candidate table (target, filter, bridge) and of
each of its columns (returned, filter, join key, computed, group/sort), which directs the profiling agents."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from groundsql.catalog.schema import Schema
from groundsql.context import Context
from groundsql.linking.common import ask_json, resolve_column, resolve_table, schema_text
from groundsql.prompts import evidence_block, render

log = logging.getLogger("groundsql")

ROLES = ("target", "filter", "bridge", "unused")
COLUMN_ROLES = ("return", "filter", "join", "compute", "group", "sort", "unused")
SEMANTIC_SCHEMA = {
    "type": "object",
    "properties": {
        "database": {"type": "string"},
        "tables": {"type": "array", "items": {"type": "object", "properties": {
            "table": {"type": "string"}, "role": {"type": "string"}, "reason": {"type": "string"},
            "columns": {"type": "array", "items": {"type": "object", "properties": {
                "column": {"type": "string"}, "role": {"type": "string"}}}}}}},
    },
    "required": ["tables"],
}
SEMANTIC_TOKENS = 600


@dataclass
class RoleMap:
    """Role and reason per table name; tables the model did not mention get role 'candidate'."""

    summary: str = ""
    roles: dict[str, tuple[str, str]] = field(default_factory=dict)
    columns: dict[str, dict[str, str]] = field(default_factory=dict)  # table → column → role

    def role(self, table: str) -> str:
        return self.roles.get(table, ("candidate", ""))[0]

    def reason(self, table: str) -> str:
        return self.roles.get(table, ("candidate", ""))[1]

    def column_roles(self, table: str) -> dict[str, str]:
        """Column → hypothesised role for `table` (empty when the model named none)."""
        return dict(self.columns.get(table, {}))


def semantic_roles(ctx: Context, plan: str, schema: Schema) -> RoleMap:
    """Ask the model which role each table of the pruned `schema` plays for the question."""
    messages = [{"role": "user", "content": render(
        "link_semantic", question=ctx.question, evidence_block=evidence_block(ctx.evidence), plan=plan or "(no plan)",
        schema=schema_text(ctx, schema))}]
    result = RoleMap()
    reply = ask_json(ctx, "link.semantic", messages, role="planner", max_tokens=SEMANTIC_TOKENS,
                     schema=SEMANTIC_SCHEMA)[0]
    if not isinstance(reply, dict):
        return result
    result.summary = str(reply.get("database") or "")
    for item in reply.get("tables") or []:
        if not isinstance(item, dict):
            continue
        table = resolve_table(schema, item.get("table"))
        if table is None:
            continue
        role = str(item.get("role") or "").strip().lower()
        role = next((r for r in ROLES if r in role), "candidate")
        result.roles[table.name] = (role, str(item.get("reason") or ""))
        for entry in item.get("columns") or []:
            column = resolve_column(table, entry.get("column")) if isinstance(entry, dict) else None
            if column is None:
                continue
            said = str(entry.get("role") or "").strip().lower()
            result.columns.setdefault(table.name, {})[column] = next((r for r in COLUMN_ROLES if r in said), said
                                                                     or "candidate")
    ctx.trace.note("link.roles", tables={t: r for t, (r, _) in result.roles.items()}, columns=result.columns)
    return result
