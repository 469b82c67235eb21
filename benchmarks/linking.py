"""Schema-linking benchmark: linkers side by side on a seeded sample of questions (SRR/NSR/NSP/NSF, cost).

Gold tables and columns come from each question's gold SQL (sqlglot, `groundsql.evaluation.linking`). Model-free
linkers run on the whole sample; model-driven ones on its first --model-n questions (they are slow on CPU).
One JSON line per (linker, question) goes to --jsonl, so a run can be inspected later; the Markdown table is
printed and written to --results.

    GROUNDSQL_THREADS=1 python benchmarks/linking.py --linkers full,vector,presql,progressive,apex \
        --n 100 --model-n 10 --model local:qwen2.5-coder-0.5b
    python benchmarks/linking.py --large --n 50 --linkers vector --model-n 0   # ~800-table schema
    python benchmarks/linking.py --large --n 50 --model-n 50 --linkers presql \
        --after "benchmarks/results/linking/large_vector_apex_1.5b.jsonl=vector,apex (embedding)"  # a chain's last
        # stage on the subsets its costly first stages kept (their cost is added to the records)
    python benchmarks/linking.py --large --train-questions 20,3,46 --n 300 --linkers vector \
        --option vector_backend=embedding   # training questions over the same schema: choose settings there
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import statistics
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from groundsql.linking.subset import SchemaSubset

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
MODEL_FREE = {"full", "vector"}
MAX_RECORDED_TABLES = 60  # larger subsets are counted, not listed, in the JSONL records


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--linkers", default="full,vector,presql,progressive,apex",
                        help="comma-separated linker specs; chain stages with '+' (vector+apex)")
    parser.add_argument("--dataset", type=Path, default=DATA / "spider")
    parser.add_argument("--large", action="store_true",
                        help="use the large-schema dataset (built under --large-dir from Spider dev + train)")
    parser.add_argument("--large-dir", type=Path, default=Path("/tmp/groundsql_large_schema"))
    parser.add_argument("--train-questions", default=None, metavar="DBS,PER_DB,SEED", type=_ints(",", 3),
                        help="with --large: ask training questions instead of the dev ones, a fold sample of DBS "
                             "databases a fold and PER_DB questions each (to choose a linker's settings where "
                             "they are not scored)")
    parser.add_argument("--part", default=None, metavar="I/N", type=_part,
                        help="run only every N-th question from the I-th (0-based): N processes on N cores share "
                             "one sample, each with its own --jsonl, merged afterwards")
    parser.add_argument("--n", type=int, default=100, help="seeded sample size")
    parser.add_argument("--model-n", type=int, default=10, help="questions for model-driven linkers")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--model", default="local:qwen2.5-coder-0.5b")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="context option for every linker (e.g. vector_k=20); repeatable")
    parser.add_argument("--label", default="", help="suffix for the linker name in records and the table")
    parser.add_argument("--no-catalog", action="store_true",
                        help="link without the profiled catalog (declared keys only, values read on the fly)")
    parser.add_argument("--jsonl", type=Path, default=None, help="per-question records (default: next to --results)")
    parser.add_argument("--results", type=Path, default=None, help="Markdown file to write the table into")
    parser.add_argument("--from-eval", type=Path, default=None, metavar="RUN_DIR",
                        help="take the linked schemas a `groundsql eval` run recorded (e.g. the ssev preset's "
                             "PreSQL linking) for the sampled questions it answered, as linker --label")
    parser.add_argument("--after", default=None, metavar="JSONL=LINKER",
                        help="start each question from the subset LINKER (its record label) kept in JSONL, so a "
                             "costly first stage is paid once: the records get the label 'LINKER + SPEC' and the "
                             "recorded stage's calls, tokens and seconds added to their own")
    parser.add_argument("--ambiguity", action="store_true",
                        help="with --large: count the sampled questions another database could answer unchanged")
    parser.add_argument("--report", type=Path, nargs="+", default=None, metavar="JSONL",
                        help="only summarise existing per-question records (one row per linker and model)")
    args = parser.parse_args(argv)
    command = "python benchmarks/linking.py " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    print(f"$ {command}\nmachine: {machine()}", flush=True)
    if args.report:
        print(markdown(report(args.report)))
        return 0

    from groundsql.evaluation.datasets import load_dataset, select

    dataset_dir = build_large(args.large_dir) if args.large else args.dataset
    if args.train_questions:
        if not args.large:
            parser.error("--train-questions needs --large")
        dataset_dir = large_train_questions(dataset_dir, *args.train_questions)
    if not (dataset_dir / "dev.json").exists():
        print(f"dataset not found at {dataset_dir}", file=sys.stderr)
        return 2
    dataset = load_dataset(dataset_dir)
    questions = select(dataset.questions, sample=args.n, seed=args.seed)
    if args.ambiguity:
        print(ambiguity(dataset_dir, questions))
        return 0
    options = dict(parse_option(o) for o in args.option)
    jsonl = args.jsonl or (args.results.with_suffix(".jsonl") if args.results else None)
    if args.from_eval:
        records = from_eval(args.from_eval, questions, args.label or args.from_eval.name, jsonl)
        rows = [summarise(args.label or args.from_eval.name, records, records[0]["model"] if records else "-")]
        print(markdown(rows))
        return 0
    start = recorded_start(args.after) if args.after else None
    rows = []
    for spec in [s.strip() for s in args.linkers.split(",") if s.strip()]:
        chain = spec.replace("+", ",")
        needs_model = not set(chain.split(",")) <= MODEL_FREE
        chosen = questions[: args.model_n] if needs_model else questions
        if args.part:
            part, parts = args.part
            chosen = chosen[part::parts]
        if start is not None:
            chosen = [q for q in chosen if str(q.id) in start[1]]
        if not chosen:
            continue
        records = run_linker(chain, chosen, args.model if needs_model else None, options, jsonl,
                             catalog=not args.no_catalog, label=args.label, start=start)
        rows.append(summarise(record_label(chain, args.label, start), records, args.model if needs_model else "-"))
    table = markdown(rows)
    print(table)
    if args.results:
        args.results.parent.mkdir(parents=True, exist_ok=True)
        header = (f"<!-- written by benchmarks/linking.py -->\n\n$ `{command}`\n\nmachine: {machine()}; "
                  f"dataset: {dataset_dir.name}, {len(questions)} sampled questions (seed {args.seed}); "
                  f"catalog: {'no' if args.no_catalog else 'yes'}\n\n")
        args.results.write_text(header + table + "\n")
    return 0


def from_eval(run_dir: Path, questions: list, label: str, jsonl: Path | None) -> list[dict]:
    """Linking records from an evaluation run's per-question records (scores as the runner computed them)."""
    wanted = {str(q.id) for q in questions}
    config = json.loads((run_dir / "run.json").read_text())
    records = []
    for line in (run_dir / "results.jsonl").read_text().splitlines():
        answer = json.loads(line) if line.strip() else None
        if not answer or str(answer["id"]) not in wanted or not answer.get("linking"):
            continue
        linked = answer.get("linked_schema") or {}
        records.append({"linker": label, "model": config.get("model") or "-", "id": answer["id"],
                        "db_id": answer.get("db_id"), "question": answer.get("question"), "seconds": None,
                        "tokens": None, "llm_calls": None, "db_queries": None, "scores": answer["linking"],
                        "error": None, "linked": linked, "kept_tables": len(linked),
                        "kept_columns": sum(len(c) for c in linked.values()), "from_eval": str(run_dir.name)})
    if jsonl:
        jsonl.parent.mkdir(parents=True, exist_ok=True)
        kept = [line for line in (jsonl.read_text().splitlines() if jsonl.exists() else [])
                if line.strip() and json.loads(line)["linker"] != label]
        jsonl.write_text("".join(f"{line}\n" for line in kept + [json.dumps(r) for r in records]))
    return records


def ambiguity(dataset_dir: Path, questions: list) -> str:
    """How many questions of the sample have a twin database in the combined schema (see `twin_databases`)."""
    from groundsql.evaluation.large_schema import twin_databases
    from groundsql.evaluation.linking import gold_schema

    entry = json.loads((dataset_dir / "tables.json").read_text())[0]
    names = entry["table_names_original"]
    schema: dict[str, list[str]] = {name: [] for name in names}
    for table_index, column in entry["column_names_original"]:
        if table_index >= 0:
            schema[names[table_index]].append(column)
    lines, ambiguous = [], 0
    for q in questions:
        gold = gold_schema(q.gold_sql, schema)
        twins = twin_databases(gold.tables, gold.columns, schema)
        ambiguous += bool(twins)
        if twins:
            lines.append(f"- q{q.id} ({', '.join(sorted(gold.tables))}): also {', '.join(twins)}")
    head = f"{ambiguous} of {len(questions)} questions can be answered unchanged from another database:"
    return "\n".join([head, *lines])


def recorded_start(spec: str) -> tuple[str, dict[str, dict]]:
    """`--after JSONL=LINKER`: (LINKER, question id → its record in JSONL); refused when JSONL holds none."""
    path, _, name = spec.partition("=")
    if not name or not Path(path).exists():
        raise SystemExit(f"--after wants JSONL=LINKER with an existing file, got {spec!r}")
    found = {}
    for line in Path(path).read_text().splitlines():
        record = json.loads(line) if line.strip() else None
        if record and record["linker"] == name and isinstance(record.get("linked"), dict) and not record["error"]:
            found[str(record["id"])] = record
    if not found:
        raise SystemExit(f"no records of linker {name!r} with a listed subset in {path}")
    return name, found


def record_label(spec: str, label: str, start: tuple[str, dict[str, dict]] | None) -> str:
    """The linker name a run's records carry: the spec and --label, after the recorded stage's name with --after."""
    return f"{start[0]} + {spec}{label}" if start else spec + label


def start_subset(record: dict) -> SchemaSubset:
    """The subset a recorded stage kept, as the next stage gets it."""
    from groundsql.linking.subset import SchemaSubset

    subset = SchemaSubset(linker=record["linker"])
    for table, columns in record["linked"].items():
        subset.add(table, reason="recorded stage")
        for column in columns:
            subset.add(table, column)
    return subset


def run_linker(spec: str, questions: list, model_spec: str | None, options: dict, jsonl: Path | None, *,
               catalog: bool = True, label: str = "", start: tuple[str, dict[str, dict]] | None = None) -> list[dict]:
    from groundsql.catalog import build_catalog, introspect
    from groundsql.context import Context
    from groundsql.db import Database
    from groundsql.evaluation.linking import gold_schema, linking_scores
    from groundsql.linking import link
    from groundsql.models import load_model

    name = record_label(spec, label, start)
    previous = _previous(jsonl, name, model_spec or "-")  # resume: questions already recorded are kept
    records = [previous[str(q.id)] for q in questions if str(q.id) in previous]
    questions = [q for q in questions if str(q.id) not in previous]
    if records:
        print(f"  {name}: {len(records)} questions already in {jsonl}, {len(questions)} to go", flush=True)
    models = {"default": load_model(model_spec)} if model_spec and questions else {}
    databases: dict[str, tuple] = {}
    for position, q in enumerate(questions, 1):
        if q.db_id not in databases:
            db = Database(str(q.db_path))
            built = build_catalog(db) if catalog else None
            schema = built.schema if built else introspect(db)
            databases[q.db_id] = (db, schema, {t.name: [c.name for c in t.columns] for t in schema.tables},
                                  built)
        db, schema, mapping, built = databases[q.db_id]
        ctx = Context(question=q.question, db=db, models=models, evidence=q.evidence, options=options,
                      catalog=built or None, _schema=schema)
        started = time.perf_counter()
        error = None
        first = start[1][str(q.id)] if start else {}
        try:
            linked = link(ctx, spec, subset=start_subset(first) if start else None).as_mapping()
        except Exception as exc:  # a failed question counts as keeping nothing
            error = f"{type(exc).__name__}: {exc}"
            linked = {}
        seconds = time.perf_counter() - started
        usage = ctx.trace.usage()
        scores = linking_scores(gold_schema(q.gold_sql, mapping), linked, mapping)
        record = {"linker": name, "model": model_spec or "-", "id": q.id, "db_id": q.db_id,
                  "question": q.question, "seconds": round(seconds + (first.get("seconds") or 0), 2),
                  "tokens": usage.prompt_tokens + usage.completion_tokens + (first.get("tokens") or 0),
                  "llm_calls": usage.llm_calls + (first.get("llm_calls") or 0),
                  "db_queries": usage.db_queries + (first.get("db_queries") or 0), "scores": scores, "error": error,
                  **({"after": start[0]} if start else {}),
                  "linked": linked if len(linked) <= MAX_RECORDED_TABLES else f"{len(linked)} tables (not listed)",
                  "kept_tables": len(linked), "kept_columns": sum(len(c) for c in linked.values())}
        records.append(record)
        if jsonl:
            jsonl.parent.mkdir(parents=True, exist_ok=True)
            with jsonl.open("a") as handle:
                handle.write(json.dumps(record, default=str) + "\n")
        table = scores["table"]
        print(f"  {spec} [{position}/{len(questions)}] q{q.id} table SRR {table['srr']:.0f} "
              f"kept {record['kept_tables']}t/{record['kept_columns']}c {seconds:.1f}s {record['tokens']} tok"
              + (f" ERROR {error}" if error else ""), flush=True)
    for db, *_ in databases.values():
        db.close()
    return records


def _previous(jsonl: Path | None, linker: str, model: str) -> dict[str, dict]:
    if jsonl is None or not jsonl.exists():
        return {}
    found = {}
    for line in jsonl.read_text().splitlines():
        if line.strip():
            record = json.loads(line)
            if record["linker"] == linker and (record.get("model") or "-") == model:
                found[str(record["id"])] = record
    return found


def report(paths: list[Path]) -> list[dict]:
    """Rows summarising the records of JSONL files, one per (linker, model), in first-seen order."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for path in paths:
        for line in path.read_text().splitlines():
            if line.strip():
                record = json.loads(line)
                groups.setdefault((record["linker"], record.get("model") or "-"), []).append(record)
    return [summarise(linker, records, model) for (linker, model), records in groups.items()]


def summarise(spec: str, records: list[dict], model: str) -> dict:
    def mean(level: str, metric: str) -> float:
        values = [r["scores"][level][metric] for r in records if r["scores"][level] is not None]
        return 100 * statistics.fmean(values) if values else float("nan")

    return {
        "linker": spec, "model": model, "n": len(records),
        **{f"{level[0]}_{m}": mean(level, m) for level in ("table", "column") for m in ("srr", "nsr", "nsp", "nsf")},
        "tables": statistics.fmean(r["kept_tables"] for r in records),
        "columns": statistics.fmean(r["kept_columns"] for r in records),
        "tokens": _mean_known(r["tokens"] for r in records),
        "calls": _mean_known(r["llm_calls"] for r in records),
        "seconds": _mean_known(r["seconds"] for r in records),
        "errors": sum(1 for r in records if r["error"]),
    }


def _mean_known(values) -> float:
    known = [v for v in values if v is not None]
    return statistics.fmean(known) if known else float("nan")


def markdown(rows: list[dict]) -> str:
    head = ("| linker | model | n | table SRR | NSR | NSP | NSF | column SRR | NSR | NSP | NSF | kept tables | "
            "kept columns | tokens/q | calls/q | s/q | errors |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        cells = [r["linker"], r["model"], str(r["n"])]
        cells += [f"{r[k]:.1f}" for k in ("t_srr", "t_nsr", "t_nsp", "t_nsf", "c_srr", "c_nsr", "c_nsp", "c_nsf")]
        cells += [f"{r['tables']:.1f}", f"{r['columns']:.1f}"]
        cells += ["–" if r[k] != r[k] else f"{r[k]:{fmt}}" for k, fmt in (("tokens", ".0f"), ("calls", ".1f"),
                                                                             ("seconds", ".1f"))]
        cells.append(str(r["errors"]))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def build_large(target: Path) -> Path:
    """The large-schema dataset (Spider dev + train databases in one file), built once."""
    if not (target / "dev.json").exists():
        from groundsql.evaluation.large_schema import make_large_schema

        train = DATA / "spider_train"
        report = make_large_schema(target, spider=DATA / "spider", train=train if train.exists() else None)
        print(f"built {report.path}: {report.tables} tables, {report.columns} columns, {report.questions} "
              f"questions ({len(report.dropped)} dropped)", flush=True)
    return target


def large_train_questions(large: Path, dbs_per_fold: int, per_db: int, seed: int) -> Path:
    """A dataset beside `large` that asks a fold sample of the training questions of the same combined database.

    The gold queries are rewritten to the prefixed table names; the database and tables.json are the large
    build's own (linked, not copied). Only the gold tables and columns are read from them (linking scores).
    """
    from groundsql.evaluation.datasets import load_dataset
    from groundsql.evaluation.folds import fold_sample
    from groundsql.evaluation.large_schema import rewrite_gold

    target = large.with_name(f"{large.name}_train_{dbs_per_fold}_{per_db}_{seed}")
    if (target / "dev.json").exists():
        return target
    target.mkdir(parents=True, exist_ok=True)
    for name in ("database", "tables.json"):
        if not (target / name).exists():
            (target / name).symlink_to((large / name).resolve())
    name = json.loads((large / "tables.json").read_text())[0]["db_id"]
    train = load_dataset(DATA / "spider_train")
    questions = [{"db_id": name, "question": q.question, "query": rewrite_gold(q.gold_sql, q.db_id),
                  "source_db_id": q.db_id, "source_id": q.id}
                 for q in fold_sample(train, dbs_per_fold=dbs_per_fold, per_db=per_db, seed=seed)]
    (target / "dev.json").write_text(json.dumps(questions, indent=1) + "\n")
    print(f"wrote {target}: {len(questions)} training questions of "
          f"{len({q['source_db_id'] for q in questions})} databases", flush=True)
    return target


def _ints(separator: str, count: int):
    """An argparse type: `count` non-negative integers joined by `separator`, or a usage error."""
    def parse(text: str) -> tuple[int, ...]:
        parts = text.split(separator)
        if len(parts) != count or not all(p.strip().isdigit() for p in parts):
            raise argparse.ArgumentTypeError(f"expected {count} whole numbers joined by {separator!r}, got {text!r}")
        return tuple(int(p) for p in parts)
    return parse


def _part(text: str) -> tuple[int, int]:
    part, parts = _ints("/", 2)(text)
    if not part < parts:
        raise argparse.ArgumentTypeError(f"I must be below N in I/N, got {text!r}")
    return part, parts


def parse_option(text: str) -> tuple[str, object]:
    key, _, value = text.partition("=")
    try:
        return key.strip(), json.loads(value)
    except json.JSONDecodeError:
        return key.strip(), value


def machine() -> str:
    threads = os.environ.get("GROUNDSQL_THREADS", "default")
    return f"{platform.machine()} {platform.system()}, {os.cpu_count()} cores, GROUNDSQL_THREADS={threads}"


if __name__ == "__main__":
    sys.exit(main())
