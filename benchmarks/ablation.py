"""One ablation table per seed preset: one row per switch, on the same questions, beside one call and refine.

The runs live under `benchmarks/results/ablation/runs/<preset>/<row>@<commit>/` (a `groundsql eval` folder each,
made with `benchmarks/pinned.py` so every row of a table runs the same commit; `default` is the preset at its
defaults, any other row names the one option it changes, `task_ledger-false` for `--option task_ledger=false`).
`runs/baseline/` and `runs/refine/` hold the one-call and refine references on the same questions. This script
only reads them and writes `ablation.md` and `ablation.png`:

    python benchmarks/ablation.py              # every preset folder under runs/
    python benchmarks/ablation.py --presets agentnlq,recap   # rewrite these tables, keep the others as they are

A row covers the questions it has answered so far; every comparison in a table is on the questions all its rows
answered. A stopped row resumes with the command in its `command.txt`.
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import sys
from pathlib import Path
from typing import Any

from groundsql.evaluation.summary import percentile

REPO = Path(__file__).resolve().parents[1]
ROOT = REPO / "benchmarks" / "results" / "ablation"
REFERENCES = ("baseline", "refine")
NOTES_MARKER = "<!-- reading: written by hand, kept when the tables above are regenerated -->"


def load_rows(preset_dir: Path) -> dict[str, dict[int, dict[str, Any]]]:
    """Row label (`default`, `task_ledger-false@66d64fe`, …) → question id → its record."""
    rows = {}
    for run in sorted(preset_dir.iterdir()):
        results = run / "results.jsonl"
        if run.is_dir() and results.exists():
            records = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
            rows[run.name] = {r["id"]: r for r in records}
    return dict(sorted(rows.items(), key=lambda item: (not item[0].startswith("default@"), item[0])))


def summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    seconds = [r.get("elapsed_s") or 0.0 for r in records]
    return {"n": len(records), "right": sum(bool(r["correct"]) for r in records),
            "calls": statistics.mean(r["usage"]["llm_calls"] for r in records) if records else 0.0,
            "evaluated": statistics.mean(r["usage"].get("evaluated_prompt_tokens", 0) for r in records)
            if records else 0.0,
            "generated": statistics.mean(r["usage"].get("completion_tokens", 0) for r in records) if records else 0.0,
            "p50": percentile(seconds, 50), "p90": percentile(seconds, 90)}


def diff(rows: dict[int, dict[str, Any]], against: dict[int, dict[str, Any]], ids: list[int]) -> tuple[list, list]:
    won = [i for i in ids if rows[i]["correct"] and not against[i]["correct"]]
    lost = [i for i in ids if not rows[i]["correct"] and against[i]["correct"]]
    return won, lost


def table(preset: str, rows: dict[str, dict[int, dict[str, Any]]],
          references: dict[str, dict[str, dict[int, dict[str, Any]]]]) -> tuple[list[str], dict[str, int]]:
    """The Markdown lines of one preset's table and the right answers per row (for the plot)."""
    everything = {**rows, **{f"{name} ({label})": recs for name, ref in references.items()
                             for label, recs in ref.items()}}
    ids = sorted(set.intersection(*(set(r) for r in everything.values()))) if everything else []
    default = next((label for label in rows if label.startswith("default@")), None)
    baseline = next((label for label in everything if label.startswith("baseline (")), None)
    lines = [f"## {preset}", "", f"{len(ids)} questions every row answered: {', '.join(map(str, ids)) or '–'}.", "",
             "| row | right | against the default: won / lost | against one call: won / lost | calls | evaluated prompt "
             "tok | generated tok | p50 / p90 s |", "|---|---:|---|---|---:|---:|---:|---|"]
    right = {}
    for label, records in everything.items():
        s = summary([records[i] for i in ids])
        right[label] = s["right"]
        versus = []
        for other in (default, baseline):
            if other is None or other == label:
                versus.append("–")
                continue
            won, lost = diff(records, everything[other], ids)
            versus.append(f"{len(won)} / {len(lost)}" + (f" ({', '.join(f'+{i}' for i in won)}"
                                                        f"{', ' if won and lost else ''}"
                                                        f"{', '.join(f'−{i}' for i in lost)})" if won or lost else ""))
        lines.append(f"| {label} | {s['right']} / {s['n']} | {versus[0]} | {versus[1]} | {s['calls']:.1f} | "
                     f"{s['evaluated']:.0f} | {s['generated']:.0f} | {s['p50']:.0f} / {s['p90']:.0f} |")
    return lines + [""], right


def _tables_in(text: str) -> dict[str, list[str]]:
    """Preset → the lines of its table as `text` (an earlier ablation.md) has them, from its `## preset` heading
    to the next heading."""
    tables: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("## "):
            current = tables.setdefault(line[3:].strip(), [])
        if current is not None:
            current.append(line)
    return tables


def _plot(right: dict[str, dict[str, int]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [(preset, row) for preset, rows in right.items() for row in rows]
    fig, ax = plt.subplots(figsize=(7.5, 0.9 + 0.32 * len(labels)))
    ax.barh(range(len(labels)), [right[p][r] for p, r in labels],
            color=["#4c72b0" if r.startswith("default@") else "#999999" if "(" in r else "#dd8452"
                   for _, r in labels])
    ax.set_yticks(range(len(labels)), [f"{p}: {r}" for p, r in labels], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("right answers on the table's shared questions")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", default="",
                        help="comma-separated preset folders whose tables are rewritten; the other tables of "
                             "ablation.md stay as they are (default: every folder but the references)")
    parser.add_argument("--root", type=Path, default=ROOT)
    args = parser.parse_args(argv)
    runs = args.root / "runs"
    every = sorted(d.name for d in runs.iterdir() if d.is_dir() and d.name not in REFERENCES)
    chosen = [p for p in args.presets.split(",") if p] or every
    out = args.root / "ablation.md"
    previous = _tables_in(out.read_text().split(NOTES_MARKER, 1)[0]) if out.exists() else {}
    unknown = [p for p in chosen if p not in every]
    if unknown:
        parser.error(f"no run folder for {', '.join(unknown)} under {runs} (there are: {', '.join(every)})")
    presets = [p for p in every if p in chosen or p in previous]
    references = {name: load_rows(runs / name) for name in REFERENCES if (runs / name).is_dir()}
    command = "python benchmarks/ablation.py " + shlex.join(argv if argv is not None else sys.argv[1:])
    lines = ["# Ablations of the seed presets, one row per switch", "", "![right answers per row](ablation.png)", "",
             f"Written by `{command.strip()}` from the run folders under `runs/` (each row's `command.txt` holds "
             "the command and commit that made it). Won / lost list the question ids (open Spider dev split) a row "
             "answers right where the other is wrong (+) and the reverse (−). Rows that share a reply store replay "
             "the calls they share with an earlier row, so their p50 / p90 are not a user's wait.", ""]
    plotted = {}
    for preset in presets:
        rows = load_rows(runs / preset)
        if not rows:
            continue
        body, plotted[preset] = table(preset, rows, references)
        lines += body if preset in chosen or preset not in previous else previous[preset]
    text = "\n".join(lines)
    if out.exists() and NOTES_MARKER in out.read_text():
        text += "\n" + NOTES_MARKER + out.read_text().split(NOTES_MARKER, 1)[1]
    out.write_text(text if text.endswith("\n") else text + "\n")
    _plot(plotted, args.root / "ablation.png")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
