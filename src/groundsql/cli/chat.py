"""`groundsql chat`: a conversation in the terminal; follow-ups build on the earlier questions."""

from __future__ import annotations

import click

from groundsql.cli.app import cli
from groundsql.cli.output import print_sql, print_table
from groundsql.models import DEFAULT_MODEL, SPEC_HELP
from groundsql.pipelines import DEFAULT_PRESET, DESCRIPTIONS

HELP_TEXT = "Type a question; follow-ups build on earlier answers. Commands: \\new (start over), \\id, \\q (quit)."


@cli.command()
@click.option("--db", "db_url", required=True, metavar="URL", help="Database URL or file path.")
@click.option("--model", "model_spec", default=DEFAULT_MODEL, show_default=True, metavar="SPEC",
              help=f"Model to use: {SPEC_HELP}.")
@click.option("--preset", default=DEFAULT_PRESET, show_default=True, type=click.Choice(sorted(DESCRIPTIONS)),
              help="Pipeline to run for each question.")
@click.option("--resume", "resume_id", default=None, metavar="ID",
              help="Continue a stored conversation (ids: `groundsql chat --list`).")
@click.option("--list", "list_only", is_flag=True,
              help="List recent conversations about --db (those with at least one turn) and exit.")
@click.option("--catalog/--no-catalog", "use_catalog", default=True, show_default=True,
              help="Show the model the database's catalog: the cached one, else profiled once (no model calls).")
def chat(db_url, model_spec, preset, resume_id, list_only, use_catalog):
    """Hold a conversation about --db: ask, then follow up ("and by region?", "only 2024").

    Each follow-up is rewritten into a standalone question (shown as "understood as"), answered with the
    earlier SQL as context, and stored in the run store, so `--resume ID` picks it up after a restart.

    \b
    Example:
      groundsql chat --db demo.sqlite --model local:qwen2.5-coder-0.5b
    """
    from groundsql.api import connect
    from groundsql.conversations import ConversationStore, ask_in_conversation
    from groundsql.db import parse_target
    from groundsql.models import load_model

    store = ConversationStore()
    if list_only:  # conversations are stored under the database's display name; no connection needed
        display = parse_target(db_url).display
        rows = store.recent(20, database=display, min_turns=1)
        for row in rows:
            click.echo(f"{row['id']}  {row['turns']} turn(s)  {row['database']}  {row['title'] or ''}")
        if not rows:
            click.echo(f"no conversations about {display} yet", err=True)
        return
    db = connect(db_url)
    model = load_model(model_spec)
    conversation = store.get(resume_id) if resume_id else store.create(db.display)
    if resume_id:
        click.echo(f"resuming {conversation.id} ({len(conversation.turns)} turn(s))", err=True)
        for turn in conversation.turns:
            click.echo(f"  {turn.position}. {turn.standalone}", err=True)
    click.echo(HELP_TEXT, err=True)
    _enable_line_editing()
    while True:
        try:
            question = input("you> ").strip()
        except (EOFError, KeyboardInterrupt):
            click.echo("", err=True)
            break
        if not question:
            continue
        if question in {"\\q", "quit", "exit"}:
            break
        if question == "\\id":
            click.echo(conversation.id)
            continue
        if question == "\\new":
            conversation = store.create(db.display)
            click.echo(f"new conversation {conversation.id}", err=True)
            continue
        answer, turn = ask_in_conversation(store, conversation.id, question, db, model=model, preset=preset,
                                           catalog=use_catalog)
        conversation = store.get(conversation.id)
        if turn.standalone != turn.question:
            click.echo(f"understood as: {turn.standalone}")
        if answer.clarification:
            click.echo(f"I need a clarification: {answer.clarification}")
        print_sql(answer.sql)
        if answer.result is not None:
            print_table(answer.result.columns, answer.to_dict()["rows"], answer.result.truncated)
        if answer.error:
            click.echo(f"the query failed: {answer.error}", err=True)
    click.echo(f"conversation {conversation.id} saved; continue with --resume {conversation.id}", err=True)


def _enable_line_editing() -> None:
    """Arrow keys and a history file when a terminal is attached."""
    import sys

    if not sys.stdin.isatty():
        return
    try:
        import atexit
        import readline

        from groundsql.runs import state_dir

        history = state_dir() / "chat_history"
        history.parent.mkdir(parents=True, exist_ok=True)
        if history.exists():
            readline.read_history_file(history)
        atexit.register(readline.write_history_file, history)
    except (ImportError, OSError):
        pass
