"""`groundsql knowledge`: show a database's knowledge folder, add examples and rules, learn from runs."""

from __future__ import annotations

from pathlib import Path

import click

from groundsql.cli.app import cli
from groundsql.cli.commands import db_option, json_option
from groundsql.cli.output import print_json
from groundsql.db import Database

folder_option = click.option(
    "--knowledge", "knowledge_dir", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
    help="The knowledge folder (default: <db file>.knowledge/ next to the database).")


@cli.group()
def knowledge() -> None:
    """A database's knowledge folder: business rules, glossary, verified examples, documents, descriptions.

    \b
    Examples:
      groundsql knowledge show --db shop.sqlite
      groundsql knowledge show --db shop.sqlite --question "How many active customers?"
      groundsql knowledge add-rule "An active customer has status 'A'" --db shop.sqlite --table customers
      groundsql knowledge add-example "How many active customers?" --sql "SELECT count(*) FROM customers
        WHERE status = 'A'" --db shop.sqlite
      groundsql knowledge learn 12 --sql "SELECT ..."     # run #12 of `groundsql runs`, corrected

    The files stay plain YAML, Markdown and CSV that you can edit and review; see docs/knowledge.md.
    """


@knowledge.command("show")
@db_option
@folder_option
@click.option("--question", default=None, metavar="TEXT",
              help="Also print what a prompt about this question would show (schema block and knowledge block).")
@json_option
def show(db_url, knowledge_dir, question, as_json):
    """What was loaded: counts, rules, terms, examples and document chunks (every example is checked to run)."""
    from groundsql.knowledge import load_for
    from groundsql.knowledge.store import default_folder

    db = Database(db_url)
    loaded = load_for(db, knowledge_dir)
    folder = loaded.folder if loaded is not None else str(default_folder(db))
    rendered = _rendered(db, question, loaded) if question else None
    if as_json:
        from groundsql.knowledge.listing import knowledge_summary

        payload = knowledge_summary(db, knowledge_dir)
        if rendered is not None:
            payload["prompt"] = {"schema": rendered.schema, "knowledge": rendered.knowledge}
        print_json(payload)
        return
    if loaded is None:
        click.echo(f"no knowledge folder for {db.display} (it would be {folder}); add one with "
                   "`groundsql knowledge add-rule` or `add-example`, or see docs/knowledge.md")
    else:
        click.echo(f"knowledge folder: {folder}")
        click.echo("  " + ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in loaded.counts().items()))
        for item in loaded.items():
            click.echo(f"  [{item.kind}] {item.source}: {' '.join(item.text.split())[:110]}")
    if rendered is not None:
        click.echo("\n--- schema block (the same for every question about this database) ---")
        click.echo(rendered.schema)
        click.echo("\n--- knowledge block for the question ---")
        click.echo(rendered.knowledge or "(nothing retrieved)")


@knowledge.command("add-example")
@click.argument("question")
@click.option("--sql", "sql", required=True, metavar="SQL", help="The query that answers QUESTION.")
@db_option
@folder_option
def add_example_command(question, sql, db_url, knowledge_dir):
    """Add a verified example: QUESTION with its --sql, checked to run read-only on --db first."""
    from groundsql.knowledge.store import add_example, default_folder

    db = Database(db_url)
    outcome = add_example(knowledge_dir or default_folder(db), question, sql, db)
    _report(outcome, "example")


@knowledge.command("add-rule")
@click.argument("text")
@db_option
@folder_option
@click.option("--table", "tables", multiple=True, metavar="TABLE", help="A table the rule is about (repeatable).")
def add_rule_command(text, db_url, knowledge_dir, tables):
    """Add a business rule in plain language (e.g. "Revenue is quantity * unit_price - discount")."""
    from groundsql.knowledge.store import add_rule, default_folder

    db = Database(db_url)
    _report(add_rule(knowledge_dir or default_folder(db), text, tables=list(tables)), "rule")


@knowledge.command("learn")
@click.argument("run_id", type=int)
@click.option("--sql", "sql", default=None, metavar="SQL", help="The correct query, when the run's was wrong.")
@click.option("--db", "db_url", default=None, metavar="URL",
              help="The database (default: the run's database file; needed for server databases).")
@folder_option
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
def learn_command(run_id, sql, db_url, knowledge_dir, yes):
    """Turn run RUN_ID (see `groundsql runs`) into a verified example once you confirm it is right."""
    from groundsql.errors import KnowledgeError
    from groundsql.knowledge.store import learn
    from groundsql.runs import RunStore

    store = RunStore()
    record = store.get(run_id)
    if record is None:
        raise KnowledgeError(f"no run #{run_id} in the run store (see `groundsql runs`)")
    if not yes:
        from groundsql.knowledge.store import learnable_sql

        click.echo(f"question: {record['question']}\nsql:      {sql or learnable_sql(record)}")
        if not click.confirm("Is this query a correct answer to the question?", default=False):
            click.echo("not learned; give the correct query with --sql")
            return
    db = Database(db_url) if db_url else None
    _report(learn(run_id, db=db, folder=knowledge_dir, sql=sql, store=store), "example")


def _report(outcome, kind: str) -> None:
    if outcome.added:
        click.echo(f"added the {kind} to {outcome.path}")
    else:
        click.echo(f"not added: {outcome.reason}")


def _rendered(db: Database, question: str, loaded):
    from groundsql.context import Context
    from groundsql.knowledge import render_context

    ctx = Context(question=question, db=db, models={}, knowledge=loaded)
    return render_context(ctx)
