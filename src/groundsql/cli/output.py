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
