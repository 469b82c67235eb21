"""A progress bar for profiling, shared by the commands that may profile a database first."""

from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from groundsql.catalog import Catalog
from groundsql.db import Database


def catalog_with_progress(db: Database, *, quiet: bool = False) -> Catalog:
    """The database's catalog: reused when cached, else profiled now behind a progress bar on stderr."""
    from groundsql.knowledge import shared_catalog

    with Progress(TextColumn("profiling [bold]{task.fields[table]}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=Console(stderr=True), transient=True, disable=quiet) as bar:
        task = bar.add_task("profile", total=None, table="…")

        def progress(table: str, done: int, total: int) -> None:
            bar.update(task, completed=done, total=total, table=table)

        return shared_catalog(db, progress=progress)
