"""JSON shapes the API and the MCP server return: answers, results, trace steps, schemas."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from groundsql.answer import Answer
from groundsql.charts import chart_for
from groundsql.db import Result
from groundsql.db.result import json_safe
from groundsql.server.gate import RunCancelled
from groundsql.sql.explain import explain_sql
from groundsql.trace import ModelCall, Note, QueryRun, Trace

NOTE_LIMIT = 2000  # characters of a note's data shown in a step


class WatchedTrace(Trace):
    """A trace that reports each event as it is added (`listener`), each model call or query as it starts
    (`on_start`, with `running_payload`) and a preset's provisional answer (`on_provisional`), and stops the run
    (at its next step) once cancelled."""

    def __init__(self, listener: Callable[[dict[str, Any]], None] | None = None,
                 on_start: Callable[[dict[str, Any]], None] | None = None,
                 on_provisional: Callable[[dict[str, Any]], None] | None = None):
        super().__init__()
        self.listener = listener
        self.on_start = on_start
        self.on_provisional = on_provisional  # a preset's first answer, before its checks have finished
        self.cancelled = threading.Event()

    def add(self, event: ModelCall | QueryRun | Note) -> None:
        if self.cancelled.is_set():
            raise RunCancelled("the run was cancelled")
        super().add(event)
        if self.listener is not None:
            self.listener(step_payload(event))

    def is_cancelled(self) -> bool:
        return self.cancelled.is_set()

    def begin(self, kind: str, step: str, **info: Any) -> None:
        if self.cancelled.is_set():  # a cancelled run starts no further model call or query
            raise RunCancelled("the run was cancelled")
        if self.on_start is not None:
            self.on_start(running_payload(kind, step, **info))


def running_payload(kind: str, step: str, **info: Any) -> dict[str, Any]:
    """What starts now: ``{"kind": "model", "step", "role", "model"}`` or ``{"kind": "query", "step", "sql"}``."""
    return {"kind": kind, "step": step, **{k: v for k, v in info.items() if k in {"role", "model", "sql"}}}


def step_payload(event: ModelCall | QueryRun | Note) -> dict[str, Any]:
    """One trace event without prompts and outputs: what a person scanning the steps needs."""
    if isinstance(event, ModelCall):
        return {"kind": "model", "step": event.step, "role": event.role, "model": event.model,
                "prompt_tokens": event.prompt_tokens, "completion_tokens": event.completion_tokens,
                "evaluated_tokens": event.evaluated_tokens, "seconds": round(event.latency_s, 3), "error": event.error}
    if isinstance(event, QueryRun):
        return {"kind": "query", "step": event.step, "sql": event.sql, "ok": event.ok,
                "seconds": round(event.elapsed_s, 3), "row_count": event.row_count, "error": event.error}
    text = json.dumps(event.data, default=json_safe)
    data = json.loads(text) if len(text) <= NOTE_LIMIT else {"summary": text[:NOTE_LIMIT] + "…"}
    return {"kind": "note", "step": event.step, "data": data}


def table_payload(result: Result | None) -> dict[str, Any]:
    if result is None:
        return {"columns": [], "rows": [], "row_count": 0, "truncated": False}
    return result.to_dict()


def explained(sql: str, result: Result | None, dialect: str, catalog: Any,
              types: dict[str, dict[str, str]] | None = None) -> dict[str, Any]:
    """The explanation of `sql` (lineage resolved with `types`, else the catalog's) and its result's chart."""
    if not sql:
        return {"explanation": None, "chart": None}
    explanation = explain_sql(sql, dialect, types or schema_types(catalog))
    return {"explanation": explanation.to_dict(),
            "chart": chart_for(result, explanation=explanation, catalog=catalog)}


def answer_payload(answer: Answer, *, database: str, dialect: str, catalog: Any = None, run_id: int | None = None,
                   turn: dict[str, Any] | None = None, types: dict[str, dict[str, str]] | None = None
                   ) -> dict[str, Any]:
    """An answer as the API returns it: SQL, table, confidence, warnings, explanation, chart, steps, run id."""
    data = answer.to_dict()
    data.pop("stages", None)
    warnings = [*getattr(answer, "warnings", []), *answer.notes]  # sanity-check findings, then caveats
    if answer.result is not None and answer.result.truncated:
        warnings.append("the result was cut at the row limit")
    data.update({
        "database": database, "run_id": run_id, "warnings": warnings,
        "clarification": answer.clarification,
        **explained(answer.sql, answer.result, dialect, catalog, types),
        "steps": [step_payload(e) for e in answer.trace.events],
    })
    if turn is not None:
        data["turn"] = turn
    return data


def schema_types(catalog: Any = None, schema: Any = None) -> dict[str, dict[str, str]] | None:
    """``{table: {column: type}}`` from a catalog or a schema, for lineage."""
    source = catalog.schema if catalog is not None else schema
    if source is None:
        return None
    return {t.name: {c.name: c.type or "TEXT" for c in t.columns} for t in source.tables}


def schema_payload(schema: Any, catalog: Any = None) -> dict[str, Any]:
    """Tables, columns, keys and (with a catalog) semantic types and row counts."""
    tables = []
    for table in schema.tables:
        profile = catalog.table(table.name) if catalog is not None else None
        columns = []
        for column in table.columns:
            info = {"name": column.name, "type": column.type, "nullable": column.nullable,
                    "primary_key": column.primary_key, "description": column.description or column.comment}
            column_profile = profile.column(column.name) if profile is not None else None
            if column_profile is not None:
                info["semantic_type"] = column_profile.semantic_type
                info["description"] = info["description"] or column_profile.description
            columns.append(info)
        foreign_keys = [asdict(fk) for fk in table.foreign_keys]
        if catalog is not None:
            known = {(tuple(fk["columns"]), fk["ref_table"]) for fk in foreign_keys}
            cat_table = catalog.schema.table(table.name)
            for fk in cat_table.foreign_keys if cat_table is not None else []:
                if (tuple(fk.columns), fk.ref_table) not in known:
                    foreign_keys.append(asdict(fk))
        tables.append({"name": table.name, "is_view": table.is_view, "primary_key": list(table.primary_key),
                       "foreign_keys": foreign_keys, "columns": columns,
                       "row_count": profile.row_count if profile is not None else table.row_count})
    return {"dialect": schema.dialect, "profiled": catalog is not None, "tables": tables}
