"""Fit the confidence model on recorded answers and report how well it separates right from wrong (no model).

Reads evaluation runs whose records carry the calibration signals (`signals`, written by `groundsql eval` for
`auto` and for every preset whose confidence comes from `selection.review`), rebuilds each answer's features
(`selection.calibration.features`; the literal counts and the complexity are read again from the recorded SQL, so
runs made before those signals existed fit too) and fits an L2-regularised logistic regression of "the answer is
right" on them.

Reported, on predictions for each database made by a fit that never saw it (leave one database out): the
reliability by confidence bin, the share of answers at ≥ 0.8 and how many of them are right, and the wrong answers
that carry no flag (no warning and a confidence at or above auto's `abstain_below`) — beside the same figures for
the confidence the run recorded. `--check` adds runs the fit never sees (the held-out dev split), each with its
recorded confidence and the fit's. With `--write`, the weights fitted on all the records replace `calibration_weights.json`.

    python benchmarks/calibration_fit.py --runs benchmarks/results/auto/runs_4c24895/auto__...,.../refine__... \
        [--check RUN,...] [--write] [--out benchmarks/results/calibration/calibration.md]
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from dataclasses import fields
from datetime import date
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
HIGH = 0.8
BINS = (0.0, 0.3, 0.5, 0.65, 0.8, 0.9, 1.0001)
#: Weights not fitted: the records carry the final signals, and two diverse cheap candidates that disagree are
#: always escalated, so a final answer almost never carries a disagreement (3 of 150 in the round-3 auto run).
#: The cheap answer of the questions escalated is right about half the time (19 of 40, same run): logit 0.5 ≈
#: bias + disagree.
FIXED = {"disagree": -2.0}
RIDGE = 5.0  # the L2 penalty on every weight but the bias (1 and 20 measured no better held out)
#: The sign each weight must have: a signal of trouble never raises the confidence. A fit on one preset's answers
#: can otherwise learn the preset's policy instead of the signal (auto escalates nearly every answer with a finding
#: or an empty result, so among the answers it keeps those look no worse); a weight with the wrong sign is set to 0
#: and the rest refitted.
SIGNS = {"agree": 1, "supported": 1, "draft_sure": 1, "escalated": -1, "findings": -1, "complex": -1, "joined": -1,
         "string_literal": -1, "unsaid_literal": -1, "empty": -1, "number_literal": -1, "repaired": -1}
NOTES_MARKER = "<!-- reading: written by hand, kept when the tables above are regenerated -->"


def load(runs: list[Path]) -> list[dict]:
    """Records with SQL and signals; each with its features, its run's name and its database."""
    from groundsql.selection.calibration import Signals, features, query_signals

    names = {f.name for f in fields(Signals)}
    rows = []
    for run in runs:
        for line in (run / "results.jsonl").read_text().splitlines():
            record = json.loads(line) if line.strip() else None
            if not record or record.get("correct") is None or record.get("pipeline_error") \
                    or "ran" not in record.get("signals", {}):
                continue
            signals = {k: v for k, v in record["signals"].items() if k in names}
            signals |= query_signals(record.get("sql") or "", record["question"])
            if "escalated" not in record["signals"]:  # runs recorded before the signal: read auto's path
                signals["escalated"] = any(step.startswith("escalate") for step in record.get("auto_path") or [])
            signal = Signals(**signals)
            rows.append({"run": run.name.split("__")[0], "db": record["db_id"], "id": record["id"],
                         "correct": bool(record["correct"]), "recorded": record.get("confidence"),
                         "warned": bool(record.get("warnings")), "signals": signal,
                         "features": features(signal), "usable": signal.ran})
    return rows


def fit(x: np.ndarray, y: np.ndarray, ridge: float = RIDGE) -> np.ndarray:
    """Logistic regression by Newton's method; column 0 is the bias (not penalised)."""
    w = np.zeros(x.shape[1])
    penalty = np.full(x.shape[1], ridge)
    penalty[0] = 0.0
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-x @ w))
        gradient = x.T @ (p - y) + penalty * w
        hessian = (x.T * (p * (1 - p))) @ x + np.diag(penalty) + 1e-9 * np.eye(x.shape[1])
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def predict(rows: list[dict], weights: dict[str, float]) -> list[float]:
    """The confidence `selection.calibration.confidence` gives each row under `weights`."""
    from groundsql.selection.calibration import confidence

    return [confidence(row["signals"], weights) for row in rows]


def matrix(rows: list[dict], names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    usable = [r for r in rows if r["usable"]]
    x = np.array([[1.0] + [r["features"][n] for n in names] for r in usable])
    y = np.array([float(r["correct"]) for r in usable])
    return x, y


def fitted_weights(rows: list[dict], names: list[str]) -> dict[str, float]:
    """The fit, with every weight of the wrong sign (`SIGNS`) set to 0 and the others refitted without it."""
    free = [n for n in names if n not in FIXED]
    zeroed: list[str] = []
    while True:
        x, y = matrix(rows, free)
        w = fit(x, y)
        wrong = [n for n, v in zip(free, w[1:]) if SIGNS.get(n, 0) * v < 0]
        if not wrong:
            break
        zeroed += wrong
        free = [n for n in free if n not in wrong]
    return ({"bias": round(float(w[0]), 4)} | {n: round(float(v), 4) for n, v in zip(free, w[1:])}
            | dict.fromkeys(zeroed, 0.0) | FIXED)


def held_out(rows: list[dict], names: list[str]) -> list[float]:
    """Each database's confidences from a fit on the other databases (the fit never sees the database)."""
    out = [0.0] * len(rows)
    for db in sorted({r["db"] for r in rows}):
        train = [r for r in rows if r["db"] != db]
        weights = fitted_weights(train, names)
        index = [i for i, r in enumerate(rows) if r["db"] == db]
        for i, p in zip(index, predict([rows[i] for i in index], weights)):
            out[i] = p
    return out


def abstain_below() -> float:
    """auto's flag threshold: an answer below it carries a low-confidence flag."""
    from groundsql.pipelines.auto import AutoOptions

    return AutoOptions().abstain_below


def summary(rows: list[dict], scores: list[float]) -> dict:
    high = [r for r, s in zip(rows, scores) if s >= HIGH]
    brier = sum((s - r["correct"]) ** 2 for r, s in zip(rows, scores)) / max(len(rows), 1)
    wrong = [(r, s) for r, s in zip(rows, scores) if not r["correct"]]
    return {"n": len(rows), "right": sum(r["correct"] for r in rows), "high": len(high),
            "high_right": sum(r["correct"] for r in high),
            "unflagged_wrong": sum(1 for r, s in wrong if s >= abstain_below() and not r["warned"]), "brier": brier,
            "bins": [(lo, hi, [r["correct"] for r, s in zip(rows, scores) if lo <= s < hi])
                     for lo, hi in zip(BINS, BINS[1:])]}


def pct(a: int, b: int) -> str:
    return f"{100 * a / b:.1f}%" if b else "–"


def render(groups: dict[str, dict[str, dict]], weights: dict[str, float], command: str, commit: str,
           runs: list[Path]) -> str:
    lines = ["# Confidence: the calibration fit", "",
             "The confidence every preset reports is a logistic model of exact signals "
             "(`groundsql/selection/calibration.py`); its weights are fitted here on the recorded answers of the runs "
             "below (since round 4: `auto` on a sample of Spider's training databases, disjoint from the dev split "
             "the generalization benchmark reports on), and judged on predictions for each database from a fit that left that database out "
             "(*held out*). *Recorded* is the confidence the run itself reported (the code it ran with). "
             f"*Unflagged wrong*: wrong answers with no warning and a confidence ≥ {abstain_below()} (auto's "
             "`abstain_below`). Brier: the mean squared distance between the confidence and the verdict (lower is better).", "",
             f"Command: `{command}` (code at commit `{commit}`); runs: "
             + ", ".join(f"`{r.relative_to(REPO) if r.is_relative_to(REPO) else r}`" for r in runs), "",
             "| run | confidence | answers | right | ≥ 0.8 (share) | right at ≥ 0.8 | unflagged wrong | Brier |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for run, kinds in groups.items():
        for kind, s in kinds.items():
            lines.append(f"| {run} | {kind} | {s['n']} | {pct(s['right'], s['n'])} | {s['high']} "
                         f"({pct(s['high'], s['n'])}) | {s['high_right']} ({pct(s['high_right'], s['high'])}) | "
                         f"{s['unflagged_wrong']} | {s['brier']:.3f} |")
    lines += ["", "## Reliability (held out, all runs together)", "", "| confidence | answers | right |",
              "|---|---:|---:|"]
    together = groups["all"]["held out"]
    for lo, hi, members in together["bins"]:
        lines.append(f"| {lo:.2f}–{min(hi, 1.0):.2f} | {len(members)} | {pct(sum(members), len(members))} |")
    lines += ["", "## Weights (fitted on every record; `calibration_weights.json`)", "", "| feature | weight |",
              "|---|---:|"]
    lines += [f"| {name} | {value:+.3f} |" for name, value in weights.items()]
    lines += ["", "![reliability](calibration.png)", ""]
    return "\n".join(lines)


def plot(groups: dict[str, dict[str, dict]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 5))
    ax.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=1, label="perfect calibration")
    for kind, marker in (("recorded", "s"), ("fitted (in sample)", "^"), ("held out", "o")):
        s = groups["all"][kind]
        xs, ys, sizes = [], [], []
        for lo, hi, members in s["bins"]:
            if members:
                xs.append((lo + min(hi, 1.0)) / 2)
                ys.append(sum(members) / len(members))
                sizes.append(20 + 4 * len(members))
        ax.scatter(xs, ys, s=sizes, marker=marker, alpha=0.7, label=f"{kind}")
        ax.plot(xs, ys, alpha=0.5)
    ax.set_xlabel("reported confidence (bin centre)")
    ax.set_ylabel("share of answers right")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.05)
    ax.set_title("Confidence reliability (marker area ~ answers)")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    from groundsql.selection.calibration import WEIGHTS_FILE

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", required=True, help="comma-separated evaluation run folders")
    parser.add_argument("--check", default="", help="comma-separated run folders the fit never sees (the held-out "
                        "dev split): each is reported with its recorded confidence and the fit's")
    parser.add_argument("--write", action="store_true", help="replace calibration_weights.json with the fit")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "calibration" / "calibration.md")
    args = parser.parse_args(argv)
    runs = [Path(r).resolve() for r in args.runs.split(",") if r]
    rows = load(runs)
    if not rows:
        print("no records with signals in those runs", file=sys.stderr)
        return 1
    names = list(rows[0]["features"])
    weights = fitted_weights(rows, names)
    out_of_db = held_out(rows, names)
    in_sample = predict(rows, weights)
    groups: dict[str, dict[str, dict]] = {}
    for run in sorted({r["run"] for r in rows}) + ["all"]:
        index = [i for i, r in enumerate(rows) if run in ("all", r["run"])]
        chosen = [rows[i] for i in index]
        groups[run] = {"recorded": summary(chosen, [rows[i]["recorded"] or 0.0 for i in index]),
                       "fitted (in sample)": summary(chosen, [in_sample[i] for i in index]),
                       "held out": summary(chosen, [out_of_db[i] for i in index])}
    checked = [Path(r).resolve() for r in args.check.split(",") if r]
    for run in checked:
        unseen = load([run])
        groups[f"{run.name} (not fitted)"] = {"recorded": summary(unseen, [r["recorded"] or 0.0 for r in unseen]),
                                             "fitted": summary(unseen, predict(unseen, weights))}
    from provenance import current_commit

    commit = current_commit()  # the entry point's label, else HEAD (-dirty when tracked files differ)
    command = "python benchmarks/calibration_fit.py " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    notes = ""
    if args.out.exists() and NOTES_MARKER in args.out.read_text():
        notes = args.out.read_text().split(NOTES_MARKER, 1)[1]
    args.out.write_text(render(groups, weights, command, commit, runs + checked) + "\n" + NOTES_MARKER + notes)
    plot(groups, args.out.with_suffix(".png"))
    for run, kinds in groups.items():
        for kind, s in kinds.items():
            print(f"{run:10} {kind:9} n={s['n']} right={pct(s['right'], s['n'])} high={s['high']} "
                  f"({pct(s['high'], s['n'])}) right@high={pct(s['high_right'], s['high'])} "
                  f"unflagged_wrong={s['unflagged_wrong']} brier={s['brier']:.3f}")
    print(json.dumps(weights))
    if args.write:
        WEIGHTS_FILE.write_text(json.dumps({"fitted": str(date.today()), "commit": commit,
                                            "runs": [r.name for r in runs], "records": len(rows),
                                            "weights": weights}, indent=2) + "\n")
        print(f"wrote {WEIGHTS_FILE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
