"""The task ledger (AgentNLQ §3.3.8): a compact fact sheet written once from the metadata and the question,
checked against the schema and the join graph, then frozen for the rest of the run.

The model proposes; deterministic checks dispose: unknown tables are dropped, every named column is checked
for existence, and the join path between each pair of required tables is taken from the catalog's join graph
(declared plus inferred keys), so the fast loop never sees a join the database cannot make.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from groundsql.context import Context
from groundsql.generation.agents.domain_notes import DomainNotes
from groundsql.generation.agents.schema_context import SchemaContext
from groundsql.generation.agents.structured import ask_structured
from groundsql.prompts import dialect_name, render

log = logging.getLogger("groundsql")

MAX_LEDGER_TOKENS = 400
RowsExpected = Literal["one", "few", "many", "unknown"]


class FactSheet(BaseModel):
    """The JSON the model writes. Flat lists of strings: small models keep to that shape."""

    model_config = ConfigDict(extra="ignore")

    sub_questions: list[str] = Field(default_factory=list, description="steps, each after those it needs")
    tables: list[str] = Field(default_factory=list, description="tables the query needs")
    columns: list[str] = Field(default_factory=list, description="table.column names the query uses")
    filters: list[str] = Field(default_factory=list, description="conditions on rows")
    group_by: list[str] = Field(default_factory=list, description="grouping columns")
    measures: list[str] = Field(default_factory=list, description="aggregates or computed values")
    rules: list[str] = Field(default_factory=list, description="business rules that apply")
    expected_rows: RowsExpected = Field("unknown", description="how many rows the answer should have")


@dataclass(frozen=True)
class ColumnCheck:
    name: str  # as the model wrote it
    exists: bool
    resolved: str = ""  # table.column as the schema spells it, when it exists


@dataclass(frozen=True)
class JoinPath:
    tables: tuple[str, str]
    on: tuple[str, ...]  # join conditions along the shortest path; empty when not connected
    connected: bool


@dataclass(frozen=True)
class TaskLedger:
    """The immutable fact sheet plus the results of checking it."""

    sheet: FactSheet
    tables: tuple[str, ...]  # required tables that exist (schema spelling), with the bridges joins need
    unknown_tables: tuple[str, ...]
    columns: tuple[ColumnCheck, ...]
    joins: tuple[JoinPath, ...]
    written_by_model: bool = True  # False when the model's reply was unusable and the sheet is empty
    notes: tuple[str, ...] = field(default_factory=tuple)

    def render(self) -> str:
        """The compact text the orchestrator and generator see."""
        sheet = self.sheet
        lines = []
        if sheet.sub_questions:
            lines.append("Steps: " + " | ".join(f"{i}. {s}" for i, s in enumerate(sheet.sub_questions, 1)))
        if self.tables:
            lines.append("Tables: " + ", ".join(self.tables))
        if self.joins:
            lines.append("Joins: " + "; ".join(" AND ".join(j.on) if j.connected else
                                               f"{j.tables[0]} and {j.tables[1]} are not connected by any key"
                                               for j in self.joins))
        good = [c.resolved for c in self.columns if c.exists]
        bad = [c.name for c in self.columns if not c.exists]
        if good:
            lines.append("Columns (checked): " + ", ".join(good))
        if bad:
            lines.append("Not in the schema (do not use): " + ", ".join(bad))
        for label, values in (("Filters", sheet.filters), ("Group by", sheet.group_by),
                              ("Measures", sheet.measures), ("Rules", sheet.rules)):
            if values:
                lines.append(f"{label}: " + "; ".join(values))
        if sheet.expected_rows != "unknown":
            lines.append(f"Expected rows: {sheet.expected_rows}")
        return "\n".join(lines) if lines else "(no fact sheet)"

    def to_dict(self) -> dict:
        """JSON values only (lists, not tuples), for the trace."""
        data = asdict(self)
        data["sheet"] = self.sheet.model_dump()
        return json.loads(json.dumps(data))


def build_task_ledger(ctx: Context, schema: SchemaContext, notes: DomainNotes, *, role: str = "orchestrator",
                      constrained: bool = True) -> TaskLedger:
    """Ask the model for the fact sheet once, check it, and freeze it."""
    dialect = dialect_name(ctx.db.dialect)
    messages = [
        {"role": "system", "content": render("agentnlq_system", dialect=dialect)},
        {"role": "user", "content": render("agentnlq_task_ledger", dialect=dialect, schema=schema.text,
                                           rules_block=_block("Business rules", notes.rules),
                                           question=ctx.question)},
    ]
    reply = ask_structured(ctx, "agentnlq:task_ledger", messages, FactSheet, role=role,
                           max_tokens=MAX_LEDGER_TOKENS, constrained=constrained)
    sheet = reply.value or FactSheet()
    ledger = check_fact_sheet(ctx, sheet, written_by_model=reply.value is not None)
    ctx.trace.note("agentnlq", stage="task_ledger", ledger=ledger.to_dict(), text=ledger.render(),
                   problem=reply.problem)
    return ledger


def check_fact_sheet(ctx: Context, sheet: FactSheet, *, written_by_model: bool = True) -> TaskLedger:
    """Resolve the sheet's tables and columns against the schema and its joins against the join graph."""
    from groundsql.linking.connectivity import join_graph

    schema = ctx.schema
    tables: list[str] = []
    unknown: list[str] = []
    for name in sheet.tables:
        table = schema.table(_bare(name))
        if table is None:
            unknown.append(name)
        elif table.name not in tables:
            tables.append(table.name)
    columns = [_check_column(ctx, name, tables) for name in sheet.columns]
    for check in columns:  # a checked column's table is required even when the sheet forgot to list it
        owner = check.resolved.split(".")[0] if check.exists and "." in check.resolved else ""
        if owner and owner not in tables:
            tables.append(owner)
    graph = join_graph(ctx)
    connected = graph.connect(tables) if len(tables) > 1 else tables
    joins = []
    for index in range(1, len(tables)):
        path = graph.shortest_join_path(tables[0], tables[index])
        on = tuple(rel.on_clause() for rel in path) if path else ()
        joins.append(JoinPath((tables[0], tables[index]), on, path is not None))
    return TaskLedger(sheet=sheet, tables=tuple(connected), unknown_tables=tuple(unknown), columns=tuple(columns),
                      joins=tuple(joins), written_by_model=written_by_model)


def _check_column(ctx: Context, name: str, tables: list[str]) -> ColumnCheck:
    """`table.column` or a bare `column` (looked up in the required tables, then everywhere)."""
    parts = [p.strip().strip('`"[]') for p in name.split(".")]
    if len(parts) >= 2:
        table = ctx.schema.table(parts[-2])
        column = table.column(parts[-1]) if table else None
        return ColumnCheck(name, column is not None, f"{table.name}.{column.name}" if table and column else "")
    bare = parts[-1] if parts else ""
    if bare == "*":
        return ColumnCheck(name, True, "*")
    ordered = [t for t in ctx.schema.tables if t.name in tables] + \
        [t for t in ctx.schema.tables if t.name not in tables]
    for table in ordered:
        column = table.column(bare)
        if column is not None:
            return ColumnCheck(name, True, f"{table.name}.{column.name}")
    return ColumnCheck(name, False)


def _bare(name: str) -> str:
    return name.strip().strip('`"[]').split(".")[-1].strip('`"[]')


def _block(label: str, text: str) -> str:
    return f"{label}:\n{text}\n" if text else ""
