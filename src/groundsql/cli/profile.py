"""`groundsql profile`: build (or reuse) the catalog of a database and show it."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from groundsql.catalog import build_catalog, render
from groundsql.catalog.prompt_text import STYLES
from groundsql.cli.app import cli
from groundsql.cli.commands import db_option, knowledge_option, timeout_option
from groundsql.cli.output import print_json
from groundsql.db import Database
from groundsql.models import DEFAULT_MODEL, SPEC_HELP, load_model


@cli.command()
@db_option
@click.option("--refresh", is_flag=True, help="Rebuild the catalog even when a cached one matches the schema.")
@click.option("--enrich", is_flag=True, help="Have the model write one-line descriptions of tables and columns "
              "(it reads the knowledge folder's rules, glossary and documents).")
@click.option("--model", "model_spec", default=DEFAULT_MODEL, show_default=True, metavar="SPEC",
              help=f"Model for --enrich: {SPEC_HELP}.")
@click.option("--descriptions", type=click.Path(exists=True, path_type=Path), default=None,
              help="User descriptions: a BIRD database_description folder or a YAML file.")
@knowledge_option
@click.option("--no-cache", is_flag=True, help="Neither read nor write the on-disk catalog cache.")
@click.option("--render", "render_style", type=click.Choice(STYLES), default=None,
              help="Print the catalog as prompt text in this style instead of the summary.")
@click.option("--budget", type=int, default=None, metavar="TOKENS", help="Token budget for --render.")
@timeout_option
@click.option("--json", "as_json", is_flag=True, help="Print the catalog as one JSON object.")
def profile(db_url, refresh, enrich, model_spec, descriptions, knowledge_dir, no_cache, render_style, budget, timeout_s,
            as_json):
    """Profile a database once: semantic column types, statistics, keys, join graph, value index.

    The catalog is cached on disk, keyed by a fingerprint of the schema; later runs and questions reuse it.

    \b
    Examples:
      groundsql profile --db world_1.sqlite
      groundsql profile --db world_1.sqlite --json
      groundsql profile --db shop.duckdb --render compact --budget 1500
    """
    db = Database(db_url, timeout_s=timeout_s)
    model = load_model(model_spec) if enrich else None
    console = Console(stderr=True)
    with Progress(TextColumn("profiling [bold]{task.fields[table]}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True, disable=as_json) as bar:
        task = bar.add_task("profile", total=None, table="…")

        def progress(table: str, done: int, total: int) -> None:
            bar.update(task, completed=done, total=total, table=table)

        from groundsql.knowledge import load_for
        from groundsql.knowledge.grounding import described_catalog

        loaded = load_for(db, knowledge_dir)
        documents = loaded.documents_text() if loaded is not None else None
        catalog = build_catalog(db, refresh=refresh, use_cache=not no_cache, descriptions=descriptions,
                                enrich=enrich, model=model, progress=progress, documents=documents or None)
    if loaded is not None and not loaded.empty:  # its descriptions, known values and relationships (not cached)
        catalog = described_catalog(catalog, loaded)
    if as_json:
        print_json(catalog.to_dict(include_values=False, include_schema=False))
        return
    if render_style:
        click.echo(render(catalog, budget_tokens=budget, style=render_style))
        return
    _print_summary(catalog)


def _print_summary(catalog) -> None:
    """One block per table: rows and keys, then its columns grouped by semantic type."""
    for profile in catalog.tables:
        marks = (" [bridge]" if profile.is_bridge else "") + (" [view]" if profile.is_view else "")
        pk = ",".join(profile.primary_key) + (" (inferred)" if profile.primary_key_inferred else "")
        click.echo(f"{profile.name}{marks}: {profile.row_count} rows" + (f", key {pk}" if pk else ""))
        for fk in profile.foreign_keys:
            click.echo(f"  {','.join(fk.columns)}→{fk.ref_table}.{','.join(fk.ref_columns)}"
                       + (" (inferred)" if fk.inferred else ""))
        kinds: dict[str, list[str]] = {}
        for column in profile.columns:
            kinds.setdefault(column.semantic_type, []).append(column.name)
        for kind, names in sorted(kinds.items()):
            click.echo(f"  {kind}: {', '.join(names)}")
    source = "cache" if catalog.from_cache else f"profiled in {catalog.build_seconds:.2f}s"
    click.echo(f"{len(catalog.tables)} table(s), {len(catalog.value_index)} indexed values, "
               f"{len(catalog.join_graph.relationships)} relationship(s); {source}; fingerprint {catalog.fingerprint}")
