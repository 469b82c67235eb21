"""`groundsql eval`: run benchmarks, score predictions, compare runs, build the large-schema dataset."""

from __future__ import annotations

import json
from pathlib import Path

import click

from groundsql.cli.app import cli
from groundsql.cli.options import (
    experts_option,
    model_for_option,
    parse_model_roles,
    parse_preset_options,
    preset_options,
)
from groundsql.models import DEFAULT_MODEL, SPEC_HELP


class EvalGroup(click.Group):
    """`groundsql eval DATASET …` is short for `groundsql eval run DATASET …`."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = ["run", *args]
        return super().parse_args(ctx, args)


@cli.group("eval", cls=EvalGroup)
def eval_group() -> None:
    """Measure accuracy, schema linking, cost and latency on Spider- and BIRD-format benchmarks, or on a suite of
    your own verified questions.

    \b
    Examples:
      groundsql eval suite build --db shop.sqlite
      groundsql eval run ~/.local/share/groundsql/suites/shop.json --preset auto
      groundsql eval ../shared/data/spider --preset baseline --model local:qwen2.5-coder-0.5b \\
          --sample 20 --seed 1 --out runs/baseline-05b
      groundsql eval ../shared/data/spider --predictions preds.jsonl --out runs/preds
      groundsql eval compare runs/a runs/b
      groundsql eval make-large-schema --out runs/large
      groundsql eval load ../shared/data/spider --into 'postgresql://postgres@127.0.0.1/spider_{db_id}'
      groundsql eval ../shared/data/spider --engine 'postgresql://postgres@127.0.0.1/spider_{db_id}' --limit 20
    """


@eval_group.command("run")
@click.argument("dataset", type=click.Path(exists=True, path_type=Path))
@click.option("--preset", default="baseline", show_default=True, help="Pipeline to run per question.")
@click.option("--model", "model_spec", default=DEFAULT_MODEL, show_default=True, metavar="SPEC",
              help=f"Model: {SPEC_HELP}.")
@click.option("--samples", type=int, default=1, show_default=True,
              help="Candidates per question where the preset samples (reports EX@K and Pass@K).")
@click.option("--workers", type=int, default=1, show_default=True, help="Questions run concurrently (API models).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Run directory (results.jsonl, summary.json, report.md, plots); an existing one is resumed.")
@click.option("--predictions", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help='Score SQL from a JSON Lines file of {"id": …, "sql": …} instead of running a model.')
@click.option("--stage", type=click.Choice(["full", "link"]), default="full", show_default=True,
              help="full: answer and score; link: run only schema linking and score it.")
@click.option("--linker", default=None, metavar="SPEC", help="Linker (or comma chain) for --stage link / presets.")
@click.option("--db", "db_ids", multiple=True, metavar="DB_ID", help="Only questions on this database (repeatable).")
@click.option("--ids", default=None, metavar="ID,ID", help="Only these question ids (comma-separated), among those --db and --sample select.")
@click.option("--limit", type=int, default=None, help="At most this many questions (after the other filters).")
@click.option("--sample", type=int, default=None, metavar="N", help="A random sample of N questions.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for --sample.")
@click.option("--keep-distinct", is_flag=True, help="Spider rules: keep DISTINCT (the official default removes it).")
@click.option("--engine", default=None, metavar="URL-TEMPLATE",
              help="Ask the copies `eval load` made in another engine, e.g. "
                   "'postgresql://postgres@127.0.0.1/spider_{db_id}'; gold SQL is transpiled and must give the "
                   "SQLite gold result, else the question is reported as excluded.")
@click.option("--knowledge", "knowledge_dir", type=click.Path(exists=True, file_okay=False, path_type=Path),
              default=None, metavar="DIR",
              help="Knowledge folder for every database, or a folder holding one per database named by db_id "
                   "(BIRD's database_description folders are read without it).")
@click.option("--database", "database_url", default=None, metavar="URL",
              help="For a suite: the live database to score on (default: the one it was built on; give it when "
                   "the URL needs a password, which a suite never stores).")
@click.option("--previous", "previous_dir", type=click.Path(exists=True, file_okay=False, path_type=Path),
              default=None, metavar="RUN_DIR",
              help="Compare with this run question by question (default for a suite: its previous run).")
@experts_option
@model_for_option
@preset_options
@click.option("--model-timeout", "model_timeout_s", type=float, default=None, metavar="SECONDS",
              help="Total time one model call may take, retries included (default: GROUNDSQL_MODEL_TIMEOUT, "
                   "else 120 s for API models, 600 s of generation for the embedded model).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object.")
def run_command(dataset, preset, model_spec, samples, workers, out, predictions, stage, linker, db_ids, ids, limit,
                sample, seed, keep_distinct, engine, knowledge_dir, database_url, previous_dir, experts, model_for,
                preset_options, model_timeout_s, as_json):
    """Run PRESET on every selected question of DATASET (or score --predictions) and report.

    DATASET is a Spider- or BIRD-format directory or question file, or a suite file (`eval suite build`); a
    suite's run goes to the next numbered folder beside it unless --out is given, and is compared with the one
    before."""
    from groundsql.evaluation import evaluate
    from groundsql.evaluation.suite import is_suite_file

    if out is None and is_suite_file(dataset):
        from groundsql.evaluation.regression import next_run_dir

        out = next_run_dir(dataset, "predictions", "") if predictions else next_run_dir(dataset, preset, model_spec)
    filters = {"db": list(db_ids) or None, "ids": [i for i in (ids or "").split(",") if i.strip()] or None,
               "limit": limit, "sample": sample, "seed": seed, "stage": stage, "linker": linker,
               "keep_distinct": keep_distinct, "engine": engine, "model_timeout_s": model_timeout_s,
               "knowledge": str(knowledge_dir) if knowledge_dir else None,
               "database": database_url, "previous": str(previous_dir) if previous_dir else None,
               "models": parse_model_roles(model_for) or None,
               "options": parse_preset_options(preset_options, experts=experts)}
    with _ProgressBar(enabled=not as_json, resumed=out) as bar:
        summary = evaluate(dataset, preset=preset, model=None if predictions else model_spec, samples=samples,
                           workers=workers, out=out, predictions=predictions, progress=bar.update, **filters)
    if as_json:
        click.echo(json.dumps(summary))
    else:
        _print_summary(summary)
        if out is not None:
            click.echo(f"results: {out / 'results.jsonl'}  summary: {out / 'summary.json'}  "
                       f"report: {out / 'report.md'}")
    if summary["n"] and summary.get("pipeline_errors", 0) >= summary["n"]:
        click.echo("every question ended in a pipeline error: nothing was evaluated (is the model answering?)",
                   err=True)
        raise SystemExit(1)


@eval_group.command("load")
@click.argument("dataset", type=click.Path(exists=True, path_type=Path))
@click.option("--into", "into", required=True, metavar="URL-TEMPLATE",
              help="Where copies go, {db_id} replaced per database: postgresql://postgres@127.0.0.1/spider_{db_id}, "
                   "mysql://root@127.0.0.1/spider_{db_id}, duckdb:///copies/{db_id}.duckdb, "
                   "spark+local:///copies/{db_id} (Parquet folders).")
@click.option("--db", "db_ids", multiple=True, metavar="DB_ID", help="Only this database (repeatable).")
@click.option("--replace", is_flag=True, help="Drop an existing copy and load it again.")
@click.option("--report", "report_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the report (what changed per database) to this Markdown file.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as one JSON object.")
def load_command(dataset, into, db_ids, replace, report_path, as_json):
    """Copy DATASET's SQLite databases into another engine: types mapped, keys kept where the engine and the data
    allow, names in their own case; prints what changed."""
    from groundsql.evaluation.load import load_into

    def progress(db_id: str, done: int, total: int) -> None:
        if not as_json:
            click.echo(f"[{done}/{total}] {db_id}", err=True)

    report = load_into(dataset, into, db_ids=list(db_ids) or None, replace=replace, progress=progress)
    if report_path is not None:
        report_path.write_text(report.markdown(), encoding="utf-8")
    if as_json:
        click.echo(json.dumps(report.to_dict()))
    else:
        click.echo(report.markdown())
    failed = [d.db_id for d in report.databases if d.error]
    if failed:
        raise click.ClickException(f"{len(failed)} database(s) failed to load: {', '.join(failed)}")


@eval_group.command("report")
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
def report_command(run_dir):
    """Rewrite summary.json, report.md and the plots of RUN_DIR (also works on a partial run)."""
    from groundsql.evaluation.report import write_report

    click.echo(f"wrote {write_report(run_dir)}")


@eval_group.command("compare")
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the comparison to this Markdown file.")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as one JSON object.")
def compare_command(run_dirs, out, as_json):
    """Put runs side by side, with the questions each run alone got right."""
    from groundsql.evaluation.compare import compare_runs, comparison_markdown

    comparison = compare_runs(list(run_dirs))
    if as_json:
        click.echo(json.dumps(comparison))
        return
    text = comparison_markdown(comparison)
    click.echo(text)
    if out is not None:
        out.write_text(text, encoding="utf-8")


@eval_group.command("make-large-schema")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Directory to write (dev.json, tables.json, database/<name>/<name>.sqlite).")
@click.option("--spider", type=click.Path(exists=True, file_okay=False, path_type=Path),
              default=Path("../shared/data/spider"), show_default=True, help="Spider dev dataset.")
@click.option("--train", type=click.Path(exists=True, file_okay=False, path_type=Path),
              default=Path("../shared/data/spider_train"), show_default=True, help="Further Spider databases.")
@click.option("--name", default="spider_large", show_default=True, help="The combined database's id.")
def make_large_schema_command(out, spider, train, name):
    """Build one database holding the tables of many Spider databases, with rewritten gold SQL."""
    from groundsql.evaluation.large_schema import make_large_schema

    report = make_large_schema(out, spider=spider, train=train, name=name)
    click.echo(f"wrote {report.path}: {report.databases} databases, {report.tables} tables, {report.columns} "
               f"columns, {report.questions} questions ({len(report.dropped)} dropped)")
    for item in report.dropped:
        click.echo(f"  dropped question {item['id']} ({item['db_id']}): {item['reason']}", err=True)


@eval_group.group("suite")
def suite_group() -> None:
    """An evaluation suite from your own verified questions: build it, then score it with `eval run`.

    \b
    Examples:
      groundsql eval suite build --db shop.sqlite
      groundsql eval run ~/.local/share/groundsql/suites/shop.json --preset baseline
      groundsql eval run ~/.local/share/groundsql/suites/shop.json --preset auto   # compared with the run before
      groundsql eval suite show ~/.local/share/groundsql/suites/shop.json
    """


@suite_group.command("build")
@click.option("--db", "db_url", required=True, metavar="URL", help="The database the suite is about.")
@click.option("--knowledge", "knowledge_dir", type=click.Path(exists=True, file_okay=False, path_type=Path),
              default=None, metavar="DIR",
              help="The knowledge folder whose verified examples count (default: <db file>.knowledge/).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="The suite file (default: GROUNDSQL_STATE_DIR/suites/<database name>.json).")
@click.option("--examples/--no-examples", "with_examples", default=True, show_default=True,
              help="Take the knowledge folder's verified examples.")
@click.option("--runs/--no-runs", "with_runs", default=True, show_default=True,
              help="Take the runs you marked (`groundsql runs mark`): right ones with their SQL, wrong ones with "
                   "the corrected SQL.")
@click.option("--json", "as_json", is_flag=True, help="Print what was built as one JSON object.")
def suite_build_command(db_url, knowledge_dir, out, with_examples, with_runs, as_json):
    """Collect verified examples and marked runs of --db into a suite: each question with its gold SQL and the
    gold result frozen now, with the database's fingerprint (a changed database is reported, not scored)."""
    from groundsql.db import Database
    from groundsql.evaluation.suite import build_suite

    with Database(db_url) as db:
        report = build_suite(db, folder=knowledge_dir, out=out, examples=with_examples, runs=with_runs)
    if as_json:
        click.echo(json.dumps(report.to_dict()))
        return
    click.echo(f"wrote {report.path}: {report.questions} question(s) ({report.from_examples} from verified "
               f"examples, {report.from_runs} from marked runs)")
    for item in report.skipped:
        click.echo(f"  left out {item['source']}: {item['reason']}", err=True)
    click.echo(f"score it with: groundsql eval run {report.path} --preset PRESET --model SPEC")


@suite_group.command("show")
@click.argument("suite", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the overview as one JSON object.")
def suite_show_command(suite, as_json):
    """The suite's runs, the latest run's answers question by question, and its comparison with the run before."""
    from groundsql.evaluation.regression import regression_markdown, suite_overview

    overview = suite_overview(suite)
    if as_json:
        click.echo(json.dumps(overview, default=str))
        return
    click.echo(f"suite {overview['name']} on {overview['database']}: {overview['questions']} question(s), built "
               f"{overview['built_at']}")
    for run in overview["runs"]:
        changed = " (database changed)" if run["database_changed"] else ""
        click.echo(f"  {run['name']}: EX {run['ex']}% ({run['correct']}/{run['n']}), {run['excluded']} excluded"
                   f"{changed}")
    latest = overview["latest"]
    if latest is None:
        click.echo(f"no run yet: groundsql eval run {suite} --preset PRESET")
        return
    click.echo(f"latest run {latest['name']}:")
    for answer in latest["answers"]:
        mark = "excluded" if answer["excluded"] else "right" if answer["correct"] else "wrong"
        click.echo(f"  {mark:<8} {answer['id']}  {answer['question']}")
    if overview["regression"]:
        click.echo("\n".join(regression_markdown(overview["regression"])))


def _print_summary(summary: dict) -> None:
    run = summary.get("run", {})
    name = f"link:{run.get('linker') or 'full'}" if run.get("stage") == "link" else run.get("preset") or run.get("stage", "")
    click.echo(f"{name} · {run.get('model') or ''}".strip(" ·"))
    if run.get("options"):
        click.echo("options: " + " ".join(f"{k}={v}" for k, v in sorted(run["options"].items())))
    from groundsql.evaluation.report import suite_lines

    for line in suite_lines(summary):
        if line:
            click.echo(line.replace("**", ""))
    if summary["ex"] is not None:
        click.echo(f"EX {summary['ex']:.1f}% ({summary['correct']}/{summary['n']})")
        for level, row in summary["by_difficulty"].items():
            click.echo(f"  {level:<12} {row['ex']:5.1f}%  ({row['correct']}/{row['n']})")
    else:
        click.echo(f"{summary['n']} questions linked (no SQL scored)")
    if summary.get("excluded") and not summary.get("suite"):  # a suite's exclusions are in suite_lines
        excluded = summary["excluded"]
        reasons = ", ".join(f"{k} {v}" for k, v in excluded["by_reason"].items())
        click.echo(f"excluded {excluded['n']} question(s) whose gold SQL the engine copy cannot answer ({reasons})")
    if "ex_at_k" in summary:
        click.echo(f"EX@{summary['k']} {summary['ex_at_k']:.1f}%  Pass@{summary['k']} {summary['pass_at_k']:.1f}%")
    if summary.get("pipeline_errors"):
        click.echo(f"pipeline errors: {summary['pipeline_errors']} of {summary['n']} question(s) "
                   f"(the preset failed, no SQL to score): {summary.get('pipeline_error', '')}".rstrip(": "))
    if summary.get("failures"):
        click.echo("wrong answers: " + ", ".join(f"{k} {v}" for k, v in summary["failures"].items()))
    for level, row in (summary.get("linking") or {}).items():
        if isinstance(row, dict):
            click.echo(f"linking ({level}): SRR {row['srr']:.1f} NSR {row['nsr']:.1f} NSP {row['nsp']:.1f} "
                       f"NSF {row['nsf']:.1f}")
    per_q, lat = summary["usage"]["per_question"], summary["latency_s"]
    click.echo(f"per question: {per_q['prompt_tokens']:.0f}+{per_q['completion_tokens']:.0f} tokens, "
               f"{per_q['llm_calls']:.1f} model calls, {per_q['db_queries']:.1f} queries; "
               f"latency p50 {lat['p50']:.2f}s p90 {lat['p90']:.2f}s p95 {lat['p95']:.2f}s")
    if summary.get("regression"):
        from groundsql.evaluation.regression import regression_markdown

        click.echo("\n".join(regression_markdown(summary["regression"])).replace("**", ""))


class _ProgressBar:
    """A rich progress bar showing running accuracy, tokens and ETA (silent when disabled)."""

    def __init__(self, enabled: bool = True, resumed: Path | None = None) -> None:
        self.enabled = enabled
        self.correct = self.seen = self.tokens = 0
        self._progress = None
        self._task = None
        if resumed is not None:  # count the questions a resumed run already finished
            from groundsql.evaluation.results import RESULTS_FILE, read_results

            for record in read_results(resumed / RESULTS_FILE):
                self._count(record)

    def _count(self, record: dict) -> None:
        self.seen += 1
        self.correct += 1 if record.get("correct") else 0
        usage = record.get("usage") or {}
        self.tokens += int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))

    def __enter__(self) -> _ProgressBar:
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self._progress = Progress(TextColumn("eval"), BarColumn(), MofNCompleteColumn(),
                                      TextColumn("EX {task.fields[ex]}"), TextColumn("{task.fields[tokens]} tok"),
                                      TextColumn("ETA"), TimeRemainingColumn(), console=Console(stderr=True))
            self._progress.start()
        return self

    def update(self, record: dict, finished: int, total: int) -> None:
        self._count(record)
        if self._progress is None:
            return
        if self._task is None:
            self._task = self._progress.add_task("eval", total=total, completed=finished - 1, ex="–", tokens=0)
        self._progress.update(self._task, completed=finished, ex=f"{100 * self.correct / self.seen:.1f}%",
                              tokens=self.tokens)

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()
