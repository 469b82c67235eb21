"""Aggregate per-question records into the `summary.json` contract."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from groundsql.evaluation.hardness import LEVELS
from groundsql.evaluation.scoring import FAILURES

BIRD_LEVELS = ("simple", "moderate", "challenging")
USAGE_KEYS = ("prompt_tokens", "completion_tokens", "llm_calls", "db_queries", "cached_prompt_tokens",
              "evaluated_prompt_tokens")
LINK_METRICS = ("srr", "nsr", "nsp", "nsf")


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) by linear interpolation between closest ranks."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _pct(numerator: float, denominator: int) -> float:
    return round(100.0 * numerator / denominator, 2) if denominator else 0.0


def usage_value(record: dict[str, Any], key: str) -> int:
    """One usage count of a record; evaluated prompt tokens are derived for records written before they were kept."""
    usage = record.get("usage") or {}
    if key == "evaluated_prompt_tokens" and key not in usage:
        return int(usage.get("prompt_tokens", 0)) - int(usage.get("cached_prompt_tokens", 0))
    return int(usage.get(key, 0))


def summarize(records: list[dict[str, Any]], config: dict[str, Any] | None = None) -> dict[str, Any]:
    """The run's headline numbers: EX, per-difficulty EX, EX@K/Pass@K, failures, usage, latency, linking.
    Questions excluded from a cross-engine run (their gold cannot be carried over) are counted apart."""
    excluded = [r for r in records if r.get("excluded")]
    records = [r for r in records if not r.get("excluded")]
    n = len(records)
    correct = sum(1 for r in records if r.get("correct"))
    scored = any(r.get("correct") is not None for r in records)  # a linking-only run answers no SQL
    summary: dict[str, Any] = {"n": n, "correct": correct, "ex": _pct(correct, n) if scored or not n else None}
    if config:
        summary["run"] = {k: config.get(k) for k in ("dataset", "preset", "model", "samples", "stage", "linker",
                                                     "predictions", "engine") if config.get(k) is not None}
        if config.get("options"):  # the settings that differ from the defaults, e.g. {"budget": "paper"}
            summary["run"]["options"] = config["options"]
        if config.get("suite"):
            summary["suite"] = config["suite"]
    if excluded:
        summary["excluded"] = {"n": len(excluded), "by_reason": dict(Counter(r["excluded"] for r in excluded)),
                               "ids": [r["id"] for r in excluded]}

    levels = [lv for lv in (*LEVELS, *BIRD_LEVELS) if any(r.get("difficulty") == lv for r in records)]
    levels += sorted({r.get("difficulty") or "unknown" for r in records} - set(levels))
    summary["by_difficulty"] = {}
    for lv in levels:
        group = [r for r in records if (r.get("difficulty") or "unknown") == lv]
        hits = sum(1 for r in group if r.get("correct"))
        summary["by_difficulty"][lv] = {"n": len(group), "correct": hits, "ex": _pct(hits, len(group))}

    sampled = [r for r in records if r.get("ex_at_k") is not None]
    if sampled:
        summary["k"] = max(len(r.get("candidates") or []) for r in sampled)
        summary["ex_at_k"] = _pct(sum(r["ex_at_k"] for r in sampled), len(sampled))
        summary["pass_at_k"] = _pct(sum(1 for r in sampled if r.get("pass_at_k")), len(sampled))

    staged = [r for r in records if r.get("stages")]
    if staged:  # cumulative ablation: EX of the answer each stage would have given
        names = list(dict.fromkeys(name for r in staged for name in r["stages"]))
        summary["stages"] = {name: {"n": sum(1 for r in staged if name in r["stages"]),
                                    "ex": _pct(sum(1 for r in staged if r["stages"].get(name, {}).get("correct")),
                                               len(staged))}
                             for name in names}

    python = [r["python"] for r in records if r.get("python")]
    if python:  # prospy: how often the Python stage ran, and how often its table was the (scored) answer
        tables = [r for r in records if r.get("scored") == "python_table"]
        summary["python_stage"] = {"answers": len(python), "ran": sum(1 for p in python if p.get("ran")),
                                   "ok": sum(1 for p in python if p.get("ok")), "scored": len(tables),
                                   "correct": sum(1 for r in tables if r.get("correct"))}

    paths = [r for r in records if r.get("agentnlq_path")]
    if paths:  # agentnlq: questions settled on the fast path, after escalation, or not at all, and EX of each
        summary["agentnlq_paths"] = {
            path: {"n": len(group), "correct": sum(1 for r in group if r.get("correct"))}
            for path in ("fast", "escalated", "unsolved")
            for group in [[r for r in paths if r["agentnlq_path"] == path]]}

    recap = [r["recap"] for r in records if r.get("recap")]
    if recap:  # recap: how much critique, refinement and validation ran per question
        summary["recap"] = {"n": len(recap), "validated": sum(1 for x in recap if x.get("validated")),
                            **{key: round(sum(int(x.get(key) or 0) for x in recap) / len(recap), 2)
                               for key in ("steps", "plan_critique_rounds", "plan_versions", "refine_rounds",
                                           "relinks", "validator_rejections")}}
        counted = [x for x in recap if "sql_revisions" in x]  # records written before the count existed lack it
        if counted:
            summary["recap"] |= {key: round(sum(int(x[key]) for x in counted) / len(counted), 2)
                                 for key in ("sql_revisions", "sql_revisions_adopted")}

    left_out = [r["left_out"] for r in records if r.get("left_out")]
    if config and (config.get("kind") == "suite" or left_out):  # no leakage: say which examples were left out
        summary["leave_one_out"] = {"questions": len(left_out), "examples": sum(len(x) for x in left_out),
                                    "knowledge": (config.get("settings") or {}).get("knowledge", True)}

    failures = Counter(r.get("failure") for r in records if not r.get("correct"))
    summary["failures"] = {f: failures.get(f, 0) for f in FAILURES if failures.get(f)}
    errors = [r["pipeline_error"] for r in records if r.get("pipeline_error")]
    summary["pipeline_errors"] = len(errors)
    if errors:  # the most frequent message: a model that never answers gives the same one everywhere
        summary["pipeline_error"] = Counter(errors).most_common(1)[0][0]

    totals = {k: sum(usage_value(r, k) for r in records) for k in USAGE_KEYS}
    summary["usage"] = {"total": totals,
                        "per_question": {k: round(v / n, 2) if n else 0.0 for k, v in totals.items()}}

    latencies = [float(r.get("elapsed_s") or 0.0) for r in records]
    summary["latency_s"] = {"mean": round(sum(latencies) / n, 3) if n else 0.0,
                            **{f"p{q}": round(percentile(latencies, q), 3) for q in (50, 90, 95)},
                            "max": round(max(latencies), 3) if latencies else 0.0,
                            "total": round(sum(latencies), 2)}

    linking = _linking(records)
    if linking:
        summary["linking"] = linking
    return summary


def _linking(records: list[dict[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for level in ("table", "column"):
        scores = [r["linking"][level] for r in records if r.get("linking") and r["linking"].get(level)]
        if scores:
            result[level] = {m: _pct(sum(s[m] for s in scores), len(scores)) for m in LINK_METRICS}
            result[level]["n"] = len(scores)
    if result:
        sizes = [r["linked_columns"] for r in records if r.get("linked_columns") is not None]
        if sizes:
            result["mean_columns_kept"] = round(sum(sizes) / len(sizes), 1)
    return result
