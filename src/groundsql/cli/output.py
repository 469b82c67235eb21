"""Printing answers and results for people (rich tables) and scripts (one JSON object)."""

from __future__ import annotations

import json
from typing import Any

import click
from rich.console import Console
from rich.syntax import Syntax
from rich.table import Table

from groundsql.db.result import json_safe

MAX_PRINTED_ROWS = 50


def print_json(data: dict[str, Any]) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, default=json_safe))


def print_sql(sql: str) -> None:
    Console().print(Syntax(sql or "-- no SQL", "sql", word_wrap=True))


def print_table(columns: list[str], rows: list[list[Any]], truncated: bool) -> None:
    console = Console()
    table = Table(show_header=True, header_style="bold")
    for name in columns:
        table.add_column(str(name))
    for row in rows[:MAX_PRINTED_ROWS]:
        table.add_row(*("NULL" if v is None else str(v) for v in row))
    console.print(table)
    shown = min(len(rows), MAX_PRINTED_ROWS)
    more = " (cut at the row limit)" if truncated else ""
    note = f"{len(rows)} row(s){more}" + (f"; showing the first {shown}" if shown < len(rows) else "")
    console.print(f"[dim]{note}[/dim]")


def print_analysis(answer: Any) -> None:
    """A view-and-Python answer (prospy): each view's SQL, the Python code, then the trace step by step."""
    console = Console()
    for view in answer.views:
        more = ", cut at the row limit" if view.get("truncated") else ""
        console.print(f"[bold]view {view['name']}[/bold] [dim]({view['row_count']} rows{more})[/dim]")
        console.print(Syntax(view["sql"], "sql", word_wrap=True))
    if answer.python_code:
        console.print("[bold]python[/bold]")
        console.print(Syntax(answer.python_code, "python", word_wrap=True))
    if not answer.views:
        print_sql(answer.sql)
    console.print("[bold]trace[/bold]")
    for line in trace_lines(answer.trace):
        console.print(f"[dim]{line}[/dim]", highlight=False)


def trace_lines(trace: Any) -> list[str]:
    """One line per model call, query and stage note of a run."""
    lines = []
    for event in trace.events:
        kind = getattr(event, "kind", "")
        if kind == "model":
            state = (f"error: {event.error}" if event.error else
                     f"{event.prompt_tokens}+{event.completion_tokens} tokens ({event.evaluated_tokens} read)")
            lines.append(f"model  {event.step:<22} {state}, {event.latency_s:.1f}s")
        elif kind == "query":
            state = f"{event.row_count} rows" if event.ok else f"error: {event.error}"
            lines.append(f"query  {event.step:<22} {state}, {event.elapsed_s:.2f}s")
        elif kind == "note" and event.step in _STAGE_NOTES:
            lines.append(f"stage  {event.step:<22} {_STAGE_NOTES[event.step](event.data)}")
    return lines


def _fetch_note(data: dict) -> str:
    problems = len(data.get("problems") or [])
    return (f"{data.get('rounds')} round(s), views: {', '.join(data.get('views') or []) or 'none'}"
            + (f"; {problems} problem(s)" if problems else ""))


_STAGE_NOTES: dict[str, Any] = {
    "link": lambda data: f"{data.get('linker')}: {', '.join(data.get('tables') or {})}",
    "prospy.fetch": _fetch_note,
    "prospy.python": lambda data: f"attempt {data.get('attempt')}: " + (
        "ok" if data.get("ok") else f"failed: {data.get('problem')}"),
}
