"""Accuracy benchmark: presets × models side by side on a fixed seeded sample of the open Spider split.

Each (preset, model, options) triple is one resumable `groundsql eval` run under --runs-dir (committed, so the
per-question records travel with the results); rerunning the same command continues where it stopped.
After every finished run, accuracy.md and its plots are rewritten from *every* run in --runs-dir with the same
sample, so runs made by separate commands (a preset, an ablation with --option, a subset with --limit) end up
in one table. Runs that cover fewer questions are also compared with the others on their common questions.

    GROUNDSQL_THREADS=2 python benchmarks/accuracy.py --presets baseline,ssev --models local:qwen2.5-coder-1.5b
    GROUNDSQL_THREADS=1 python benchmarks/accuracy.py --presets ssev --option validate=false   # an ablation
    GROUNDSQL_THREADS=1 python benchmarks/accuracy.py --presets apex --limit 20               # a costly preset
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SPIDER = REPO.parent / "shared" / "data" / "spider"
COMMANDS_FILE = "command.txt"
NOTES_MARKER = "<!-- analysis: written by hand, kept when the tables above are regenerated -->"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", default="baseline", help="comma-separated presets")
    parser.add_argument("--models", default="local:qwen2.5-coder-1.5b",
                        help="comma-separated model specs (add API models here)")
    parser.add_argument("--n", type=int, default=150, help="questions sampled from the open Spider split")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--limit", type=int, default=None,
                        help="run only the first LIMIT questions of the sample (file order), for costly presets")
    parser.add_argument("--ids", default=None, metavar="ID,ID,...",
                        help="only these question ids of the sample (e.g. the questions a new stage can change)")
    parser.add_argument("--model-for", action="append", default=[], metavar="ROLE=SPEC",
                        help="a model for one role (e.g. orchestrator=local:qwen2.5-coder-0.5b); part of the run")
    parser.add_argument("--samples", type=int, default=1)
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="preset option, repeatable (e.g. validate=false, linker=vector,apex); part of the run")
    parser.add_argument("--workers", type=int, default=1, help="concurrent questions (API models)")
    parser.add_argument("--dataset", type=Path, default=DEFAULT_SPIDER)
    parser.add_argument("--runs-dir", type=Path, default=REPO / "benchmarks" / "results" / "accuracy" / "runs")
    parser.add_argument("--results", type=Path, default=REPO / "benchmarks" / "results" / "accuracy")
    parser.add_argument("--note", action="append", default=[], help="a remark to print under the table")
    parser.add_argument("--report-only", action="store_true", help="only rewrite the report from existing runs")
    args = parser.parse_args(argv)
    given = _without(argv if argv is not None else sys.argv[1:], flags={"--report-only"}, valued={"--note"})
    command = "python benchmarks/accuracy.py " + " ".join(shlex.quote(a) for a in given)
    for variable in ("GROUNDSQL_PROMPT_CACHE_MB", "GROUNDSQL_THREADS"):  # settings that change speed, not answers
        if os.environ.get(variable):
            command = f"{variable}={os.environ[variable]} {command}"
    if not (args.dataset / "dev.json").exists():
        print(f"Spider data not found at {args.dataset}", file=sys.stderr)
        return 2
    options = parse_options(args.option)
    roles = parse_roles(args.model_for)
    if not args.report_only:
        print(f"$ {command}\nmachine: {machine()}", flush=True)
        from groundsql.evaluation import evaluate

        pairs = [(p.strip(), m.strip()) for p in args.presets.split(",") if p.strip()
                 for m in args.models.split(",") if m.strip()]
        for preset, model in pairs:
            run_dir = args.runs_dir / run_name(preset, model, options, args, roles)
            print(f"== {preset} · {model} {options or ''} → {run_dir}", flush=True)
            run_dir.mkdir(parents=True, exist_ok=True)
            (run_dir / COMMANDS_FILE).write_text(f"{command}\n# machine: {machine()}\n# code: {head_commit()}\n",
                                                 encoding="utf-8")
            started = time.time()

            def progress(record, finished, total, _started=started):
                mark = "✓" if record.get("correct") else "✗"
                print(f"  [{finished}/{total}] {mark} q{record['id']} {record.get('elapsed_s', 0):.1f}s "
                      f"({time.time() - _started:.0f}s this session)", flush=True)

            evaluate(args.dataset, preset=preset, model=model, samples=args.samples, workers=args.workers,
                     out=run_dir, progress=progress, sample=args.n, seed=args.seed, limit=args.limit,
                     ids=args.ids.split(",") if args.ids else None, options=options, models=roles or None,
                     report=False)
            write_results(args)
    print(write_results(args))
    return 0


def parse_options(items: list[str]) -> dict[str, Any]:
    """KEY=VALUE pairs with JSON-ish values (numbers, true/false); everything else stays a string."""
    options: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise SystemExit(f"--option expects KEY=VALUE, got {item!r}")
        try:
            options[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            options[key.strip()] = value
    return options


def parse_roles(items: list[str]) -> dict[str, str]:
    """ROLE=SPEC pairs of --model-for."""
    roles: dict[str, str] = {}
    for item in items:
        role, sep, spec = item.partition("=")
        if not sep or not role.strip() or not spec.strip():
            raise SystemExit(f"--model-for expects ROLE=SPEC, got {item!r}")
        roles[role.strip()] = spec.strip()
    return roles


def run_name(preset: str, model: str, options: dict[str, Any], args: argparse.Namespace,
             roles: dict[str, str] | None = None) -> str:
    name = f"{preset}__{slug(model)}__n{args.n}_seed{args.seed}"
    for role, spec in sorted((roles or {}).items()):
        name += f"__{slug(role)}-{slug(spec)}"
    if args.samples > 1:
        name += f"__k{args.samples}"
    for key, value in sorted(options.items()):
        name += f"__{slug(key)}-{slug(str(value))}"
    return name


def _without(args: list[str], *, flags: set[str], valued: set[str]) -> list[str]:
    """The arguments minus report-only options, so the recorded command is the one that produced the runs."""
    kept, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg in flags or arg.split("=", 1)[0] in valued:
            skip = arg in valued
        else:
            kept.append(arg)
    return kept


def slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in ".-" else "_" for c in text)


def machine() -> str:
    threads = os.environ.get("GROUNDSQL_THREADS", "default")
    return (f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPU cores, Python "
            f"{platform.python_version()}, GROUNDSQL_THREADS={threads}")


def head_commit() -> str:
    """The checkout's commit (`+changes` when src/ differs from it), recorded in command.txt for every run; the
    entry point's label (`GROUNDSQL_BENCH_COMMIT`, see provenance.py) when it started the run."""
    import subprocess

    if os.environ.get("GROUNDSQL_BENCH_COMMIT"):
        return os.environ["GROUNDSQL_BENCH_COMMIT"]

    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True, check=False)
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    return commit + ("+changes" if git("status", "--porcelain", "--", "src") else "")


#: Defaults that changed what every prompt and repair looks like; a run recorded before one existed is older code.
CHANGED_DEFAULTS = {"catalog_context": "catalog context", "tree_repair": "tree repair"}


def code_label(run_dir: Path, config: dict[str, Any]) -> str:
    """'COMMIT; defaults' for a run: the commit recorded in command.txt (runs made since it is recorded), else
    the commit that holds the run's records (the code it ran with is that one or an earlier one); then the
    changed defaults as the run had them, or 'older code: before …' when its settings predate them."""
    import subprocess

    from groundsql.pipelines import preset_options

    recorded = ""
    if (run_dir / COMMANDS_FILE).exists():
        for line in (run_dir / COMMANDS_FILE).read_text(encoding="utf-8").splitlines():
            if line.startswith("# code: "):
                recorded = line.removeprefix("# code: ").strip()
    if not recorded:
        # the last commit that added or changed the records (--follow past moves: a move changes no record)
        done = subprocess.run(["git", "-C", str(REPO), "log", "--follow", "--diff-filter=AM", "-1", "--format=%h",
                               "--", str(run_dir / "results.jsonl")], capture_output=True, text=True, check=False)
        recorded = f"records in {done.stdout.strip()}" if done.returncode == 0 and done.stdout.strip() else "unknown"
    settings = config.get("settings") or {}
    try:
        fields = set(preset_options(config.get("preset") or "baseline", {}).model_fields)
    except Exception:  # a preset that no longer exists: judge by the settings alone
        fields = set(CHANGED_DEFAULTS)
    before, state = [], []
    for key, name in CHANGED_DEFAULTS.items():
        if key not in fields:
            continue
        if key not in settings:
            before.append(name)
        else:
            state.append(f"{name} {'on' if settings[key] else 'off'}")
    parts = ([f"older code: before {' / '.join(before)}"] if before else []) + state
    return f"{recorded}; {', '.join(parts)}" if parts else recorded


def _label(config: dict[str, Any], name: str) -> str:
    from groundsql.evaluation.report import run_label

    label = run_label(config, name)
    options = {k: v for k, v in (config.get("options") or {}).items() if f" · {k}={v}" not in label}
    if options:
        label += " · " + ", ".join(f"{k}={v}" for k, v in options.items())
    return label


def _runs(args: argparse.Namespace) -> list[tuple[str, Path, dict[str, Any], list[dict[str, Any]]]]:
    from groundsql.evaluation import load_run

    suffix = f"__n{args.n}_seed{args.seed}"
    found = []
    for run_dir in sorted(args.runs_dir.glob("*")):
        if suffix not in run_dir.name or not (run_dir / "results.jsonl").exists():
            continue
        config, records = load_run(run_dir)
        if records:
            config["code"] = code_label(run_dir, config)
            found.append((_label(config, run_dir.name), run_dir, config, records))
    order = {"baseline": 0, "refine": 1, "ssev": 2, "apex": 3, "agentnlq": 4, "recap": 5, "prospy": 6}
    found.sort(key=lambda run: (order.get(run[2].get("preset"), 9), len(run[2].get("options") or {}), run[0]))
    return found


def write_results(args: argparse.Namespace) -> str:
    """Rewrite accuracy.md and its plots from every run in --runs-dir with this sample; returns the Markdown."""
    from provenance import check_row_commits

    from groundsql.evaluation import summarize
    from groundsql.evaluation.report import plot_comparison, python_stage_table, summary_table

    runs = _runs(args)
    codes = {label: config["code"] for label, _, config, _ in runs}
    # every row names its code in brackets; the check keeps it so if a row ever loses its label
    check_row_commits((coded_label(label, codes), _code_commit(codes.get(label, ""))) for label, *_ in runs)
    full = [(label, summarize(records, config)) for label, _, config, records in runs if len(records) >= args.n]
    lines = ["# Accuracy on the open Spider dev split", "",
             f"{args.n} questions sampled with seed {args.seed} from the 646 open Spider dev questions "
             "(execution accuracy under the official test-suite rules; difficulty = Spider hardness). "
             f"Every run's per-question records are committed under `{_rel(args.runs_dir)}/`, each with the "
             f"command that made it (`{COMMANDS_FILE}`).", "",
             f"Updated: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.", "",
             "Each row names, in brackets, the code it ran with: the commit recorded in the run's "
             f"`{COMMANDS_FILE}` (runs made since it is recorded), else `records in COMMIT`, the commit holding its "
             "records (the code it ran with is that one or an earlier one); then the defaults that changed what "
             "prompts and repairs look like, as the run had them. **older code: before catalog context / tree "
             "repair** marks a run whose settings predate that default (no catalog in its prompts, no syntax-tree "
             "repair before the model's): compare such rows with each other, not with rows of current code.", ""]
    if not runs:
        lines.append("No runs yet.")
    if full:
        lines += [f"## All {args.n} questions", ""] + summary_table(coded(full, codes))
        lines += ["", "Tokens are prompt + completion per question; latency is the pipeline's wall time per "
                  "question (the first question of a run includes loading the model). EX@K / Pass@K: share of "
                  "correct candidates / questions with any correct candidate, where a preset makes K > 1.", ""]
    partial = [run for run in runs if len(run[3]) < args.n]
    for label, _, _, records in partial:
        ids = {str(r["id"]) for r in records}
        lines += [f"## {label} on its {len(records)} questions, with every run on the same questions", ""]
        same = [(other, summarize([r for r in other_records if str(r["id"]) in ids], config))
                for other, _, config, other_records in runs
                if ids <= {str(r["id"]) for r in other_records}]
        lines += summary_table(coded(same, codes)) + [""]
    lines += head_to_head(runs)
    staged = [(label, summarize(records, config), records) for label, _, config, records in runs
              if any(r.get("stages") for r in records)]
    if staged:
        lines += ["## What each stage adds", "",
                  "EX of the answer each run would have returned had it stopped after that stage (the pipeline "
                  "records the SQL after every stage and each one is scored), in pipeline order. The last stage "
                  "is the run's answer. First → last: questions whose answer the later stages changed from "
                  "wrong to right (fixed) and from right to wrong (broken).", "",
                  "| run | n | stage → EX % | first → last: fixed / broken |", "|---|---:|---|---:|"]
        for label, summary, records in staged:
            steps = " → ".join(f"{name} {v['ex']:.1f}" for name, v in summary["stages"].items())
            fixed, broken = stage_changes(records)
            lines.append(f"| {label} | {summary['n']} | {steps} | {fixed} / {broken} |")
        lines.append("")
    python = python_stage_table([(label, summarize(records, config)) for label, _, config, records in runs])
    if python:
        lines += ["## The Python stage (prospy)", "",
                  "How often the Python stage ran (the model wrote code over the fetched views), how often it "
                  "produced a valid result table (of the runs), and how many answers were scored as that table "
                  "(`scored: python_table` in the records) and right.", ""] + python + [""]
    lines += agentnlq_paths(runs) + recap_rounds(runs)
    if runs:
        lines += ["## Failures of the wrong answers", "",
                  "| run | n | execution_error | wrong | empty | superset | malformed |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        for label, _, config, records in runs:
            counts = summarize(records, config).get("failures", {})
            lines.append(f"| {label} | {len(records)} | " + " | ".join(
                str(counts.get(k, 0)) for k in ("execution_error", "wrong", "empty", "superset", "malformed")) + " |")
        lines.append("")
    commands = sorted({(run_dir / COMMANDS_FILE).read_text(encoding="utf-8").splitlines()[0]
                       for _, run_dir, _, _ in runs if (run_dir / COMMANDS_FILE).exists()})
    if commands:
        lines += ["## Commands", "", "```"] + commands + ["```", "", f"Machine: {machine().rsplit(',', 1)[0]}.", ""]
    lines += [f"- {note}" for note in args.note]
    args.results.mkdir(parents=True, exist_ok=True)
    if full:
        plots = plot_comparison(full, args.results, prefix="accuracy_")
        lines += [""] + [f"![{name}]({file})" for name, file in plots.items()]
    text = "\n".join(lines) + "\n"
    target = args.results / "accuracy.md"
    if target.exists() and NOTES_MARKER in target.read_text(encoding="utf-8"):  # hand-written analysis is kept
        text += "\n" + NOTES_MARKER + target.read_text(encoding="utf-8").split(NOTES_MARKER, 1)[1]
    target.write_text(text, encoding="utf-8")
    return text


def coded(rows: list[tuple[str, Any]], codes: dict[str, str]) -> list[tuple[str, Any]]:
    """Rows of a headline table with each run's code label in brackets."""
    return [(coded_label(label, codes), summary) for label, summary in rows]


def coded_label(label: str, codes: dict[str, str]) -> str:
    return f"{label} [{codes[label]}]" if codes.get(label) else label


def _code_commit(code: str) -> str | None:
    """The commit in a code label ('85585ec; …', 'records in c5e24df; …'); None for 'unknown' or none."""
    head = code.split(";", 1)[0].removeprefix("records in ").strip()
    return None if head in ("", "unknown") else head


def stage_changes(records: list[dict[str, Any]]) -> tuple[int, int]:
    """Questions whose first recorded stage was wrong and last right (fixed), and the other way (broken)."""
    fixed = broken = 0
    for record in records:
        stages = list((record.get("stages") or {}).values())
        if len(stages) < 2:
            continue
        first, last = bool(stages[0].get("correct")), bool(stages[-1].get("correct"))
        fixed += last and not first
        broken += first and not last
    return fixed, broken


def agentnlq_paths(runs: list) -> list[str]:
    """Where each agentnlq run settled its questions: on the fast path, after escalation, or not at all."""
    from groundsql.evaluation import summarize

    lines = ["## Where agentnlq settles its questions", "",
             "Fast: the orchestrator's own loop reached an accepted result; escalated: the SQL generator's slow "
             "loop did; unsolved: every attempt failed its checks and the best effort was returned (low "
             "confidence). Each cell: share of the run's questions, and EX within them.", "",
             "| run | n | fast | escalated | unsolved |", "|---|---:|---:|---:|---:|"]
    for label, _, config, records in runs:
        paths = summarize(records, config).get("agentnlq_paths")
        if not paths:
            continue
        n = len(records)
        cells = [f"{100.0 * g['n'] / n:.0f}% ({g['n']}), EX {100.0 * g['correct'] / g['n']:.0f}%" if g["n"]
                 else "0" for g in (paths[p] for p in ("fast", "escalated", "unsolved"))]
        lines.append(f"| {label} | {n} | " + " | ".join(cells) + " |")
    return lines + [""] if len(lines) > 6 else []


def _revisions(recap: dict) -> str:
    if "sql_revisions" not in recap:
        return "–"
    return f"{recap['sql_revisions']} ({recap['sql_revisions_adopted']})"


def recap_rounds(runs: list) -> list[str]:
    """How much each recap run's agents worked per question, and whether the validator passed a result."""
    from groundsql.evaluation import summarize

    lines = ["## What the recap agents did", "",
             "Per question (means): answer/inspect actions taken, plan-critique rounds, plan versions, "
             "self-refinement rounds, re-linkings, revised queries the SQL critic offered (adopted: run and "
             "kept because it did no worse; – where the run's records predate the count), results the validator "
             "rejected; and the share of questions whose answer the validator passed (the rest return the best "
             "query that ran).", "",
             "| run | n | actions | plan critiques | plan versions | refinements | re-links | SQL revisions "
             "(adopted) | rejections | validated |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for label, _, config, records in runs:
        recap = summarize(records, config).get("recap")
        if not recap:
            continue
        lines.append(f"| {label} | {recap['n']} | {recap['steps']} | {recap['plan_critique_rounds']} | "
                     f"{recap['plan_versions']} | {recap['refine_rounds']} | {recap['relinks']} | "
                     f"{_revisions(recap)} | {recap['validator_rejections']} | {100.0 * recap['validated'] / recap['n']:.0f}% |")
    return lines + [""] if len(lines) > 6 else []


def head_to_head(runs: list) -> list[str]:
    """Each run against the first baseline run on the questions both answered: who got which right."""
    base = next((run for run in runs if run[2].get("preset") == "baseline" and not run[2].get("options")), None)
    if base is None:
        return []
    right = {str(r["id"]): bool(r.get("correct")) for r in base[3]}
    lines = [f"## Against {base[0]}, question by question", "",
             "| run | common questions | both right | only this run | only baseline | both wrong | EX Δ (points) |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for label, _, _, records in runs:
        if label == base[0]:
            continue
        pairs = [(bool(r.get("correct")), right[str(r["id"])]) for r in records if str(r["id"]) in right]
        if not pairs:
            continue
        both = sum(a and b for a, b in pairs)
        mine = sum(a and not b for a, b in pairs)
        theirs = sum(b and not a for a, b in pairs)
        delta = 100.0 * (mine - theirs) / len(pairs)
        lines.append(f"| {label} | {len(pairs)} | {both} | {mine} | {theirs} | {len(pairs) - both - mine - theirs} "
                     f"| {delta:+.1f} |")
    return lines + [""] if len(lines) > 4 else []


def _rel(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(REPO))
    except ValueError:
        return str(path)


if __name__ == "__main__":
    sys.exit(main())
