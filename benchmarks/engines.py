"""Cross-engine benchmark: one preset on the same seeded Spider sample asked of SQLite and of copies in DuckDB,
PostgreSQL, MariaDB and Spark (`groundsql eval load` / `eval run --engine`).

Per engine: questions kept (their gold SQL, transpiled by sqlglot, gives the SQLite answer on the copy) and
excluded by reason, EX on the kept questions and on the questions every engine kept, execution errors by class,
latency. Each engine's run is a resumable `groundsql eval` run under --runs-dir; engines.md is rewritten from
every run there with the same sample.

    python benchmarks/engines.py --load-only                  # copy the sample's databases into every engine
                                                              # (copies record the original's types and keys)
    GROUNDSQL_THREADS=2 python benchmarks/engines.py --preset baseline --model local:qwen2.5-coder-1.5b
    python benchmarks/engines.py --report-only                # rewrite engines.md and engines.png
    python benchmarks/engines.py --gold --n 646               # no model: the SQLite gold SQL as the predictions
    python benchmarks/engines.py --preset baseline --option model_dialect=sqlite   # SQLite drafts (the default;
                                                              # the option is named in the run when given)
    python benchmarks/engines.py --preset baseline --option model_dialect=engine   # the engine's own dialect
    python benchmarks/engines.py --replay-sqlite --preset baseline   # no model: the SQLite run's SQL, transpiled

Each engine's losses against SQLite (right on SQLite, wrong on the engine) are classed: engine refusal, gold
artifact (the same query, another answer), or another final query (`LOSS_CLASSES`).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SPIDER = REPO.parent / "shared" / "data" / "spider"
COPIES = Path(os.environ.get("GROUNDSQL_ENGINE_COPIES", Path(tempfile.gettempdir()) / "groundsql-engine-copies"))

NOTES_MARKER = "<!-- analysis: written by hand, kept when the tables above are regenerated -->"

#: engine name → URL template of its copies ("" is the SQLite original).
ENGINES = {
    "sqlite": "",
    "duckdb": f"duckdb:///{COPIES}/duckdb/{{db_id}}.duckdb",
    "postgres": "postgresql://postgres@127.0.0.1/groundsql_bench_{db_id}",
    "mariadb": "mysql://root@127.0.0.1/groundsql_bench_{db_id}",
    "spark": f"spark+local://{COPIES}/spark/{{db_id}}",
}

#: Execution errors by class: (class, markers found in the engine's message, lower case).
ERROR_CLASSES = (
    ("timeout", ("time limit", "timeout")),
    ("refused", ("refused:",)),
    ("unknown table", ("no such table", "table_or_view_not_found", "relation", "doesn't exist",
                       "table with name")),
    ("unknown column", ("no such column", "unknown column", "unresolved_column", "does not exist",
                        "not found in from clause", "referenced column", "does not have a column")),
    ("grouping", ("group by", "aggregate")),  # before functions: DuckDB says "part of an aggregate function"
    ("subquery", ("more than one row returned by a subquery", "subquery returns more than 1 row")),
    ("unknown function", ("no such function", "unresolved_routine", "function", "scalar function")),
    ("types", ("operator does not exist", "cannot compare", "type", "cast", "conversion error")),
    ("syntax", ("syntax", "parse", "parser error", "cannot parse")),
)

#: sqlglot dialect of each engine (to read its predictions when classing losses).
DIALECTS = {"sqlite": "sqlite", "duckdb": "duckdb", "postgres": "postgres", "mariadb": "mysql", "spark": "spark"}

#: Why a question right on SQLite is wrong on another engine, in the order they are tested.
LOSS_CLASSES = {
    "engine refusal": "the engine refused the query (an execution error other than an unknown name): SQLite "
                      "leniency such as text compared with numbers, a bare column beside GROUP BY, a scalar "
                      "subquery with several rows, a SQLite-only function",
    "gold artifact": "the model wrote the same query as on SQLite and it ran: the answers differ because the gold "
                     "or the data carries over differently (case-insensitive LIKE in the gold, stored spaces)",
    "another final query": "a different final query. With model_dialect=engine the prompt itself differs (its "
                           "dialect line and names: an invented or re-cased name, another reading); with the "
                           "default model_dialect=sqlite the prompts are identical, so a later step that saw the "
                           "engine's rows or errors chose otherwise (a repair, a second framing, a vote)",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default=",".join(ENGINES), help="comma-separated: " + ", ".join(ENGINES))
    parser.add_argument("--engine-url", action="append", default=[], metavar="NAME=URL-TEMPLATE",
                        help="override or add an engine's URL template (repeatable)")
    parser.add_argument("--preset", default="baseline")
    parser.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a preset option (repeatable; JSON values), e.g. model_dialect=sqlite; named in the run")
    parser.add_argument("--gold", action="store_true",
                        help="no model: score the SQLite gold SQL as predictions (how far SQLite-style SQL carries)")
    parser.add_argument("--n", type=int, default=150, help="questions sampled from the open Spider split (the "
                                                           "committed results use 150)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--every", type=int, default=1, metavar="K",
                        help="ask only every K-th question of the sample (file order, so every database keeps some), "
                             "for costly presets; the run stays resumable and can be completed later with K=1")
    parser.add_argument("--replay-sqlite", action="store_true",
                        help="no model: the SQLite run's queries of --preset/--model as every engine's predictions, "
                             "carried by model_dialect=sqlite's transpiler (what that mode gives when the model writes "
                             "on every engine what it wrote on SQLite)")
    parser.add_argument("--tree-repair", action="store_true",
                        help="with --replay-sqlite: each replayed query that fails or returns nothing on the engine "
                             "gets the tree repair first (no model call), as `baseline_tree_repair` would")
    parser.add_argument("--load", action="store_true", help="(re)load the sample's databases into each engine first")
    parser.add_argument("--load-only", action="store_true", help="(re)load the copies and run nothing")
    parser.add_argument("--dataset", type=Path, default=DEFAULT_SPIDER)
    parser.add_argument("--runs-dir", type=Path, default=REPO / "benchmarks" / "results" / "engines" / "runs")
    parser.add_argument("--results", type=Path, default=REPO / "benchmarks" / "results" / "engines")
    parser.add_argument("--report-only", action="store_true", help="only rewrite engines.md from existing runs")
    args = parser.parse_args(argv)
    command = "python benchmarks/engines.py " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    engines = {**ENGINES, **dict(item.split("=", 1) for item in args.engine_url)}
    chosen = [e.strip() for e in args.engines.split(",") if e.strip()]
    unknown = [e for e in chosen if e not in engines]
    if unknown:
        raise SystemExit(f"unknown engine(s) {unknown}; add them with --engine-url NAME=URL-TEMPLATE")
    if not (args.dataset / "dev.json").exists():
        print(f"Spider data not found at {args.dataset}", file=sys.stderr)
        return 2
    if not args.report_only:
        print(f"$ {command}\nmachine: {machine()}", flush=True)
        db_ids = sample_db_ids(args)
        for name in chosen:
            if (args.load or args.load_only) and engines[name]:
                load(args.dataset, engines[name], db_ids)
            if not args.load_only:
                run(args, name, engines[name], command)
    print(write_results(args))
    return 0


def sample_db_ids(args: argparse.Namespace) -> list[str]:
    from groundsql.evaluation.datasets import load_dataset, select

    questions = select(load_dataset(args.dataset).questions, sample=args.n, seed=args.seed)
    return sorted({q.db_id for q in questions})


def load(dataset: Path, template: str, db_ids: list[str]) -> None:
    from groundsql.evaluation.load import load_into

    print(f"== loading {len(db_ids)} databases into {template}", flush=True)
    report = load_into(dataset, template, db_ids=db_ids, replace=True)
    for entry in report.databases:
        if entry.error:
            print(f"  {entry.db_id}: FAILED {entry.error}", flush=True)


def preset_options(args: argparse.Namespace) -> dict[str, Any]:
    options = {}
    for item in args.option:
        key, _, value = item.partition("=")
        try:
            options[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            options[key.strip()] = value
    return options


def run_name(args: argparse.Namespace, engine: str) -> str:
    given = "".join(f"_{key}-{value}" for key, value in sorted(preset_options(args).items()))
    what = "gold" if args.gold else f"{args.preset}{slug(given)}__{slug(args.model)}"
    if getattr(args, "replay_sqlite", False):
        what = f"replay{'-tree_repair' if args.tree_repair else ''}-{what}"
    return f"{engine}__{what}__n{args.n}_seed{args.seed}"


def run(args: argparse.Namespace, engine: str, template: str, command: str) -> None:
    from groundsql.evaluation import evaluate

    run_dir = args.runs_dir / run_name(args, engine)
    run_dir.mkdir(parents=True, exist_ok=True)
    from provenance import current_commit

    (run_dir / "command.txt").write_text(f"{command}\n# machine: {machine()}\n# code: {current_commit()}\n",
                                         encoding="utf-8")
    predictions = gold_predictions(args.dataset, run_dir) if args.gold else None
    if args.replay_sqlite:
        predictions = replayed_predictions(args, engine, template, run_dir)
    ids = strided_ids(args) if args.every > 1 else None
    print(f"== {engine}: {run_dir}" + (f" (every {args.every}th question: {len(ids)})" if ids else ""), flush=True)
    started = time.time()

    def progress(record: dict[str, Any], finished: int, total: int) -> None:
        mark = "–" if record.get("excluded") else "✓" if record.get("correct") else "✗"
        print(f"  [{finished}/{total}] {mark} q{record['id']} ({time.time() - started:.0f}s)", flush=True)

    evaluate(args.dataset, preset=args.preset, model=None if args.gold or args.replay_sqlite else args.model,
             out=run_dir,
             predictions=predictions, progress=progress, sample=args.n, seed=args.seed, report=False,
             engine=template or None, ids=ids, **({"options": preset_options(args)} if args.option else {}))


def replayed_predictions(args: argparse.Namespace, engine: str, template: str, run_dir: Path) -> Path:
    """The SQLite run's queries, each carried to `engine` by `sql.sqlite_flavour.from_sqlite` with the copy's
    structure (`model_dialect=sqlite` without the model)."""
    from groundsql.catalog import introspect
    from groundsql.db import Database
    from groundsql.evaluation import load_run
    from groundsql.evaluation.load import engine_url
    from groundsql.sql.sqlite_flavour import from_sqlite

    source = args.runs_dir / f"sqlite__{args.preset}__{slug(args.model)}__n{args.n}_seed{args.seed}"
    if not (source / "results.jsonl").exists():
        raise SystemExit(f"--replay-sqlite needs the SQLite run {source}")
    _, records = load_run(source)
    schemas: dict[str, Any] = {}
    lines = []
    for record in records:
        sql = record.get("sql") or ""
        if sql and (template or args.tree_repair):
            db_id = record["db_id"]
            url = engine_url(template, db_id) if template else str(args.dataset / "database" / db_id /
                                                                   f"{db_id}.sqlite")
            if db_id not in schemas:
                with Database(url) as db:
                    schemas[db_id] = (db.dialect, introspect(db))
            dialect, schema = schemas[db_id]
            sql = from_sqlite(sql, dialect, schema)
            if args.tree_repair:
                sql = tree_repaired(url, sql, schema)
        lines.append(json.dumps({"id": record["id"], "sql": sql}))
    path = run_dir / "replayed_predictions.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def tree_repaired(url: str, sql: str, schema: Any) -> str:
    """`sql` after the tree repair on the database at `url` (itself when it ran with rows or nothing helped)."""
    from groundsql.answer import Candidate
    from groundsql.context import Context
    from groundsql.db import Database
    from groundsql.generation.tree_repair import tree_repair

    with Database(url) as db:
        ctx = Context(question="", db=db, models={}, options={}, _schema=schema)
        result, error = ctx.try_query(sql, step="replay")
        return tree_repair(ctx, Candidate(sql=sql, result=result, error=error)).candidate.sql


def strided_ids(args: argparse.Namespace) -> list[str]:
    """Every K-th question id of the seeded sample, in file order."""
    from groundsql.evaluation.datasets import load_dataset, select

    questions = select(load_dataset(args.dataset).questions, sample=args.n, seed=args.seed)
    return [str(q.id) for q in questions[:: args.every]]


def gold_predictions(dataset: Path, run_dir: Path) -> Path:
    path = run_dir / "gold_predictions.jsonl"
    questions = json.loads((dataset / "dev.json").read_text(encoding="utf-8"))
    path.write_text("".join(json.dumps({"id": i, "sql": q["query"]}) + "\n" for i, q in enumerate(questions)),
                    encoding="utf-8")
    return path


def error_class(message: str | None) -> str:
    text = (message or "").lower()
    return next((name for name, markers in ERROR_CLASSES if any(m in text for m in markers)), "other")


def write_results(args: argparse.Namespace) -> str:
    from groundsql.evaluation import load_run, summarize

    suffix = f"__n{args.n}_seed{args.seed}"
    from provenance import check_row_commits, commit_of_run, label_if_mixed

    runs: dict[str, dict[str, list[tuple[dict, list[dict]]]]] = {}
    commits: dict[tuple[str, str], str | None] = {}
    for run_dir in sorted(args.runs_dir.glob(f"*{suffix}")):
        if (run_dir / "results.jsonl").exists():
            engine, rest = run_dir.name.split("__", 1)
            what = rest[: -len(suffix)]
            runs.setdefault(what, {}).setdefault(engine, []).append(load_run(run_dir))
            commits[what, engine] = commit_of_run(run_dir)
    lines = ["# The same questions on five engines", "",
             f"{args.n} questions sampled with seed {args.seed} from the open Spider dev split, asked of the SQLite "
             "originals and of copies made by `groundsql eval load` (`benchmarks/engines.py`). A question counts on "
             "an engine only when its gold SQL, transpiled by sqlglot, returns the SQLite gold result there; "
             "excluded questions are listed by reason. *common* is EX on the questions every engine kept.", "",
             f"Updated: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. Machine: {machine()}.", ""]
    order = list(ENGINES)
    bars: dict[str, dict[str, tuple[float, float]]] = {}  # run → engine → (EX, EX on common)
    for what, by_engine in sorted(runs.items()):
        table = {e: by_engine[e][0] for e in sorted(by_engine, key=lambda e: order.index(e) if e in order else 99)}
        kept = [{str(r["id"]) for r in records if not r.get("excluded")} for _, records in table.values()]
        common = set.intersection(*kept) if kept else set()
        title = "gold SQL (SQLite dialect) as predictions" if what == "gold" else what.replace("__", " · ")
        lines += [f"## {title}", ""]
        if what.startswith("replay"):
            lines += ["No model: the SQLite run's queries as every engine's predictions, each carried by "
                      "`model_dialect=sqlite`'s transpiler (`sql/sqlite_flavour.py`): what that mode gives when the "
                      "model writes on every engine what it wrote on SQLite" +
                      ("; a query that fails or returns nothing then gets the tree repair (no model call)."
                       if what.startswith("replay-tree_repair") else "."), ""]
        if what == "gold":
            lines += ["No model: each question's SQLite gold SQL is the prediction, run unchanged on the copy. EX "
                      "measures how much SQLite-style SQL carries over as written: elsewhere a double-quoted "
                      "word is a column name, not a string (unknown column), and MariaDB compares table names "
                      "case-sensitively (unknown table). This is the gap a model's dialect handling must close.",
                      ""]
        lines += ["| engine | kept | excluded | EX % | EX % common "
                  f"({len(common)}) | execution errors by class | latency p50 / p90 s |",
                  "|---|---:|---|---:|---:|---|---|"]
        labels = label_if_mixed([(engine, commits.get((what, engine))) for engine in table])
        rows = []
        for label, (engine, (config, records)) in zip(labels, table.items()):
            summary = summarize(records, config)
            excluded = summary.get("excluded", {}).get("by_reason", {})
            on_common = [r for r in records if str(r["id"]) in common]
            ex_common = 100.0 * sum(1 for r in on_common if r.get("correct")) / len(on_common) if on_common else 0
            errors = Counter(error_class(r.get("error")) for r in records
                             if not r.get("excluded") and r.get("failure") == "execution_error")
            bars.setdefault(title, {})[engine] = (summary["ex"], ex_common)
            rows.append((
                f"| {label} | {summary['n']} | {', '.join(f'{k} {v}' for k, v in excluded.items()) or '–'} "
                f"| {summary['ex']:.1f} | {ex_common:.1f} | "
                f"{', '.join(f'{k} {v}' for k, v in errors.most_common()) or '–'} | "
                f"{summary['latency_s']['p50']:.2f} / {summary['latency_s']['p90']:.2f} |", commits.get((what, engine))))
        check_row_commits(rows)
        lines += [text for text, _ in rows] + [""]
        if what != "gold" and "sqlite" in table:
            lines += loss_table(table)
    args.results.mkdir(parents=True, exist_ok=True)
    if bars:
        plot(bars, args.results / "engines.png")
        lines += ["![EX per engine](engines.png)", ""]
    text = "\n".join(lines) + "\n"
    path = args.results / "engines.md"
    if path.exists() and NOTES_MARKER in path.read_text(encoding="utf-8"):  # hand-written reading survives
        text += "\n" + NOTES_MARKER + path.read_text(encoding="utf-8").split(NOTES_MARKER, 1)[1]
    path.write_text(text, encoding="utf-8")
    return text


def loss_table(table: dict[str, tuple[dict, list[dict]]]) -> list[str]:
    """Each engine against SQLite, question by question on the questions both kept: wins, and losses by class
    (`LOSS_CLASSES`) with their question ids."""
    sqlite = {str(r["id"]): r for r in table["sqlite"][1] if not r.get("excluded")}
    lines = ["Against SQLite, question by question (on the questions both kept); each loss classed:", "",
             "| engine | both kept | won | lost | " + " | ".join(LOSS_CLASSES) + " |",
             "|---|---:|---:|---:|" + "---|" * len(LOSS_CLASSES)]
    for engine, (_, records) in table.items():
        if engine == "sqlite":
            continue
        both = [(sqlite[str(r["id"])], r) for r in records if not r.get("excluded") and str(r["id"]) in sqlite]
        won = sum(1 for base, other in both if other.get("correct") and not base.get("correct"))
        losses: dict[str, list[str]] = {name: [] for name in LOSS_CLASSES}
        for base, other in both:
            if base.get("correct") and not other.get("correct"):
                losses[loss_class(base, other, DIALECTS.get(engine, engine))].append(f"q{other['id']}")
        lost = sum(len(ids) for ids in losses.values())
        cells = [f"{len(ids)} ({', '.join(ids)})" if ids else "0" for ids in losses.values()]
        lines.append(f"| {engine} | {len(both)} | {won} | {lost} | " + " | ".join(cells) + " |")
    lines += [""] + [f"- *{name}*: {meaning}." for name, meaning in LOSS_CLASSES.items()] + [""]
    return lines


def loss_class(sqlite_record: dict, engine_record: dict, dialect: str) -> str:
    """The class of one loss: the engine refused the query, the same query ran with another answer (the gold's
    or the data's difference), or another final query."""
    if engine_record.get("failure") == "execution_error" and error_class(engine_record.get("error")) not in (
            "unknown column", "unknown table"):
        return "engine refusal"
    if same_query(sqlite_record.get("sql") or "", "sqlite", engine_record.get("sql") or "", dialect):
        return "engine refusal" if engine_record.get("error") else "gold artifact"
    return "another final query"


def same_query(a: str, dialect_a: str, b: str, dialect_b: str) -> bool:
    """Whether two predictions are one query up to dialect: names compared without case or quotes, LIKE and
    ILIKE alike, explicit NULL ordering ignored (sqlglot's trees, written back as SQLite)."""
    canonical = [_canonical(a, dialect_a), _canonical(b, dialect_b)]
    return canonical[0] is not None and canonical[0] == canonical[1]


def _canonical(sql: str, dialect: str) -> str | None:
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (SqlglotError, ValueError):
        return None
    if tree is None:
        return None
    for identifier in tree.find_all(exp.Identifier):
        identifier.set("this", identifier.name.lower())
        identifier.set("quoted", False)
    for ordered in tree.find_all(exp.Ordered):
        ordered.set("nulls_first", None)
    for like in list(tree.find_all(exp.ILike)):
        like.replace(exp.Like(**{k: v.copy() for k, v in like.args.items() if v is not None}))
    for division in tree.find_all(exp.Div):
        division.set("safe", None)
        division.set("typed", None)
    return " ".join(tree.sql(dialect="sqlite", normalize=True).split()).lower()


def plot(bars: dict[str, dict[str, tuple[float, float]]], path: Path) -> None:
    """One panel per run: EX per engine on its kept questions and on the questions every engine kept."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(bars), figsize=(5 * len(bars), 3.6), squeeze=False)
    for axis, (title, by_engine) in zip(axes[0], bars.items(), strict=True):
        names = list(by_engine)
        positions = range(len(names))
        axis.bar([x - 0.2 for x in positions], [by_engine[n][0] for n in names], width=0.4, label="kept")
        axis.bar([x + 0.2 for x in positions], [by_engine[n][1] for n in names], width=0.4, label="common")
        axis.set_xticks(list(positions), names)
        axis.set_ylim(0, 100)
        axis.set_ylabel("EX %")
        axis.set_title(title, fontsize=9)
        axis.legend(fontsize=8, loc="lower right")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in ".-" else "_" for c in text)


def machine() -> str:
    threads = os.environ.get("GROUNDSQL_THREADS", "default")
    return (f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPU cores, Python "
            f"{platform.python_version()}, GROUNDSQL_THREADS={threads}")


if __name__ == "__main__":
    raise SystemExit(main())
