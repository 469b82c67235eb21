"""The task ledger (AgentNLQ §3.3.8): a compact fact sheet written once from the metadata and the question,
checked against the schema and the join graph, then frozen for the rest of the run.

The model proposes; deterministic checks dispose: unknown tables are dropped, every named column is checked
for existence, and the join path between each pair of required tables is taken from the catalog's join graph
(declared plus inferred keys), so the fast loop never sees a join the database cannot make.

The answer's shape is not left to the model either (`shape_facts`, the `ledger_shape` option): what the
question's words ask for (`selection.question.read_question`: one number for 'how many', a list for 'which …',
a LIMIT only for a stated number or a superlative) heads the sheet, and the model's fields that contradict it
are corrected — a count measure on a list question is dropped, `expected_rows` follows the question. On the
1.5B model a sheet with `COUNT(*)` for 'which …' (and the reverse) led the generator to the wrong shape.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import asdict, dataclass, field, replace
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from groundsql.context import Context
from groundsql.generation.agents.domain_notes import DomainNotes
from groundsql.generation.agents.schema_context import SchemaContext
from groundsql.generation.agents.structured import ask_structured
from groundsql.prompts import dialect_name, render
from groundsql.selection.question import read_question

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
    shape: tuple[str, ...] = ()  # the answer's shape, read from the question's words (not from the model)
    corrections: tuple[str, ...] = ()  # what of the model's sheet was changed to agree with `shape`

    def render(self) -> str:
        """The compact text the orchestrator and generator see."""
        sheet = self.sheet
        lines = [f"Answer shape (from the question's words): {' '.join(self.shape)}"] if self.shape else []
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
                      constrained: bool = True, shape: bool = True) -> TaskLedger:
    """Ask the model for the fact sheet once, check it (with `shape`, against the question's words too), and
    freeze it."""
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
    if shape:
        ledger = with_shape_facts(ledger, ctx.question)
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


#: Openers that ask for rows (a list), as the shape check `list_asked` reads them.
_LIST = re.compile(r"^\s*(list|show|give|which|what are|who are|name the|find the names?|find all|return)\b",
                   re.IGNORECASE)
#: A list question that asks for a number beside each item ('with the number of …').
_NUMBER_TOO = re.compile(r"\b(number|count|how many|total|average|sum)\b", re.IGNORECASE)
_COUNTING = re.compile(r"\bcount\b", re.IGNORECASE)


def shape_facts(question: str) -> tuple[tuple[str, ...], str | None]:
    """The answer's shape in one or two sentences, and the `expected_rows` it implies (None: leave the model's),
    from the question's words only."""
    shape = read_question(question)
    facts: list[str] = []
    expected: str | None = None
    if shape.one_number:
        what = "a COUNT of the matching rows" if shape.counts else "one computed value"
        facts.append(f"One number: {what}, in one row (not the rows themselves).")
        expected = "one"
    elif shape.grouped and shape.counts:
        facts.append("One row per group, with its count.")
    elif _LIST.match(shape.text) and not shape.counts:
        facts.append("A list of rows (the items themselves, not a count of them).")
        expected = "unknown" if not shape.restricts_rows else None
    if shape.row_count is not None:
        facts.append(f"Only the top {shape.row_count} rows (LIMIT {shape.row_count}).")
    elif shape.superlative and not shape.one_number:
        facts.append("Only the row(s) with the most / least (a superlative).")
    elif not shape.one_number:
        facts.append("Every matching row: no LIMIT (the question names no number of rows and no superlative).")
    if shape.distinct:
        facts.append("Different values only (DISTINCT).")
    return tuple(facts), expected


def with_shape_facts(ledger: TaskLedger, question: str) -> TaskLedger:
    """`ledger` headed by the question's shape facts, its sheet corrected where it contradicts them."""
    facts, expected = shape_facts(question)
    if not facts:
        return ledger
    shape = read_question(question)
    sheet = ledger.sheet
    corrections: list[str] = []
    if expected is not None and sheet.expected_rows != expected and \
            not (expected == "unknown" and sheet.expected_rows in ("few", "many")):
        corrections.append(f"expected_rows {sheet.expected_rows} → {expected}")
        sheet = sheet.model_copy(update={"expected_rows": expected})
    asks_list = _LIST.match(shape.text) and not shape.counts and not shape.one_number and not shape.grouped
    if asks_list and not shape.superlative and not _NUMBER_TOO.search(shape.text):
        kept = [m for m in sheet.measures if not _COUNTING.search(m)]
        if len(kept) < len(sheet.measures):
            corrections.append("dropped count measure(s): " + "; ".join(m for m in sheet.measures if m not in kept))
            sheet = sheet.model_copy(update={"measures": kept})
    if shape.one_number and not shape.grouped and sheet.group_by:
        corrections.append("dropped group_by (one number is asked): " + "; ".join(sheet.group_by))
        sheet = sheet.model_copy(update={"group_by": []})
    return replace(ledger, sheet=sheet, shape=facts, corrections=tuple(corrections))


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
