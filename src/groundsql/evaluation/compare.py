"""Put runs side by side: headline numbers and which questions each run alone got right."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from groundsql.errors import ConfigError
from groundsql.evaluation.report import run_label, summary_table
from groundsql.evaluation.results import load_run
from groundsql.evaluation.summary import summarize


def compare_runs(run_dirs: list[str | Path]) -> dict[str, Any]:
    """Compare runs on the questions they all answered.

    Returns:
        {"runs": [{label, dir, summary}], "common": n, "only": {label: [ids]}, "all_right": n, "all_wrong": n}
    """
    if len(run_dirs) < 2:
        raise ConfigError("compare needs at least two run directories")
    loaded = []
    for run_dir in run_dirs:
        config, records = load_run(run_dir)
        loaded.append((run_label(config, Path(run_dir).name), Path(run_dir), {str(r["id"]): r for r in records}))
    labels = _unique([label for label, _, _ in loaded])
    common = set.intersection(*(set(by_id) for _, _, by_id in loaded))
    order = [i for i in loaded[0][2] if i in common]
    runs, only = [], {}
    for label, (_, run_dir, by_id) in zip(labels, loaded):
        runs.append({"label": label, "dir": str(run_dir), "summary": summarize([by_id[i] for i in order])})
    for index, label in enumerate(labels):
        only[label] = [i for i in order if loaded[index][2][i].get("correct")
                       and not any(other[2][i].get("correct") for j, other in enumerate(loaded) if j != index)]
    return {
        "runs": runs,
        "common": len(order),
        "only": only,
        "all_right": sum(1 for i in order if all(run[2][i].get("correct") for run in loaded)),
        "all_wrong": sum(1 for i in order if not any(run[2][i].get("correct") for run in loaded)),
    }


def comparison_markdown(comparison: dict[str, Any]) -> str:
    """The comparison as Markdown: a table of runs, then per-question differences."""
    lines = [f"Compared on {comparison['common']} questions answered by every run.", ""]
    lines += summary_table([(run["label"], run["summary"]) for run in comparison["runs"]])
    lines += ["", f"All runs right: {comparison['all_right']}; all runs wrong: {comparison['all_wrong']}.", ""]
    for label, ids in comparison["only"].items():
        shown = ", ".join(ids[:50]) + (" …" if len(ids) > 50 else "")
        lines.append(f"- only **{label}** right ({len(ids)}): {shown or '—'}")
    return "\n".join(lines) + "\n"


def _unique(labels: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    result = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        result.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
    return result
