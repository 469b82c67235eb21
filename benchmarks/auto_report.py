"""The `auto` preset against the presets it chooses between: accuracy, cost, escalation and calibration.

Reads committed accuracy runs (no model call) and writes `auto.md` and a reliability diagram
(`auto_calibration.png`): accuracy by confidence bucket, what escalation cost, and what abstaining would avoid.

    python benchmarks/auto_report.py     # after: python benchmarks/accuracy.py --presets auto
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RUNS = REPO / "benchmarks" / "results" / "accuracy_runs"
SUFFIX = "__local_qwen2.5-coder-1.5b__n150_seed2026"
BUCKETS = ((0.0, 0.2), (0.2, 0.4), (0.4, 0.6), (0.6, 0.8), (0.8, 1.01))
HIGH = 0.8  # the bar: answers this confident are right at least 95% of the time
ABSTAIN = 0.5  # auto's default abstain_below
NOTES_MARKER = "<!-- analysis: written by hand, kept when the tables above are regenerated -->"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--auto", default=f"auto{SUFFIX}", help="the auto run folder under --runs-dir")
    parser.add_argument("--others", default=f"baseline{SUFFIX},refine{SUFFIX},ssev{SUFFIX}",
                        help="comma-separated run folders to compare with, on the questions auto answered")
    parser.add_argument("--runs-dir", type=Path, default=RUNS)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "auto.md")
    args = parser.parse_args(argv)
    auto = load(args.runs_dir / args.auto)
    if not auto:
        print(f"no records in {args.runs_dir / args.auto}", file=sys.stderr)
        return 2
    ids = {r["id"] for r in auto}
    others = {name: [r for r in load(args.runs_dir / name) if r["id"] in ids] for name in args.others.split(",")}
    lines = report(args, auto, {k: v for k, v in others.items() if v})
    kept = args.out.read_text().split(NOTES_MARKER, 1)[1] if args.out.exists() and NOTES_MARKER in \
        args.out.read_text() else "\n"
    args.out.write_text("\n".join(lines) + "\n\n" + NOTES_MARKER + kept)
    plot(auto, args.out.with_name("auto_calibration.png"))
    print(f"wrote {args.out} and {args.out.with_name('auto_calibration.png')}")
    return 0


def load(folder: Path) -> list[dict[str, Any]]:
    path = folder / "results.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def label(folder: Path) -> str:
    """The preset, and whether its prompts carried the catalog context (runs made before it existed did not)."""
    config = json.loads((folder / "run.json").read_text())
    grounded = (config.get("settings") or {}).get("catalog_context", False)
    return f"{config['preset']} · {'catalog context' if grounded else 'no catalog context (before knowledge/)'}"


def row(name: str, records: list[dict[str, Any]], ids: set[int]) -> str:
    common = [r for r in records if r["id"] in ids]
    n = len(common)
    ex = 100 * sum(bool(r["correct"]) for r in common) / n
    tokens = [r["usage"]["prompt_tokens"] + r["usage"]["completion_tokens"] for r in common]
    calls = [r["usage"]["llm_calls"] for r in common]
    times = sorted(r["elapsed_s"] for r in common)
    return (f"| {name} | {n} | {ex:.1f} | {statistics.mean(tokens):.0f} | {statistics.mean(calls):.2f} | "
            f"{statistics.median(times):.1f} | {times[int(0.9 * (n - 1))]:.1f} |")


def report(args: argparse.Namespace, auto: list[dict[str, Any]], others: dict[str, list]) -> list[str]:
    ids = {r["id"] for r in auto}
    full = {name: records for name, records in others.items() if {r["id"] for r in records} >= ids}
    n = len(ids)
    mine = auto
    lines = ["# `auto`: cheap first, escalate when unsure", "",
             f"The open Spider sample (seed 2026), embedded 1.5B model, {n} questions. Tokens are prompt + "
             "completion per question (a prompt prefix the model had cached still counts); seconds are the "
             "pipeline's wall time.", "",
             f"Command: `python benchmarks/auto_report.py --auto {args.auto} --others {args.others}` (reads the "
             "committed runs in accuracy_runs/, each with its own command.txt).", "",
             "| run | n | EX % | tokens/q | calls/q | p50 s | p90 s |", "|---|---:|---:|---:|---:|---:|---:|"]
    lines += [row(label(args.runs_dir / name), records, ids) for name, records in full.items()]
    lines.append(row("auto", mine, ids))
    for name, records in others.items():
        if name in full:
            continue
        subset = {r["id"] for r in records}
        lines += ["", f"On the {len(subset)} questions of the `{label(args.runs_dir / name)}` run:", "",
                  "| run | n | EX % | tokens/q | calls/q | p50 s | p90 s |", "|---|---:|---:|---:|---:|---:|---:|"]
        lines += [row(label(args.runs_dir / other), rs, subset) for other, rs in others.items() if
                  {r["id"] for r in rs} >= subset]
        lines.append(row("auto", mine, subset))
    cheap = [r for r in mine if "cheap" in r.get("stages", {})]
    escalated = [r for r in mine if "escalate" in r.get("auto_path", [])]
    flagged = [r for r in mine if (r.get("confidence") or 0.0) < ABSTAIN]
    tokens = sum(r["usage"]["prompt_tokens"] + r["usage"]["completion_tokens"] for r in mine)
    lines += ["", "## Where the answers came from", "",
              f"- Cheap pass (the `refine` path with the sanity checks) alone: "
              f"{pct(sum(r['stages']['cheap']['correct'] for r in cheap), len(cheap))} EX on {len(cheap)} questions.",
              f"- Escalated to the `ssev` path: {len(escalated)} of {n} ({pct(len(escalated), n)}); right after "
              f"escalation {sum(bool(r['correct']) for r in escalated)} of {len(escalated)}; of those, right already "
              f"on the cheap pass {sum(r['stages']['cheap']['correct'] for r in escalated if 'cheap' in r['stages'])}.",
              f"- Kept cheap: {n - len(escalated)} questions, right {sum(bool(r['correct']) for r in mine if r not in escalated)}.",
              f"- Sanity-check repair rounds: {sum('sanity-repair' in r.get('auto_path', []) for r in mine)}; "
              f"answers returned with a warning: {sum(bool(r.get('warnings')) for r in mine)}."]
    if "ssev" + SUFFIX in full:
        ssev = [r for r in full["ssev" + SUFFIX] if r["id"] in ids]
        ssev_tokens = sum(r["usage"]["prompt_tokens"] + r["usage"]["completion_tokens"] for r in ssev)
        lines.append(f"- Tokens: `auto` spends {100 * tokens / ssev_tokens:.0f}% of `ssev`'s on the same questions "
                     "(target ≤ 60%).")
    reasons = Counter(tuple(r.get("auto_path", [])) for r in mine)
    lines += ["", "Decision paths (auto's trace notes, in order):", "", "| path | questions | right |",
              "|---|---:|---:|"]
    for path, count in reasons.most_common():
        right = sum(bool(r["correct"]) for r in mine if tuple(r.get("auto_path", [])) == path)
        lines.append(f"| {' → '.join(path) or '–'} | {count} | {right} |")
    lines += ["", "## Calibration", "", "Accuracy by the confidence `auto` reported (the reliability diagram is "
              "`auto_calibration.png`).", "", "| confidence | answers | right | accuracy % |", "|---|---:|---:|---:|"]
    for low, high in BUCKETS:
        inside = [r for r in mine if low <= (r.get("confidence") or 0.0) < high]
        right = sum(bool(r["correct"]) for r in inside)
        lines.append(f"| {low:.1f}–{min(high, 1.0):.1f} | {len(inside)} | {right} | {pct(right, len(inside))} |")
    confident = [r for r in mine if (r.get("confidence") or 0.0) >= HIGH]
    right_confident = sum(bool(r["correct"]) for r in confident)
    wrong_flagged = sum(not r["correct"] for r in flagged)
    lines += ["", f"- Confidence ≥ {HIGH}: {len(confident)} answers, right {pct(right_confident, len(confident))} "
              "(target ≥ 95%).",
              f"- Flagged low confidence (< {ABSTAIN}, auto's `abstain_below`): {len(flagged)} answers — "
              f"{wrong_flagged} wrong answers a user is warned about (or, with `--clarify`, not given), "
              f"{len(flagged) - wrong_flagged} right answers withheld or needlessly flagged.",
              f"- Wrong answers not flagged: {sum(not r['correct'] for r in mine) - wrong_flagged}."]
    return lines


def pct(part: float, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "–"


def plot(records: list[dict[str, Any]], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    centres, accuracy, counts = [], [], []
    for low, high in BUCKETS:
        inside = [r for r in records if low <= (r.get("confidence") or 0.0) < high]
        if inside:
            centres.append((low + min(high, 1.0)) / 2)
            accuracy.append(sum(bool(r["correct"]) for r in inside) / len(inside))
            counts.append(len(inside))
    fig, ax = plt.subplots(figsize=(5.5, 4.5))
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey", label="perfectly calibrated")
    ax.bar(centres, accuracy, width=0.18, alpha=0.7, label="auto (1.5B)")
    for x, y, c in zip(centres, accuracy, counts):
        ax.annotate(f"n={c}", (x, y), ha="center", va="bottom", fontsize=8)
    ax.set_xlabel("reported confidence")
    ax.set_ylabel("share of answers right (Spider EX)")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.05)
    ax.set_title("auto: accuracy by confidence bucket")
    ax.legend(loc="upper left")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    sys.exit(main())
