"""Human-readable reports of a run: `report.md` plus PNG plots, drawn from results.jsonl and summary.json."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from groundsql.evaluation.regression import add_regression, regression_markdown
from groundsql.evaluation.results import SUMMARY_FILE, load_run, write_atomic
from groundsql.evaluation.summary import summarize

log = logging.getLogger("groundsql")

REPORT_FILE = "report.md"
PLOTS = {"difficulty": "accuracy_by_difficulty.png", "tokens": "tokens_vs_accuracy.png",
         "latency": "latency.png"}


#: Options named in a run's label (the rest are in run.json and summary.json): budget profiles and ablations.
LABEL_OPTIONS = ("budget", "planning", "pruning", "semantic_linking", "profiling", "global_synthesis", "paths",
                 "tips", "exploration", "selection", "explore_repair", "confirm_checks", "diverse_views",
                 "link_full_budget", "repair_rounds")


def run_label(config: dict[str, Any], fallback: str = "run") -> str:
    if config.get("stage") == "score":
        return f"predictions:{Path(str(config.get('predictions'))).name}"
    parts = [config.get("preset"), config.get("model")]
    if config.get("stage") == "link":  # a linking-only run answers nothing: the linker names it
        parts = [f"link:{config.get('linker') or 'full'}", config.get("model")]
    label = " · ".join(str(p) for p in parts if p)
    for role, spec in (config.get("models") or {}).items():
        label += f" · {role}={spec}"
    if (config.get("samples") or 1) > 1:
        label += f" · k={config['samples']}"
    for name, value in sorted((config.get("options") or {}).items()):  # e.g. budget=paper, planning=False
        if name in LABEL_OPTIONS:
            label += f" · {name}={value}"
    return label or fallback


def write_report(run_dir: str | Path) -> Path:
    """Write report.md and the plots for one run directory; returns the report's path."""
    run_dir = Path(run_dir)
    config, records = load_run(run_dir)
    summary = summarize(records, config)
    add_regression(summary, config, records)
    write_atomic(run_dir / SUMMARY_FILE, json.dumps(summary, indent=2) + "\n")
    label = run_label(config, run_dir.name)
    plots = plot_run(records, summary, run_dir, title=label)
    lines = [f"# Evaluation: {label}", "", f"Dataset `{config.get('dataset', '?')}`; {summary['n']} questions.", ""]
    lines += suite_lines(summary)
    lines += summary_table([(label, summary)])
    if summary.get("regression"):
        lines += ["", "## Against the previous run", ""] + regression_markdown(summary["regression"])
    lines += ["", "## Accuracy by difficulty", "", "| difficulty | n | correct | EX % |", "|---|---:|---:|---:|"]
    for level, row in summary["by_difficulty"].items():
        lines.append(f"| {level} | {row['n']} | {row['correct']} | {row['ex']:.1f} |")
    if summary.get("failures"):
        lines += ["", "## Wrong answers by failure class", "", "| class | count |", "|---|---:|"]
        lines += [f"| {name} | {count} |" for name, count in summary["failures"].items()]
    if summary.get("linking"):
        lines += ["", "## Schema linking (percent)", "", "| level | n | SRR | NSR | NSP | NSF |",
                  "|---|---:|---:|---:|---:|---:|"]
        for level in ("table", "column"):
            row = summary["linking"].get(level)
            if row:
                lines.append(f"| {level} | {row['n']} | {row['srr']:.1f} | {row['nsr']:.1f} | {row['nsp']:.1f} | "
                             f"{row['nsf']:.1f} |")
    if summary.get("python_stage"):
        lines += ["", "## Python stage", ""] + python_stage_table([(label, summary)])
    usage = summary["usage"]
    lines += ["", "## Cost and latency", "",
              "| | prompt tokens | completion tokens | model calls | DB queries |", "|---|---:|---:|---:|---:|",
              "| total | " + " | ".join(str(usage["total"][k]) for k in
                                       ("prompt_tokens", "completion_tokens", "llm_calls", "db_queries")) + " |",
              "| per question | " + " | ".join(f"{usage['per_question'][k]:.1f}" for k in
                                              ("prompt_tokens", "completion_tokens", "llm_calls", "db_queries"))
              + " |", "",
              "Latency per question (s): " + ", ".join(f"{k} {v}" for k, v in summary["latency_s"].items()), ""]
    lines += [f"![{name}]({file})" for name, file in plots.items()]
    path = run_dir / REPORT_FILE
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def suite_lines(summary: dict[str, Any]) -> list[str]:
    """What a suite run must say before its numbers: a changed database, excluded questions, leave-one-out."""
    lines: list[str] = []
    suite = summary.get("suite")
    if suite:
        lines.append(f"Suite `{suite.get('name')}` built {suite.get('built_at')} on `{suite.get('database')}`.")
        if suite.get("database_changes"):
            lines.append("**The database changed since the suite was built** (" + "; ".join(
                suite["database_changes"]) + "): questions whose gold result changed are excluded, not scored.")
    excluded = summary.get("excluded")
    if excluded and suite:
        reasons = ", ".join(f"{k} {v}" for k, v in excluded["by_reason"].items())
        lines.append(f"Excluded {excluded['n']} question(s) ({reasons}): {', '.join(map(str, excluded['ids']))}.")
    loo = summary.get("leave_one_out")
    if loo is not None:
        if not loo.get("knowledge", True):
            lines.append("Knowledge off: no verified example reached a prompt.")
        else:
            lines.append(f"Leave-one-out: each question was asked with its own verified example left out of the "
                         f"knowledge ({loo['questions']} of {summary['n']} questions had one; "
                         f"{loo['examples']} example(s) left out in all).")
    return lines + [""] if lines else []


def summary_table(rows: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """Markdown table of headline numbers, one row per run."""
    levels: list[str] = []
    for _, s in rows:
        levels += [lv for lv in s["by_difficulty"] if lv not in levels]
    header = ["run", "n", "EX %", *[f"{lv} %" for lv in levels], "EX@K", "Pass@K", "tokens/q", "calls/q",
              "p50 s", "p90 s", "p95 s"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" + "---:|" * (len(header) - 1)]
    for label, s in rows:
        per_q = s["usage"]["per_question"]
        tokens = per_q["prompt_tokens"] + per_q["completion_tokens"]
        cells = [label, str(s["n"]), _num(s["ex"])]
        cells += [f"{s['by_difficulty'][lv]['ex']:.1f}" if lv in s["by_difficulty"] else "–" for lv in levels]
        cells += [f"{s['ex_at_k']:.1f}" if "ex_at_k" in s else "–", f"{s['pass_at_k']:.1f}" if "pass_at_k" in s else "–"]
        cells += [f"{tokens:.0f}", f"{per_q['llm_calls']:.1f}", f"{s['latency_s']['p50']:.2f}",
                  f"{s['latency_s']['p90']:.2f}", f"{s['latency_s']['p95']:.2f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def python_stage_table(rows: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """Markdown table of how often the Python stage (`prospy`) ran and succeeded, for runs that have one."""
    lines = ["| run | n | Python ran | Python succeeded | answers scored as the Python table | of those right |",
             "|---|---:|---:|---:|---:|---:|"]
    for label, s in rows:
        stage = s.get("python_stage")
        if not stage:
            continue
        n = s["n"]

        def share(count: int, total: int) -> str:
            return f"{count} ({100.0 * count / total:.0f}%)" if total else str(count)

        lines.append(f"| {label} | {n} | {share(stage['ran'], n)} | {share(stage['ok'], stage['ran'])} | "
                     f"{stage['scored']} | {share(stage['correct'], stage['scored'])} |")
    return lines if len(lines) > 2 else []


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_run(records: list[dict[str, Any]], summary: dict[str, Any], out: Path, *, title: str = "") -> dict[str, str]:
    """Draw the three per-run plots into `out`; returns {plot name: file name}."""
    if not records:
        return {}
    plt = _pyplot()
    written: dict[str, str] = {}

    levels = list(summary["by_difficulty"])
    fig, ax = plt.subplots(figsize=(6, 3.5))
    values = [summary["by_difficulty"][lv]["ex"] for lv in levels]
    bars = ax.bar(levels, values, color="#4c72b0")
    ax.bar_label(bars, labels=[f"{v:.0f}% (n={summary['by_difficulty'][lv]['n']})" for lv, v in zip(levels, values)],
                 fontsize=8)
    ax.set_ylim(0, 105)
    ax.set_ylabel("execution accuracy (%)")
    ax.set_title(f"Accuracy by difficulty — {title}", fontsize=9)
    written["accuracy by difficulty"] = _save(fig, out / PLOTS["difficulty"], plt)

    fig, ax = plt.subplots(figsize=(6, 3.5))
    tokens = [_tokens(r) for r in records]
    right = [t for t, r in zip(tokens, records) if r.get("correct")]
    wrong = [t for t, r in zip(tokens, records) if not r.get("correct")]
    bins = min(20, max(5, len(records) // 5))
    ax.hist([right, wrong], bins=bins, stacked=True, label=["correct", "wrong"], color=["#55a868", "#c44e52"])
    ax.set_xlabel("tokens per question (prompt + completion)")
    ax.set_ylabel("questions")
    ax.legend()
    ax.set_title(f"Tokens vs accuracy — {title}", fontsize=9)
    written["tokens vs accuracy"] = _save(fig, out / PLOTS["tokens"], plt)

    fig, ax = plt.subplots(figsize=(6, 3.5))
    latencies = [float(r.get("elapsed_s") or 0) for r in records]
    ax.hist(latencies, bins=bins, color="#8172b2")
    for q, style in (("p50", "-"), ("p90", "--"), ("p95", ":")):
        ax.axvline(summary["latency_s"][q], color="black", linestyle=style, label=f"{q} {summary['latency_s'][q]:.2f}s")
    ax.set_xlabel("seconds per question")
    ax.set_ylabel("questions")
    ax.legend()
    ax.set_title(f"Latency — {title}", fontsize=9)
    written["latency distribution"] = _save(fig, out / PLOTS["latency"], plt)
    return written


def plot_comparison(rows: list[tuple[str, dict[str, Any]]], out: Path, prefix: str = "") -> dict[str, str]:
    """Plots for several runs side by side: EX by difficulty (grouped bars) and tokens vs EX (one point a run)."""
    plt = _pyplot()
    written: dict[str, str] = {}
    levels: list[str] = []
    for _, s in rows:
        levels += [lv for lv in s["by_difficulty"] if lv not in levels]
    groups = ["all", *levels]
    width = 0.8 / max(len(rows), 1)
    fig, ax = plt.subplots(figsize=(7, 3.8))
    for index, (label, s) in enumerate(rows):
        values = [s["ex"] or 0.0] + [s["by_difficulty"].get(lv, {}).get("ex", 0) for lv in levels]
        xs = [g + index * width for g in range(len(groups))]
        bars = ax.bar(xs, values, width=width, label=label)
        ax.bar_label(bars, labels=[f"{v:.0f}" for v in values], fontsize=7)
    ax.set_xticks([g + width * (len(rows) - 1) / 2 for g in range(len(groups))], groups)
    ax.set_ylim(0, 105)
    ax.set_ylabel("execution accuracy (%)")
    ax.legend(fontsize=7)
    ax.set_title("Execution accuracy by difficulty", fontsize=9)
    written["accuracy by difficulty"] = _save(fig, out / f"{prefix}by_difficulty.png", plt)

    fig, ax = plt.subplots(figsize=(6, 3.8))
    for label, s in rows:
        per_q = s["usage"]["per_question"]
        ax.scatter(per_q["prompt_tokens"] + per_q["completion_tokens"], s["ex"] or 0.0, s=40)
        ax.annotate(label, (per_q["prompt_tokens"] + per_q["completion_tokens"], s["ex"] or 0.0), fontsize=7,
                    xytext=(4, 4), textcoords="offset points")
    ax.set_xlabel("mean tokens per question")
    ax.set_ylabel("execution accuracy (%)")
    ax.set_title("Tokens vs accuracy", fontsize=9)
    written["tokens vs accuracy"] = _save(fig, out / f"{prefix}tokens_vs_accuracy.png", plt)

    fig, ax = plt.subplots(figsize=(6, 3.8))
    for index, (_, s) in enumerate(rows):
        lat = s["latency_s"]
        ax.errorbar([index], [lat["p50"]], yerr=[[0], [lat["p95"] - lat["p50"]]], fmt="o", capsize=4)
    ax.set_xticks(range(len(rows)), [label for label, _ in rows], fontsize=7, rotation=15)
    ax.set_ylabel("seconds per question (p50, bar to p95)")
    ax.set_title("Latency", fontsize=9)
    written["latency"] = _save(fig, out / f"{prefix}latency.png", plt)
    return written


def _tokens(record: dict[str, Any]) -> int:
    usage = record.get("usage") or {}
    return int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))


def _save(fig, path: Path, plt) -> str:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path.name
