"""Analytics benchmark: presets side by side on the 30 multi-step analytics questions of benchmarks/analytics.

    GROUNDSQL_THREADS=2 python benchmarks/analytics.py --presets prospy,ssev --models local:qwen2.5-coder-1.5b

Each (preset, model, options) triple is one resumable `groundsql eval` run under --runs-dir; rerunning the same
command continues where it stopped. `prospy` answers computed in Python are scored as tables
(`scored: python_table`). The demo database (seed 7, with its knowledge folder, as `groundsql demo-db` writes it)
is generated once under --data-dir; Chinook is read from ../shared/data. Neither is copied into the repository.
After every run, analytics.md is rewritten from every run in --runs-dir.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

from accuracy import COMMANDS_FILE, machine, parse_options, slug

REPO = Path(__file__).resolve().parents[1]
QUESTIONS = REPO / "benchmarks" / "analytics" / "questions.json"
DEFAULT_CHINOOK = REPO.parent / "shared" / "data" / "chinook" / "Chinook_Sqlite.sqlite"
DEFAULT_DATA = Path.home() / ".cache" / "groundsql" / "analytics"


def load_analytics(chinook: Path, data_dir: Path):
    """The question set as a `Dataset` whose questions point at the demo database (generated on first use) and
    at Chinook."""
    from groundsql.demo import generate_demo_database
    from groundsql.evaluation import load_dataset
    from groundsql.knowledge.store import write_demo_knowledge

    demo = data_dir / "demo.sqlite"
    if not demo.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        generate_demo_database(demo, seed=7)
        write_demo_knowledge(demo)
    dataset = load_dataset(QUESTIONS)
    for q in dataset.questions:
        q.db_path = {"demo": demo, "chinook": chinook}[q.db_id]
    return dataset


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", default="prospy,ssev", help="comma-separated presets")
    parser.add_argument("--models", default="local:qwen2.5-coder-1.5b", help="comma-separated model specs")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="preset option, repeatable (e.g. python=always); part of the run")
    parser.add_argument("--limit", type=int, default=None, help="only the first LIMIT questions")
    parser.add_argument("--workers", type=int, default=1, help="concurrent questions (API models)")
    parser.add_argument("--chinook", type=Path, default=DEFAULT_CHINOOK)
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA, help="where the demo database is generated")
    parser.add_argument("--runs-dir", type=Path, default=REPO / "benchmarks" / "results" / "analytics" / "runs")
    parser.add_argument("--results", type=Path, default=REPO / "benchmarks" / "results" / "analytics")
    parser.add_argument("--report-only", action="store_true", help="only rewrite analytics.md from existing runs")
    args = parser.parse_args(argv)
    if not args.chinook.is_file():
        print(f"Chinook not found at {args.chinook}", file=sys.stderr)
        return 2
    given = [a for a in (argv if argv is not None else sys.argv[1:]) if a != "--report-only"]
    command = "python benchmarks/analytics.py " + " ".join(shlex.quote(a) for a in given)
    options = parse_options(args.option)
    if not args.report_only:
        from provenance import current_commit

        from groundsql.evaluation import evaluate

        print(f"$ {command}\nmachine: {machine()}", flush=True)
        dataset = load_analytics(args.chinook, args.data_dir)
        for preset in (p.strip() for p in args.presets.split(",") if p.strip()):
            for model in (m.strip() for m in args.models.split(",") if m.strip()):
                run_dir = args.runs_dir / run_name(preset, model, options)
                print(f"== {preset} · {model} {options or ''} → {run_dir}", flush=True)
                run_dir.mkdir(parents=True, exist_ok=True)
                (run_dir / COMMANDS_FILE).write_text(f"{command}\n# machine: {machine()}\n# code: {current_commit()}\n",
                                                     encoding="utf-8")

                def progress(record, finished, total):
                    mark = "✓" if record.get("correct") else "✗"
                    how = " (Python table)" if record.get("scored") == "python_table" else ""
                    print(f"  [{finished}/{total}] {mark} q{record['id']}{how} {record.get('elapsed_s', 0):.1f}s",
                          flush=True)

                evaluate(dataset, preset=preset, model=model, workers=args.workers, out=run_dir,
                         progress=progress, limit=args.limit, options=options, report=False)
                write_report(args)
    print(write_report(args))
    return 0


def run_name(preset: str, model: str, options: dict) -> str:
    name = f"{preset}__{slug(model)}"
    for key, value in sorted(options.items()):
        name += f"__{slug(key)}-{slug(str(value))}"
    return name


NOTES_MARKER = "<!-- reading: written by hand, kept when the tables above are regenerated -->"


def write_report(args: argparse.Namespace) -> str:
    """Rewrite analytics.md from every run in --runs-dir; returns the Markdown."""
    from groundsql.evaluation import load_run, summarize
    from groundsql.evaluation.report import python_stage_table, run_label, summary_table

    runs = []
    for run_dir in sorted(args.runs_dir.glob("*")):
        if (run_dir / "results.jsonl").exists():
            config, records = load_run(run_dir)
            if records:
                label = run_label(config, run_dir.name)
                if config.get("options"):
                    label += " · " + ", ".join(f"{k}={v}" for k, v in config["options"].items())
                runs.append((label, run_dir, config, records))
    from provenance import check_row_commits, commit_of_run, label_if_mixed

    commits = [commit_of_run(run_dir) for _, run_dir, _, _ in runs]
    labels = label_if_mixed([(label, commit) for (label, *_), commit in zip(runs, commits)])
    check_row_commits(zip(labels, commits))  # the table's rows are the labels
    runs = [(label, *rest) for label, (_, *rest) in zip(labels, runs)]
    summaries = [(label, summarize(records, config)) for label, _, config, records in runs]
    lines = ["# Multi-step analytics questions", "",
             "30 questions of our own over the demo shop and Chinook (shares, period-over-period growth, ranking "
             "within groups, medians, cohort retention, comparisons against an average), gold answers checked "
             "independently (`benchmarks/analytics/README.md`). Execution accuracy under Spider's rules; a "
             "`prospy` answer computed in Python is scored as its final table.", "",
             f"Updated: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.", ""]
    if not runs:
        lines.append("No runs yet.")
    else:
        lines += summary_table(summaries) + [""]
        python = python_stage_table(summaries)
        if python:
            lines += ["## The Python stage (prospy)", ""] + python + [""]
        lines += ["## Question by question", "", "| id | db | question | " + " | ".join(label for label, *_ in runs) + " |",
                  "|---:|---|---|" + "---|" * len(runs)]
        by_run = [{str(r["id"]): r for r in records} for *_, records in runs]
        for q in _questions():
            marks = []
            for found in by_run:
                record = found.get(str(q["id"]))
                marks.append("–" if record is None else ("✓" if record.get("correct") else "✗")
                             + (" (py)" if record and record.get("scored") == "python_table" else ""))
            lines.append(f"| {q['id']} | {q['db_id']} | {q['question'][:90]} | " + " | ".join(marks) + " |")
        commands = sorted({(run_dir / COMMANDS_FILE).read_text(encoding="utf-8").splitlines()[0]
                           for _, run_dir, _, _ in runs if (run_dir / COMMANDS_FILE).exists()})
        if commands:
            lines += ["", "## Commands", "", "```"] + commands + ["```", "", f"Machine: {machine()}.", ""]
    text = "\n".join(lines) + "\n"
    args.results.mkdir(parents=True, exist_ok=True)
    target = args.results / "analytics.md"
    if target.exists() and NOTES_MARKER in target.read_text(encoding="utf-8"):  # hand-written readings are kept
        text += "\n" + NOTES_MARKER + target.read_text(encoding="utf-8").split(NOTES_MARKER, 1)[1]
    target.write_text(text, encoding="utf-8")
    return text


def _questions() -> list[dict]:
    import json

    return [{"id": i, **q} for i, q in enumerate(json.loads(QUESTIONS.read_text(encoding="utf-8")))]


if __name__ == "__main__":
    sys.exit(main())
