"""Tree repair benchmark (no model): replay the exact syntax-tree repairs over a recorded run's predictions.

Each prediction of a committed `groundsql eval` run is executed again on its Spider SQLite file; a query that
failed or returned no rows goes through `generation.tree_repair` (rules 1–7), and the result is scored again with
the evaluation scorer. Reports EX before/after, how many `no such column` failures run afterwards, execution
errors by class, and per rule how often it fired, fixed the answer, or fired and stayed wrong.

    python benchmarks/tree_repair.py                      # both: declared keys only, and a profiled catalog
    python benchmarks/tree_repair.py --modes declared      # a Context without a catalog only
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
DEFAULT_RUN = (REPO / "benchmarks" / "results" / "accuracy" / "runs"
               / "baseline__local_qwen2.5-coder-1.5b__n150_seed2026" / "results.jsonl")
RULES = ("dialect", "spelling", "qualifier", "join", "ambiguous", "aggregate", "literal")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, default=DEFAULT_RUN, help="a results.jsonl of a recorded eval run")
    parser.add_argument("--dataset", type=Path, default=DEFAULT_SPIDER, help="Spider folder (database/<db>/<db>.sqlite)")
    parser.add_argument("--modes", default="declared,catalog",
                        help="comma-separated: declared (a Context without a catalog: declared keys, no value "
                             "index) and/or catalog (each database profiled: inferred keys, value index)")
    parser.add_argument("--results", type=Path, default=REPO / "benchmarks" / "results" / "tree_repair")
    parser.add_argument("--name", default="tree_repair", help="file stem of the Markdown report and plot")
    parser.add_argument("--note", action="append", default=[], help="a remark printed under the first table")
    args = parser.parse_args(argv)
    given = list(argv if argv is not None else sys.argv[1:])
    while "--note" in given:  # remarks are not part of the command that reproduces the numbers
        index = given.index("--note")
        del given[index:index + 2]
    command = "python benchmarks/tree_repair.py " + " ".join(shlex.quote(a) for a in given)
    print(f"$ {command}\nmachine: {machine()}", flush=True)
    if not args.run.exists() or not (args.dataset / "database").exists():
        print(f"missing input: {args.run} or {args.dataset / 'database'}", file=sys.stderr)
        return 2
    records = [json.loads(line) for line in args.run.read_text(encoding="utf-8").splitlines() if line.strip()]
    started = time.perf_counter()
    modes = {mode: replay(records, args.dataset, catalog=mode == "catalog") for mode in args.modes.split(",")}
    elapsed = time.perf_counter() - started
    report = render(modes, command=command, run=args.run, elapsed=elapsed, plot_name=f"{args.name}.png",
                    notes=args.note)
    args.results.mkdir(parents=True, exist_ok=True)
    plot(modes, args.results / f"{args.name}.png")
    (args.results / f"{args.name}.md").write_text(report, encoding="utf-8")
    (args.results / f"{args.name}.jsonl").write_text(
        "".join(json.dumps({"mode": mode, **r}, ensure_ascii=False) + "\n" for mode, rows in modes.items()
                for r in rows), encoding="utf-8")
    print(report)
    return 0


def replay(records: list[dict[str, Any]], dataset: Path, *, catalog: bool) -> list[dict[str, Any]]:
    """One row per question: its outcome before and after tree repair, and the rules that fired."""
    from groundsql.answer import Candidate
    from groundsql.catalog import build_catalog
    from groundsql.context import Context
    from groundsql.db import Database
    from groundsql.evaluation.scoring import Scorer
    from groundsql.generation.diagnosis import diagnose
    from groundsql.generation.tree_repair import TreeRepairOptions, needs_repair, tree_repair

    scorer = Scorer("spider")
    databases: dict[str, Database] = {}
    catalogs: dict[str, Any] = {}
    options = TreeRepairOptions()
    rows = []
    for record in records:
        db_id, sql = record["db_id"], record.get("sql") or ""
        path = dataset / "database" / db_id / f"{db_id}.sqlite"
        if db_id not in databases:
            databases[db_id] = Database(str(path))
            if catalog:
                catalogs[db_id] = build_catalog(databases[db_id], use_cache=False)
        ctx = Context(question=record["question"], db=databases[db_id], models={}, catalog=catalogs.get(db_id))
        result, error = ctx.try_query(sql, step="replay") if sql else (None, "no SQL")
        before = Candidate(sql=sql, result=result, error=error)
        kind_before = diagnose(sql, result, error, ctx.schema).kind
        row = {"id": record["id"], "db_id": db_id, "sql": sql, "error": error, "kind_before": kind_before,
               "correct_before": bool(record.get("correct")), "repaired_sql": None, "fired": [], "applied": []}
        after = before
        if sql and needs_repair(before):
            started = time.perf_counter()
            outcome = tree_repair(ctx, before, options=options)
            row["repair_s"] = round(time.perf_counter() - started, 4)
            row["fired"] = sorted({n["rule"] for n in ctx.trace.notes("tree_repair")})
            row["hints"] = outcome.hints
            if outcome.repaired:
                after = outcome.candidate
                row["repaired_sql"] = after.sql
                row["applied"] = [f.rule for f in outcome.fixes]
        row["kind_after"] = diagnose(after.sql, after.result, after.error, ctx.schema).kind
        if after is before:
            row["correct_after"] = row["correct_before"]
        else:
            verdict = scorer.score(path, record["gold_sql"], after.sql)
            row["correct_after"], row["gold_rows"] = verdict.correct, verdict.gold_rows
            row["rows_after"] = after.result.row_count if after.result is not None else None
        rows.append(row)
    for database in databases.values():
        database.close()
    return rows


LABELS = {"declared": "declared keys, no value index", "catalog": "catalog: + inferred keys, value index"}


def render(modes: dict[str, list[dict[str, Any]]], *, command: str, run: Path, elapsed: float,
           plot_name: str, notes: list[str] | None = None) -> str:
    first = next(iter(modes.values()))
    total = len(first)
    names = list(modes)
    head = "| | before | " + " | ".join(f"after ({LABELS.get(m, m)})" for m in names) + " |"
    rule = "|---|---|" + "---|" * len(names)

    def row(label: str, before: str, after) -> str:
        return f"| {label} | {before} | " + " | ".join(after(rows) for rows in modes.values()) + " |"

    def errors(rows, key):
        return sum(r[key] in ERROR_KINDS for r in rows)

    def nsc(rows):
        failing = [r for r in rows if r["kind_before"] == "no_such_column"]
        ran = [r for r in failing if r["kind_after"] not in ERROR_KINDS]
        return f"{len(ran)}/{len(failing)} ({sum(r['correct_after'] for r in failing)} of them correct)"

    def timing(rows):
        timed = [r["repair_s"] for r in rows if "repair_s" in r]
        return f"median {_median(timed) * 1000:.1f} ms, max {max(timed, default=0) * 1000:.1f} ms"

    ex_before = sum(r["correct_before"] for r in first)
    relative = run.relative_to(REPO) if run.is_relative_to(REPO) else run
    lines = [
        "# Tree repair on recorded predictions (no model calls)",
        "",
        f"Predictions: `{relative}` ({total} questions), each executed again on its Spider SQLite file; every "
        "query that failed or returned no rows went through the tree repair, and the repaired query was scored "
        "again with the evaluation scorer (Spider rules).",
        "",
        head, rule,
        row("EX (execution accuracy)", f"{ex_before}/{total} = {_pct(ex_before, total)}",
            lambda rows: f"{sum(r['correct_after'] for r in rows)}/{total} = "
                         f"{_pct(sum(r['correct_after'] for r in rows), total)}"),
        row("execution errors", str(errors(first, "kind_before")), lambda rows: str(errors(rows, "kind_after"))),
        row("empty results", str(sum(r["kind_before"] == "empty_result" for r in first)),
            lambda rows: str(sum(r["kind_after"] == "empty_result" for r in rows))),
        row("`no such column` failures that run", f"0/{sum(r['kind_before'] == 'no_such_column' for r in first)}",
            nsc),
        row("correct answers made wrong", "—",
            lambda rows: str(sum(r["correct_before"] and not r["correct_after"] for r in rows))),
        row("model calls added", "—", lambda rows: "0"),
        row("tree repair time per attempted question", "—", timing),
        "",
        *[f"Note: {note}\n" for note in notes or []],
        "## Outcome by class",
        "",
        "| class | before | " + " | ".join(f"after ({m})" for m in names) + " |",
        rule,
    ]
    kinds = {r["kind_before"] for r in first} | {r["kind_after"] for rows in modes.values() for r in rows}
    for kind in sorted(kinds, key=lambda k: (k == "ok", k)):
        lines.append(f"| {kind} | {sum(r['kind_before'] == kind for r in first)} | "
                     + " | ".join(str(sum(r["kind_after"] == kind for r in rows)) for rows in modes.values()) + " |")
    lines += [
        "",
        "## Per rule",
        "",
        "A rule *fired* when it rewrote a query (the rewrite was re-executed); *kept* when the repaired query beat "
        "the original (it runs, or returns rows) and became the answer; *fixed* when that answer is correct and "
        "the original was not; *still wrong* when it fired and the final answer is not correct.",
        "",
    ]
    for mode, rows in modes.items():
        lines += [f"**{LABELS.get(mode, mode)}**", "", "| rule | fired | kept | fixed | still wrong |",
                  "|---|---|---|---|---|"]
        for name in RULES:
            fired = [r for r in rows if name in r["fired"]]
            kept = [r for r in fired if name in r["applied"]]
            fixed = [r for r in kept if r["correct_after"] and not r["correct_before"]]
            wrong = [r for r in fired if not r["correct_after"]]
            lines.append(f"| {name} | {len(fired)} | {len(kept)} | {len(fixed)} | {len(wrong)} |")
        lines.append("")
    for mode, rows in modes.items():
        broke = [r for r in rows if r["correct_before"] and not r["correct_after"]]
        if broke:
            lines += [f"Correct answers made wrong ({mode}): the gold query returns the number of rows shown, the "
                      "original prediction returned none.", "", "| id | db | rules | after | gold rows | rows after |",
                      "|---|---|---|---|---|---|"]
            lines += [f"| {r['id']} | {r['db_id']} | {', '.join(r['applied'])} | `{_cell(r['repaired_sql'])}` | "
                      f"{r.get('gold_rows')} | {r.get('rows_after')} |" for r in broke]
            lines.append("")
    last = list(modes.values())[-1]
    lines += [f"## Every repaired query ({names[-1]})", "", "| id | db | rules | before → after | correct after |",
              "|---|---|---|---|---|"]
    for r in last:
        if r["repaired_sql"]:
            lines.append(f"| {r['id']} | {r['db_id']} | {', '.join(r['applied'])} | `{_cell(r['sql'])}` → "
                         f"`{_cell(r['repaired_sql'])}` | {'yes' if r['correct_after'] else 'no'} |")
    lines += ["", "## Command", "", "```", command, "```", "",
              f"Machine: {machine()}; the replay took {elapsed:.1f} s in all.", "", f"![tree repair]({plot_name})", ""]
    return "\n".join(lines)


ERROR_KINDS = {"refused", "syntax", "no_such_table", "no_such_column", "ambiguous_column", "type_mismatch",
               "timeout", "other"}


def plot(modes: dict[str, list[dict[str, Any]]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    first = next(iter(modes.values()))
    kinds = sorted(({r["kind_before"] for r in first} | {r["kind_after"] for rows in modes.values() for r in rows})
                   - {"ok"})
    series = [("before", [sum(r["kind_before"] == k for r in first) for k in kinds])]
    series += [(f"after ({m})", [sum(r["kind_after"] == k for r in rows) for k in kinds]) for m, rows in modes.items()]
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), gridspec_kw={"width_ratios": [3, 1.3]})
    width = 0.8 / len(series)
    for index, (label, counts) in enumerate(series):
        axes[0].bar([p + (index - (len(series) - 1) / 2) * width for p in range(len(kinds))], counts, width=width,
                    label=label)
    axes[0].set_xticks(list(range(len(kinds))), kinds, rotation=20, ha="right")
    axes[0].set_ylabel("questions")
    axes[0].set_title("Failing outcomes by class")
    axes[0].legend()
    total = len(first)
    labels = ["before", *modes]
    values = [100 * sum(r["correct_before"] for r in first) / total]
    values += [100 * sum(r["correct_after"] for r in rows) / total for rows in modes.values()]
    axes[1].bar(labels, values, color=["#888", "#2a7", "#27a"][:len(values)])
    axes[1].set_ylim(max(0, min(values) - 10), 100)
    axes[1].set_title("EX (%)")
    for x, v in enumerate(values):
        axes[1].text(x, v + 0.5, f"{v:.1f}", ha="center")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def machine() -> str:
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPU cores, Python {platform.python_version()}"


def _pct(part: int, total: int) -> str:
    return f"{100 * part / total:.1f}%" if total else "—"


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2] if ordered else 0.0


def _cell(sql: str) -> str:
    return " ".join(sql.split()).replace("|", "\\|")


if __name__ == "__main__":
    raise SystemExit(main())
