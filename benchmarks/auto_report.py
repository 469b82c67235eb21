"""The `auto` preset against the presets it is measured with: accuracy, cost, its decision paths and calibration.

Reads accuracy runs (no model call) and writes `auto.md` and a reliability diagram (`auto_calibration.png`):
EX, evaluated tokens (prompt tokens the model had to read, i.e. not served from its prefix cache, plus the
completion), model calls (mean and median) and wall time per question; the issue's targets; where auto's answers
came from; accuracy by confidence bucket; and the wrong answers that carry no flag (no warning and a confidence
at or above `abstain_below`).

    python benchmarks/auto_report.py --runs-dir benchmarks/results/auto/runs \\
        --auto auto__local_qwen2.5-coder-1.5b__n150_seed2026 --others refine__local_qwen2.5-coder-1.5b__n150_seed2026
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
RUNS = REPO / "benchmarks" / "results" / "auto" / "runs"
SUFFIX = "__local_qwen2.5-coder-1.5b__n150_seed2026"
BUCKETS = ((0.0, 0.2), (0.2, 0.4), (0.4, 0.6), (0.6, 0.8), (0.8, 1.01))
HIGH = 0.8  # the bar: answers this confident are right at least 92% of the time, holding ≥ 60%
NOTES_MARKER = "<!-- analysis: written by hand, kept when the tables above are regenerated -->"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--auto", default=f"auto{SUFFIX}", help="the auto run folder under --runs-dir")
    parser.add_argument("--others", default=f"baseline{SUFFIX},refine{SUFFIX},ssev{SUFFIX}",
                        help="comma-separated run folders to compare with, on the questions auto answered")
    parser.add_argument("--runs-dir", type=Path, default=RUNS)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "auto" / "auto.md")
    parser.add_argument("--commit", default="?", help="the commit the runs ran at, where run.json does not say")
    parser.add_argument("--abstain-below", type=float, default=None,
                        help="an answer below this confidence counts as flagged (default: auto's abstain_below)")
    args = parser.parse_args(argv)
    if args.abstain_below is None:
        from groundsql.pipelines.auto import AutoOptions

        args.abstain_below = AutoOptions().abstain_below
    auto = load(args.runs_dir / args.auto)
    if not auto:
        print(f"no records in {args.runs_dir / args.auto}", file=sys.stderr)
        return 2
    others = {name: load(args.runs_dir / name) for name in args.others.split(",") if name}
    lines = report(args, auto, {k: v for k, v in others.items() if v})
    kept = args.out.read_text().split(NOTES_MARKER, 1)[1] if args.out.exists() and NOTES_MARKER in \
        args.out.read_text() else "\n"
    args.out.write_text("\n".join(lines) + "\n\n" + NOTES_MARKER + kept)
    plot({"auto": auto, **{name.split("__")[0]: records for name, records in others.items() if records}},
         args.out.with_name("auto_calibration.png"))
    print("\n".join(lines))
    return 0


def load(folder: Path) -> list[dict[str, Any]]:
    path = folder / "results.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def commit_of(folder: Path, fallback: str = "?") -> str:
    """The commit a run ran at: run.json's, else the `# code: …` line accuracy.py writes into command.txt."""
    config = json.loads((folder / "run.json").read_text()) if (folder / "run.json").exists() else {}
    commit = config.get("commit") or config.get("code")
    if not commit and (folder / "command.txt").exists():
        lines = (folder / "command.txt").read_text().splitlines()
        commit = next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("# code:")), None)
    return str(commit or fallback)[:10]


def evaluated(record: dict[str, Any]) -> int:
    usage = record.get("usage") or {}
    prompt = usage.get("evaluated_prompt_tokens")
    if prompt is None:
        prompt = usage.get("prompt_tokens", 0) - usage.get("cached_prompt_tokens", 0)
    return int(prompt) + int(usage.get("completion_tokens", 0))


def stats(records: list[dict[str, Any]]) -> dict[str, float]:
    n = len(records)
    times = sorted(r["elapsed_s"] for r in records)
    calls = [r["usage"]["llm_calls"] for r in records]
    return {"n": n, "ex": 100 * sum(bool(r["correct"]) for r in records) / n,
            "evaluated": statistics.mean(evaluated(r) for r in records),
            "tokens": statistics.mean(r["usage"]["prompt_tokens"] + r["usage"]["completion_tokens"] for r in records),
            "calls": statistics.mean(calls), "calls_median": statistics.median(calls),
            "p50": statistics.median(times), "p90": times[int(0.9 * (n - 1))]}


def row(name: str, s: dict[str, float]) -> str:
    return (f"| {name} | {s['n']} | {s['ex']:.1f} | {s['evaluated']:.0f} | {s['tokens']:.0f} | {s['calls']:.2f} | "
            f"{s['calls_median']:.0f} | {s['p50']:.1f} | {s['p90']:.1f} |")


HEADER = ["| run | n | EX % | evaluated tokens/q | tokens sent/q | calls/q | median calls | p50 s | p90 s |",
          "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]


def report(args: argparse.Namespace, auto: list[dict[str, Any]], others: dict[str, list]) -> list[str]:
    ids = {r["id"] for r in auto}
    # Runs over fewer questions (a costly preset run with --limit) are compared on their own questions below.
    partial = {name: records for name, records in others.items() if len({r["id"] for r in records} & ids) < len(ids)}
    others = {name: records for name, records in others.items() if name not in partial}
    common = ids.intersection(*({r["id"] for r in records} for records in others.values())) if others else ids
    n = len(common)
    table = {name.split("__")[0]: stats([r for r in records if r["id"] in common]) for name, records in others.items()}
    table["auto"] = stats([r for r in auto if r["id"] in common])
    lines = ["# `auto`: two cheap framings, exact checks, more candidates only where unsure", "",
             f"The open Spider sample (seed 2026), embedded 1.5B model, the {n} questions every run below answered. "
             "*Evaluated tokens* are the prompt tokens the model had to read (not served from its prefix cache) plus "
             "the completion: what sets CPU time. Seconds are the pipeline's wall time on a 2-core machine.", "",
             f"Command: `python benchmarks/auto_report.py --runs-dir {args.runs_dir.relative_to(REPO)} --auto "
             f"{args.auto} --others {args.others}`; each run's own command is in its `command.txt`.", "",
             *HEADER]
    from provenance import check_row_commits

    headline = []
    for name, s in table.items():
        folder = args.runs_dir / (args.auto if name == "auto" else next(k for k in others if k.startswith(name)))
        commit = commit_of(folder, args.commit)
        headline.append((row(f"{name} (`{commit}`)", s), None if commit == "?" else commit))
    check_row_commits(headline)  # each row names its commit; refused if one ever does not
    lines += [text for text, _ in headline]
    for name, records in partial.items():
        shared = {r["id"] for r in records} & ids
        lines += ["", f"On the {len(shared)} questions `{name.split('__')[0]}` answered (`--limit`):", "", *HEADER]
        for label, runs in [(name.split("__")[0], records), *[(k.split("__")[0], v) for k, v in others.items()],
                            ("auto", auto)]:
            lines.append(row(label, stats([r for r in runs if r["id"] in shared])))
    a = table["auto"]
    lines += ["", "## Targets (issue: a default that answers fast and knows when it is right)", ""]
    ssev_name = next((name for name in partial if name.startswith("ssev")), None)
    if "refine" in table and "ssev" not in table and ssev_name:
        shared = {r["id"] for r in partial[ssev_name]} & ids
        ssev_ex = stats([r for r in partial[ssev_name] if r["id"] in shared])["ex"]
        auto_ex = stats([r for r in auto if r["id"] in shared])["ex"]
        lines += [f"- EX ≥ ssev + 1 on the {len(shared)} questions ssev ran: auto {auto_ex:.1f}, ssev {ssev_ex:.1f} — "
                  f"{'met' if auto_ex >= ssev_ex + 1 else 'not met'}."]
        table_ssev = None
    else:
        table_ssev = table.get("ssev")
    if "refine" in table:
        best = max(table["refine"]["ex"], table_ssev["ex"] if table_ssev else 0.0)
        lines += [f"- EX ≥ max(refine{', ssev' if table_ssev else ''}) + 1 = {best + 1:.1f}: auto {a['ex']:.1f} — "
                  f"{'met' if a['ex'] >= best + 1 else 'not met'}.",
                  f"- Evaluated tokens ≤ 1.5 × refine's ({1.5 * table['refine']['evaluated']:.0f}): auto "
                  f"{a['evaluated']:.0f} — {'met' if a['evaluated'] <= 1.5 * table['refine']['evaluated'] else 'not met'}.",
                  f"- Median model calls ≤ 2: {a['calls_median']:.0f} — {'met' if a['calls_median'] <= 2 else 'not met'}.",
                  f"- p90 wall time ≤ 2 × refine's ({2 * table['refine']['p90']:.1f} s): {a['p90']:.1f} s — "
                  f"{'met' if a['p90'] <= 2 * table['refine']['p90'] else 'not met'}."]
    mine = [r for r in auto if r["id"] in common]
    paths = Counter(tuple(r.get("auto_path", [])) for r in mine)
    lines += ["", "## Where the answers came from", "", "Decision paths (auto's trace notes, in order):", "",
              "| path | questions | right | mean calls |", "|---|---:|---:|---:|"]
    for path, count in paths.most_common():
        inside = [r for r in mine if tuple(r.get("auto_path", [])) == path]
        lines.append(f"| {' → '.join(path) or '–'} | {count} | {sum(bool(r['correct']) for r in inside)} | "
                     f"{statistics.mean(r['usage']['llm_calls'] for r in inside):.1f} |")
    stage_names = sorted({s for r in mine for s in r.get("stages", {})})
    if stage_names:
        lines += ["", "Accuracy had auto stopped after each stage (every stage's SQL is scored):", "",
                  "| stage | questions | right |", "|---|---:|---:|"]
        for stage in stage_names:
            inside = [r for r in mine if stage in r.get("stages", {})]
            right = sum(bool(r["stages"][stage]["correct"]) for r in inside)
            lines.append(f"| {stage} | {len(inside)} | {right} ({pct(right, len(inside))}) |")
    lines += ["", "## Calibration", "", "Accuracy by reported confidence (`auto_calibration.png` draws it for "
              "every run). A wrong answer has *no flag* when it carries no warning and a confidence of at least "
              f"{args.abstain_below} (auto's `abstain_below`).", "", "| run | confidence ≥ 0.8: answers (share) | "
              "right | wrong answers | wrong with no flag |", "|---|---:|---:|---:|---:|"]
    for name, records in [("auto", auto), *[(k.split("__")[0], v) for k, v in others.items()]]:
        inside = [r for r in records if r["id"] in common]
        confident = [r for r in inside if (r.get("confidence") or 0.0) >= HIGH]
        wrong = [r for r in inside if not r["correct"]]
        unflagged = [r for r in wrong if not r.get("warnings") and (r.get("confidence") or 0.0) >= args.abstain_below]
        right = sum(bool(r["correct"]) for r in confident)
        lines.append(f"| {name} | {len(confident)} ({pct(len(confident), len(inside))}) | "
                     f"{right} ({pct(right, len(confident))}) | {len(wrong)} | {len(unflagged)} |")
    lines += ["", "| auto's confidence | answers | right | accuracy % |", "|---|---:|---:|---:|"]
    for low, high in BUCKETS:
        inside = [r for r in mine if low <= (r.get("confidence") or 0.0) < high]
        right = sum(bool(r["correct"]) for r in inside)
        lines.append(f"| {low:.1f}–{min(high, 1.0):.1f} | {len(inside)} | {right} | {pct(right, len(inside))} |")
    return lines


def pct(part: float, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "–"


def plot(runs: dict[str, list[dict[str, Any]]], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4.5))
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey", label="perfectly calibrated")
    width = 0.18 / max(len(runs), 1)
    for index, (name, records) in enumerate(runs.items()):
        centres, accuracy, counts = [], [], []
        for low, high in BUCKETS:
            inside = [r for r in records if low <= (r.get("confidence") or 0.0) < high]
            if inside:
                centres.append((low + min(high, 1.0)) / 2 + (index - (len(runs) - 1) / 2) * width)
                accuracy.append(sum(bool(r["correct"]) for r in inside) / len(inside))
                counts.append(len(inside))
        ax.bar(centres, accuracy, width=width, alpha=0.75, label=name)
        for x, y, c in zip(centres, accuracy, counts):
            ax.annotate(str(c), (x, y), ha="center", va="bottom", fontsize=6)
    ax.set_xlabel("reported confidence (bars: answers per bucket above each)")
    ax.set_ylabel("share of answers right (Spider EX)")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.1)
    ax.set_title("Reliability: accuracy by confidence bucket (1.5B, open Spider)")
    ax.legend(loc="upper left", fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    sys.exit(main())
