"""auto's one-call stop for sure drafts (`sure_draft`) replayed on recorded answers, no model.

A recorded `auto` answer holds its first candidate (the polished first draft), how probable the model found that
draft token by token (`signals.draft_least`) and the answer the second candidate and escalation led to. Under
`sure_draft=T` a first candidate that ran, returned rows, drew no finding (every check but the advisory ones, run
again here on its database with the current code) and no exact repair, of a draft with no token below log-probability
T, is the answer at one call with the confidence the calibration gives a lone candidate; every other question goes
on as recorded. The first call is the same prompt either way, so the replay is exact up to the decoding caveat in
the generalization report (greedy near-ties may differ between processes).

    python benchmarks/one_call_replay.py --runs train/auto@86ce8a4 --thresholds=-0.5,-0.8,-1.0
    python benchmarks/one_call_replay.py --runs dev/auto@53e4949 --thresholds=-0.8   # held out: report only
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
RUNS = REPO / "benchmarks" / "results" / "generalization" / "runs"
OUT = REPO / "benchmarks" / "results" / "one_call" / "one_call.md"
SPLITS = {"train": DATA / "spider_train", "dev": DATA / "spider"}


@dataclass
class Item:
    """One recorded answer and what its first candidate is worth on its own."""

    record: dict[str, Any]
    first_clean: bool  # ran, rows, no finding (current checks), no exact repair
    first_right: bool
    lone_confidence: float


def load(run: str, runs_dir: Path | None = None) -> list[Item]:
    """Every answer of one run (`SPLIT/LABEL@COMMIT` under the generalization runs), its first candidate re-checked."""
    from groundsql.catalog import build_catalog
    from groundsql.context import Context
    from groundsql.db import Database
    from groundsql.evaluation.datasets import load_dataset
    from groundsql.generation.refinement import execute_candidate
    from groundsql.models import ScriptedModel
    from groundsql.selection.calibration import Signals, confidence
    from groundsql.selection.checks import settled_findings

    paths = {q.db_id: q.db_path for q in load_dataset(SPLITS[run.split("/", 1)[0]]).questions if q.db_path}
    catalogs: dict[str, Any] = {}
    items = []
    for line in ((runs_dir or RUNS) / run / "results.jsonl").read_text().splitlines():
        record = json.loads(line) if line.strip() else None
        if not record:
            continue
        signals = record.get("signals") or {}
        first = (record.get("candidates") or [None])[0]
        clean = False
        if first and "plain" not in (record.get("auto_path") or []) and not signals.get("repaired"):
            path = paths[record["db_id"]]
            if record["db_id"] not in catalogs:
                catalogs.clear()  # questions come grouped by database
                catalogs[record["db_id"]] = build_catalog(Database(str(path)))
            ctx = Context(question=record["question"], db=Database(str(path)),
                          models={"default": ScriptedModel([])}, catalog=catalogs[record["db_id"]])
            candidate = execute_candidate(ctx, first["sql"], source="direct")
            clean = bool(candidate.ok and candidate.result.row_count) and not settled_findings(ctx, candidate)
        lone = 0.0
        if clean:  # a clean first candidate is the one the cheap stage chose, so the signals are its own
            fields = {k: v for k, v in signals.items() if k in Signals.__dataclass_fields__}
            lone = confidence(replace(Signals(**fields), agree=None, support=None, candidates=1, escalated=False))
        items.append(Item(record, clean, bool(first and first.get("correct")), lone))
    return items


def replay(items: list[Item], threshold: float | None) -> dict[str, Any]:
    """EX, calls and confidence when sure clean drafts stop at one call (None: as recorded)."""
    from groundsql.evaluation.folds import fold_of

    right, confident, calls, won, lost = [], [], [], [], []
    by_fold: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for item in items:
        record, least = item.record, (item.record.get("signals") or {}).get("draft_least")
        stop = threshold is not None and item.first_clean and least is not None and least >= threshold
        ok = item.first_right if stop else bool(record["correct"])
        score = item.lone_confidence if stop else (record.get("confidence") or 0.0)
        right.append(ok)
        confident.append((score >= 0.8, ok))
        calls.append(1 if stop else record["usage"]["llm_calls"])
        if ok != bool(record["correct"]):
            (won if ok else lost).append(record["id"])
            by_fold[fold_of(record["db_id"])][0 if ok else 1] += 1
    sure = [ok for high, ok in confident if high]
    return {"n": len(items), "right": sum(right), "won": won, "lost": lost, "by_fold": dict(sorted(by_fold.items())),
            "one_call": sum(1 for c in calls if c == 1) / len(calls), "calls": statistics.mean(calls),
            "median_calls": statistics.median(calls), "confident_share": len(sure) / len(items),
            "confident_right": sum(sure) / len(sure) if sure else 0.0}


def render(results: dict[str, dict[str, dict[str, Any]]], command: str, commit: str) -> str:
    lines = ["# auto's one-call stop for sure drafts, replayed on recorded answers", "",
             "![one-call share against EX per threshold](one_call.png)", "",
             f"`{command}` at `{commit}` (no model call). A threshold T: a clean first answer (ran, rows, no finding, no "
             "exact repair) whose draft had no token below log-probability T is the answer at one call; `recorded` "
             "is the run as it was. Won / lost: answers that the stop makes right / wrong against the recorded ones "
             "(ids).", "",
             "| run | T | EX | won | lost | won / lost by fold | one call | calls (mean / median) | conf ≥ 0.8: share / right |",
             "|---|---|---:|---|---|---|---:|---|---|"]
    for run, rows in results.items():
        for label, r in rows.items():
            folds = ", ".join(f"{fold}: {w}/{lo}" for fold, (w, lo) in r["by_fold"].items()) or "–"
            lines.append(
                f"| {run} | {label} | {r['right']} / {r['n']} ({100 * r['right'] / r['n']:.1f}%) | "
                f"{len(r['won'])}: {', '.join(map(str, r['won'])) or '–'} | "
                f"{len(r['lost'])}: {', '.join(map(str, r['lost'])) or '–'} | {folds} | {100 * r['one_call']:.0f}% | "
                f"{r['calls']:.2f} / {r['median_calls']:g} | {100 * r['confident_share']:.1f}% / "
                f"{100 * r['confident_right']:.1f}% |")
    return "\n".join(lines) + "\n"


def _plot(results: dict[str, dict[str, dict[str, Any]]], path: Path) -> None:
    """Per run: the share of questions answered at one call against EX, one point per threshold."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 4))
    for run, rows in results.items():
        xs = [100 * r["one_call"] for r in rows.values()]
        ys = [100 * r["right"] / r["n"] for r in rows.values()]
        ax.plot(xs, ys, marker="o", label=run)
        for label, x, y in zip(rows, xs, ys):
            ax.annotate(label, (x, y), textcoords="offset points", xytext=(3, 4), fontsize=7)
    ax.set_xlabel("questions answered at one call (%)")
    ax.set_ylabel("EX (%)")
    ax.set_title("sure drafts stopped at one call (replayed, no model)", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


NOTES_MARKER = "<!-- reading: written by hand, kept when the table above is regenerated -->"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", required=True, help="comma-separated SPLIT/LABEL@COMMIT folders of auto runs")
    parser.add_argument("--thresholds", default="-0.8", help="comma-separated log-probability thresholds")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    thresholds = [float(t) for t in args.thresholds.split(",") if t.strip()]
    results: dict[str, dict[str, dict[str, Any]]] = {}
    for run in args.runs.split(","):
        items = load(run)
        results[run] = {"recorded": replay(items, None)} | {f"{t:g}": replay(items, t) for t in thresholds}
    from provenance import current_commit

    commit = current_commit()
    command = "python benchmarks/one_call_replay.py " + shlex.join(argv if argv is not None else sys.argv[1:])
    text = render(results, command, commit)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    if args.out.exists() and NOTES_MARKER in args.out.read_text():
        text += "\n" + NOTES_MARKER + args.out.read_text().split(NOTES_MARKER, 1)[1]
    text = text.replace("\n\n\n", "\n\n")
    args.out.write_text(text)
    _plot(results, args.out.with_suffix(".png"))
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
