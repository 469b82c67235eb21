"""Evaluation: benchmark datasets (Spider, BIRD formats), official-rule scoring, resumable runs, reports."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from groundsql.evaluation.datasets import Dataset, Question, load_dataset, select
from groundsql.evaluation.hardness import spider_hardness
from groundsql.evaluation.results import load_run
from groundsql.evaluation.runner import EvalOptions, Progress, run_evaluation
from groundsql.evaluation.scoring import Scorer, Verdict
from groundsql.evaluation.summary import summarize
from groundsql.models import Model


def evaluate(
    dataset: str | Path | Dataset,
    *,
    preset: str = "baseline",
    model: str | Model | None = None,
    samples: int = 1,
    workers: int = 1,
    out: str | Path | None = None,
    predictions: str | Path | None = None,
    progress: Progress | None = None,
    report: bool = True,
    **filters: Any,
) -> dict[str, Any]:
    """Measure a preset (or given SQL) on a Spider- or BIRD-format benchmark.

    Args:
        dataset: a dataset directory or question file (Spider or BIRD format), or a loaded `Dataset`.
        preset: the pipeline to run per question.
        model: a model spec (see `groundsql models`) or a `Model`; None for the embedded default.
        samples: candidates per question where the preset samples (enables EX@K and Pass@K).
        workers: questions run concurrently (useful for API models).
        out: run directory for results.jsonl, summary.json and the report; an existing one is resumed.
        predictions: a JSON Lines file of {"id", "sql"} to score instead of running a model.
        progress: called as progress(record, finished, total) after each question.
        report: write report.md and PNG plots into `out`.
        filters: models (a model or spec per role, e.g. {"orchestrator": "local:qwen2.5-coder-0.5b"}; other
            roles use `model`), db (list of db ids), ids, limit, sample, seed, stage ("full" or "link"), linker,
            keep_distinct, options (preset options), knowledge (a knowledge folder, or a folder of them named
            by db_id).

    Returns:
        The summary dict written to summary.json (n, ex, by_difficulty, usage, latency_s, linking…).
    """
    options = EvalOptions(preset=preset, model=model, samples=samples, workers=workers,
                          predictions=str(predictions) if predictions else None, **filters)
    summary = run_evaluation(dataset, options, out, progress=progress)
    if out is not None and report:
        from groundsql.evaluation.report import write_report

        write_report(out)
    return summary


__all__ = ["Dataset", "EvalOptions", "Question", "Scorer", "Verdict", "evaluate", "load_dataset", "load_run",
           "run_evaluation", "select", "spider_hardness", "summarize"]
