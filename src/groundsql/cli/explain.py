"""`ask --explain` and `ask --chart`: the answer's SQL read back in words, and its chart written to a file."""

from __future__ import annotations

from pathlib import Path

import click

from groundsql.answer import Answer
from groundsql.db import Database
from groundsql.sql.explain import Explanation, explain_sql


def explain_answer(answer: Answer, db: Database) -> Explanation | None:
    """The explanation of the answer's SQL (lineage resolved against the live schema), or None without SQL."""
    if not answer.sql:
        return None
    from groundsql.catalog import introspect

    schema = introspect(db)
    types = {t.name: {c.name: c.type or "TEXT" for c in t.columns} for t in schema.tables}
    return explain_sql(answer.sql, db.dialect, types)


def write_chart(answer: Answer, explanation: Explanation | None, db: Database, path: Path) -> None:
    from groundsql.catalog import cached_catalog
    from groundsql.charts import chart_for, render_chart

    spec = chart_for(answer.result, explanation=explanation, catalog=cached_catalog(db))
    if spec is None:
        click.echo("no chart: this result reads best as a table", err=True)
        return
    render_chart(spec, path)
    click.echo(f"wrote the chart to {path}", err=True)


def print_explanation(explanation: Explanation) -> None:
    click.echo("What this SQL does:")
    for sentence in explanation.sentences():
        click.echo(f"  {sentence}")
    lineage = [f"{name} ← {', '.join(sources)}" for name, sources in explanation.lineage.items() if sources]
    if lineage:
        click.echo("Where each column comes from:")
        for line in lineage:
            click.echo(f"  {line}")
