"""Prompt-prefix reuse: the same questions with the embedded model's state cache off and on.

Reads two directories of `benchmarks/accuracy.py` runs (one made with GROUNDSQL_PROMPT_CACHE_MB=0, one with the
default cache) and writes prompt_cache.md and prompt_cache.png: prompt tokens sent, served from the KV cache and
evaluated per question, wall time per question, ssev's time over baseline's, and whether the answers changed.

    GROUNDSQL_PROMPT_CACHE_MB=0 python benchmarks/accuracy.py --presets baseline --limit 30 \\
        --runs-dir benchmarks/results/prompt_cache/runs/off --results benchmarks/results/prompt_cache/runs/off
    python benchmarks/accuracy.py --presets baseline --limit 30 \\
        --runs-dir benchmarks/results/prompt_cache/runs/on --results benchmarks/results/prompt_cache/runs/on
    (the same for ssev), then: python benchmarks/prompt_cache.py
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RUNS = REPO / "benchmarks" / "results" / "prompt_cache" / "runs"
NOTES_MARKER = "<!-- analysis: written by hand, kept when the tables above are regenerated -->"


def load_records(run_dir: Path) -> dict[int, dict[str, Any]]:
    path = run_dir / "results.jsonl"
    if not path.exists():
        return {}
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {r["id"]: r for r in records}


def find_run(root: Path, preset: str) -> Path | None:
    runs = sorted(p for p in root.glob(f"{preset}__*") if p.is_dir())
    return runs[0] if runs else None


def measure(records: list[dict[str, Any]]) -> dict[str, float]:
    """Per-question means (and the median wall time) over `records`."""
    n = len(records)
    usage = [r.get("usage") or {} for r in records]
    prompt = sum(int(u.get("prompt_tokens", 0)) for u in usage) / n
    cached = sum(int(u.get("cached_prompt_tokens", 0)) for u in usage) / n
    wall = [float(r.get("elapsed_s") or 0.0) for r in records]
    return {"n": n, "ex": 100.0 * sum(1 for r in records if r.get("correct")) / n, "prompt": prompt,
            "cached": cached, "evaluated": prompt - cached,
            "completion": sum(int(u.get("completion_tokens", 0)) for u in usage) / n,
            "calls": sum(int(u.get("llm_calls", 0)) for u in usage) / n,
            "wall_mean": statistics.mean(wall), "wall_p50": statistics.median(wall)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=Path, default=RUNS, help="folder holding off/ and on/")
    parser.add_argument("--presets", default="baseline,ssev")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "prompt_cache" / "prompt_cache.md")
    args = parser.parse_args(argv)
    presets = [p.strip() for p in args.presets.split(",") if p.strip()]
    rows: dict[tuple[str, str], dict[str, float]] = {}
    changed: dict[str, tuple[int, int]] = {}
    commands: list[str] = []
    for preset in presets:
        runs = {mode: find_run(args.runs / mode, preset) for mode in ("off", "on")}
        if not all(runs.values()):
            print(f"{preset}: missing a run under {args.runs}/off or /on; skipped")
            continue
        records = {mode: load_records(run) for mode, run in runs.items() if run}
        # Each run's first question also loads the model (and, on a first use, joins its weights): left out.
        common = sorted(set(records["off"]) & set(records["on"]))[1:]
        if not common:
            continue
        for mode in ("off", "on"):
            rows[(preset, mode)] = measure([records[mode][i] for i in common])
            command = (runs[mode] / "command.txt").read_text(encoding="utf-8").splitlines()[0]  # type: ignore[operator]
            commands.append(command)
        same = sum(1 for i in common if records["off"][i].get("sql") == records["on"][i].get("sql"))
        changed[preset] = (same, len(common))
    if not rows:
        print("no runs to compare")
        return 1
    lines = ["# Prompt-prefix reuse on the embedded model", "",
             "The same questions with the prompt-prefix state cache off (`GROUNDSQL_PROMPT_CACHE_MB=0`: llama.cpp "
             "still reuses the previous call's prefix) and on (the default, 1024 MiB), embedded 1.5B model. "
             "Per-question means over the questions both runs answered, the first left out (it loads the model). "
             "*Evaluated* prompt tokens are the ones the model had to read: sent minus served from the KV cache.", "",
             "| preset | cache | n | EX % | prompt tokens sent | served from cache | evaluated | calls | "
             "wall mean s | wall p50 s |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for (preset, mode), m in rows.items():
        lines.append(f"| {preset} | {mode} | {m['n']} | {m['ex']:.1f} | {m['prompt']:.0f} | {m['cached']:.0f} | "
                     f"{m['evaluated']:.0f} | {m['calls']:.1f} | {m['wall_mean']:.1f} | {m['wall_p50']:.1f} |")
    lines.append("")
    if all((p, mode) in rows for p in ("baseline", "ssev") for mode in ("off", "on")):
        lines.append("| ssev / baseline wall time | mean | p50 |")
        lines.append("|---|---:|---:|")
        for mode in ("off", "on"):
            s, b = rows[("ssev", mode)], rows[("baseline", mode)]
            lines.append(f"| cache {mode} | {s['wall_mean'] / b['wall_mean']:.2f}× | "
                         f"{s['wall_p50'] / b['wall_p50']:.2f}× |")
        lines.append("")
    for preset, (same, total) in changed.items():
        lines.append(f"- {preset}: the same final SQL with the cache off and on on {same} of {total} questions.")
    lines += ["", "Commands:", "", "```", *commands, "python benchmarks/prompt_cache.py", "```", ""]
    image = args.out.with_suffix(".png")
    _plot(rows, image)
    lines.insert(2, f"![evaluated prompt tokens and wall time, cache off and on]({image.name})\n")
    text = "\n".join(lines)
    if args.out.exists() and NOTES_MARKER in args.out.read_text(encoding="utf-8"):
        text += "\n" + NOTES_MARKER + args.out.read_text(encoding="utf-8").split(NOTES_MARKER, 1)[1]
    args.out.write_text(text, encoding="utf-8")
    print(text)
    return 0


def _plot(rows: dict[tuple[str, str], dict[str, float]], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    presets = sorted({p for p, _ in rows}, key=lambda p: (p != "baseline", p))
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    width = 0.38
    for offset, mode in ((-width / 2, "off"), (width / 2, "on")):
        xs = [i + offset for i in range(len(presets))]
        axes[0].bar(xs, [rows.get((p, mode), {}).get("evaluated", 0) for p in presets], width, label=f"cache {mode}")
        axes[1].bar(xs, [rows.get((p, mode), {}).get("wall_mean", 0) for p in presets], width, label=f"cache {mode}")
    for ax, title in zip(axes, ("prompt tokens evaluated / question", "wall time / question (s)")):
        ax.set_xticks(range(len(presets)), presets)
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    raise SystemExit(main())
