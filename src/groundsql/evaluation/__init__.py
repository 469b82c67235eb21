"""Evaluation: benchmark datasets (Spider, BIRD formats) and a user's own suite, official-rule scoring, resumable
runs, reports, and the regression view against a suite's previous run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from groundsql.evaluation.datasets import Dataset, Question, load_dataset, select
from groundsql.evaluation.hardness import spider_hardness
from groundsql.evaluation.results import load_run
from groundsql.evaluation.runner import EvalOptions, Progress, run_evaluation
from groundsql.evaluation.scoring import Scorer, Verdict
from groundsql.evaluation.suite import BuildReport, build_suite, load_suite
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
        dataset: a dataset directory or question file (Spider or BIRD format), a suite file (`build_suite`), or a
            loaded `Dataset`.
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
            by db_id), database (a suite's live database URL), previous (a run directory to compare with).

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


def run_suite(suite: str | Path, *, preset: str = "baseline", model: str | Model | None = None,
              out: str | Path | None = None, **kwargs: Any) -> tuple[Path, dict[str, Any]]:
    """Score a suite (`build_suite`) on its live database, as the next run of its history.

    Args:
        suite: the suite file.
        preset: the pipeline to run per question.
        model: a model spec or a `Model`; None for the embedded default.
        out: the run directory (default: the next numbered one in ``<suite stem>.runs/``, which the web UI and the
            comparison with the previous run read).
        kwargs: what `evaluate` takes (options, database, previous, limit, ids…).

    Returns:
        (the run directory, its summary: EX, excluded questions, leave-one-out, the regression view).
    """
    from groundsql.evaluation.regression import next_run_dir
    from groundsql.models import DEFAULT_MODEL

    spec = model.spec if isinstance(model, Model) else (model or DEFAULT_MODEL)
    run_dir = Path(out) if out is not None else next_run_dir(suite, preset, spec)
    return run_dir, evaluate(suite, preset=preset, model=model, out=run_dir, **kwargs)


__all__ = ["BuildReport", "Dataset", "EvalOptions", "Question", "Scorer", "Verdict", "build_suite", "evaluate",
           "load_dataset", "load_run", "load_suite", "run_evaluation", "run_suite", "select", "spider_hardness",
           "summarize"]
