"""A suite's run history and the regression view: this run against the previous one, question by question.

Runs of a suite go to numbered directories beside it (``shop.json`` → ``shop.runs/001-baseline-…/``), so "the
previous run" is simply the one before. The comparison lists the questions a run fixed (wrong before, right now)
and broke (right before, wrong now), and puts accuracy, cost and latency side by side on the questions both
runs scored.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from groundsql.evaluation.results import CONFIG_FILE, RESULTS_FILE, SUMMARY_FILE, load_run, read_config
from groundsql.evaluation.summary import percentile

_NUMBERED = re.compile(r"^(\d+)-")


def history_dir(suite: str | Path) -> Path:
    """The folder holding a suite's runs: ``<suite stem>.runs`` beside the suite file."""
    suite = Path(suite)
    return suite.with_name(suite.stem + ".runs")


def suite_runs(suite: str | Path) -> list[Path]:
    """The suite's run directories, oldest first (those with a run.json)."""
    folder = history_dir(suite)
    if not folder.is_dir():
        return []
    found = [(int(m.group(1)), d) for d in folder.iterdir()
             if d.is_dir() and (m := _NUMBERED.match(d.name)) and (d / CONFIG_FILE).is_file()]
    return [d for _, d in sorted(found)]


def next_run_dir(suite: str | Path, preset: str, model: str) -> Path:
    """A new numbered run directory for the suite (not created): ``NNN-<preset>-<model>``."""
    folder = history_dir(suite)
    numbers = [int(m.group(1)) for d in folder.iterdir() if (m := _NUMBERED.match(d.name))] \
        if folder.is_dir() else []
    slug = re.sub(r"[^A-Za-z0-9.-]+", "_", "-".join(p for p in (preset, model) if p)).strip("_")[:60]
    return folder / f"{max(numbers, default=0) + 1:03d}-{slug}"


def previous_run(suite: str | Path, current: str | Path | None = None) -> Path | None:
    """The run of the suite before `current` (the latest one when `current` is not in its history)."""
    runs = suite_runs(suite)
    if current is not None:
        current = Path(current).resolve()
        resolved = [r.resolve() for r in runs]
        if current in resolved:
            runs = runs[:resolved.index(current)]
    return runs[-1] if runs else None


def compare_with(previous_dir: str | Path, records: list[dict[str, Any]]) -> dict[str, Any]:
    """This run's `records` against the run in `previous_dir`, on the questions both scored.

    Returns:
        {"previous": {dir, label, n, correct}, "common", "fixed": [{id, question}], "broken": [...],
        "still_right", "still_wrong", "new": [ids], "excluded": [ids], "cost": {metric: {before, after}}}
    """
    previous_dir = Path(previous_dir)
    config, before_records = load_run(previous_dir)
    before = {str(r["id"]): r for r in before_records if not r.get("excluded")}
    now = {str(r["id"]): r for r in records if not r.get("excluded")}
    common = [i for i in now if i in before]
    fixed = [i for i in common if now[i].get("correct") and not before[i].get("correct")]
    broken = [i for i in common if before[i].get("correct") and not now[i].get("correct")]

    def entry(i: str) -> dict[str, Any]:
        return {"id": i, "question": now[i].get("question"), "sql_before": before[i].get("sql"),
                "sql_now": now[i].get("sql")}

    return {
        "previous": {"dir": str(previous_dir), "name": previous_dir.name, "label": _label(config),
                     "n": len(before), "correct": sum(1 for r in before.values() if r.get("correct"))},
        "common": len(common),
        "fixed": [entry(i) for i in fixed],
        "broken": [entry(i) for i in broken],
        "still_right": sum(1 for i in common if now[i].get("correct") and before[i].get("correct")),
        "still_wrong": sum(1 for i in common if not now[i].get("correct") and not before[i].get("correct")),
        "new": [i for i in now if i not in before],
        "excluded": [str(r["id"]) for r in records if r.get("excluded")],
        "cost": _cost([before[i] for i in common], [now[i] for i in common]),
    }


def add_regression(summary: dict[str, Any], config: dict[str, Any], records: list[dict[str, Any]]) -> None:
    """Put the comparison with the run named in `config["previous_run"]` (when there is one) into `summary`."""
    previous = config.get("previous_run")
    if previous and (Path(previous) / RESULTS_FILE).is_file():
        summary["regression"] = compare_with(previous, records)


def regression_markdown(regression: dict[str, Any]) -> list[str]:
    """The comparison as Markdown lines: counts, fixed and broken questions, cost and latency before and after."""
    previous = regression["previous"]
    lines = [f"Against the previous run `{previous['name']}` ({previous['label']}), on the "
             f"{regression['common']} questions both scored: **{len(regression['fixed'])} fixed**, "
             f"**{len(regression['broken'])} broken**, {regression['still_right']} still right, "
             f"{regression['still_wrong']} still wrong."]
    if regression["new"]:
        lines.append(f"New since then (not compared): {', '.join(regression['new'])}.")
    for kind in ("fixed", "broken"):
        if regression[kind]:
            lines += ["", f"{kind.capitalize()}:", ""]
            lines += [f"- `{e['id']}` {e['question']}" for e in regression[kind]]
    cost = regression["cost"]
    lines += ["", "| on the common questions | before | now |", "|---|---:|---:|"]
    for key, label in (("ex", "EX %"), ("tokens_per_question", "tokens / question"),
                       ("llm_calls_per_question", "model calls / question"), ("latency_mean_s", "latency mean s"),
                       ("latency_p90_s", "latency p90 s")):
        lines.append(f"| {label} | {cost[key]['before']} | {cost[key]['now']} |")
    return lines


def suite_overview(suite: str | Path, *, questions: bool = True) -> dict[str, Any]:
    """What the web UI shows of a suite: its questions, every run's headline numbers, the latest run's answers
    per question and its comparison with the run before."""
    suite = Path(suite)
    data = json.loads(suite.read_text(encoding="utf-8"))
    runs = []
    for run_dir in suite_runs(suite):
        config = read_config(run_dir / CONFIG_FILE)
        summary_path = run_dir / SUMMARY_FILE
        summary = json.loads(summary_path.read_text(encoding="utf-8")) if summary_path.is_file() else {}
        runs.append({"name": run_dir.name, "preset": config.get("preset"), "model": config.get("model"),
                     "started": config.get("started"), "n": summary.get("n"), "correct": summary.get("correct"),
                     "ex": summary.get("ex"), "excluded": (summary.get("excluded") or {}).get("n", 0),
                     "latency_mean_s": (summary.get("latency_s") or {}).get("mean"),
                     "tokens_per_question": _tokens(summary), "database_changed":
                     bool((config.get("suite") or {}).get("database_changes"))})
    overview: dict[str, Any] = {
        "path": str(suite), "name": data.get("name"), "database": data.get("database"),
        "dialect": data.get("dialect"), "built_at": data.get("built_at"), "questions": len(data["questions"]),
        "skipped": len(data.get("skipped") or []), "runs": runs, "latest": None, "regression": None}
    if runs:
        latest_dir = suite_runs(suite)[-1]
        config, records = load_run(latest_dir)
        summary_path = latest_dir / SUMMARY_FILE
        summary = json.loads(summary_path.read_text(encoding="utf-8")) if summary_path.is_file() else {}
        if questions:
            overview["latest"] = {"name": latest_dir.name, "preset": config.get("preset"),
                                  "model": config.get("model"), "suite": config.get("suite"),
                                  "leave_one_out": summary.get("leave_one_out"), "answers": [
                                      {"id": r["id"], "question": r.get("question"), "correct": r.get("correct"),
                                       "excluded": r.get("excluded"), "sql": r.get("sql"), "error": r.get("error"),
                                       "elapsed_s": r.get("elapsed_s"),
                                       "tokens": sum(int((r.get("usage") or {}).get(k, 0))
                                                     for k in ("prompt_tokens", "completion_tokens"))}
                                      for r in records]}
        regression = summary.get("regression")
        if regression is None and config.get("previous_run"):
            regression = compare_with(config["previous_run"], records) \
                if (Path(config["previous_run"]) / RESULTS_FILE).is_file() else None
        overview["regression"] = regression
    return overview


def _label(config: dict[str, Any]) -> str:
    if config.get("stage") == "score":
        return f"predictions:{Path(str(config.get('predictions'))).name}"
    return " · ".join(str(p) for p in (config.get("preset"), config.get("model")) if p) or "run"


def _cost(before: list[dict[str, Any]], now: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    def measures(records: list[dict[str, Any]]) -> dict[str, float]:
        n = len(records) or 1
        latencies = [float(r.get("elapsed_s") or 0.0) for r in records]
        return {
            "ex": round(100.0 * sum(1 for r in records if r.get("correct")) / n, 1),
            "tokens_per_question": round(sum(int((r.get("usage") or {}).get(k, 0)) for r in records
                                             for k in ("prompt_tokens", "completion_tokens")) / n, 1),
            "llm_calls_per_question": round(sum(int((r.get("usage") or {}).get("llm_calls", 0))
                                                for r in records) / n, 2),
            "latency_mean_s": round(sum(latencies) / n, 3),
            "latency_p90_s": round(percentile(latencies, 90), 3),
        }

    first, second = measures(before), measures(now)
    return {key: {"before": first[key], "now": second[key]} for key in first}


def _tokens(summary: dict[str, Any]) -> float | None:
    per_question = (summary.get("usage") or {}).get("per_question")
    if not per_question:
        return None
    return round(per_question.get("prompt_tokens", 0) + per_question.get("completion_tokens", 0), 1)
