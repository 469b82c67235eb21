"""Suite runs started from the web page: one at a time, in a background thread, with progress to poll.

A run scores a suite file with the server's model and a chosen preset into the suite's next numbered run folder
(as ``groundsql eval run SUITE`` does), so the evaluation page then shows it with its regression view. It holds
one of the model's slots for its whole length: asks queue behind it meanwhile.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from groundsql.errors import ConfigError, GroundsqlError
from groundsql.server.gate import ModelGate, RunCancelled

log = logging.getLogger("groundsql")


class SuiteBusy(ConfigError):
    """A suite run is already in progress."""


@dataclass
class SuiteJob:
    """One suite run's progress: state is running, done or failed."""

    id: int
    suite: str
    preset: str
    state: str = "running"
    done: int = 0
    total: int = 0
    correct: int = 0
    run_dir: str | None = None
    error: str | None = None
    started_at: float = 0.0
    finished_at: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class SuiteRunner:
    """Starts suite runs and keeps their progress (the latest `KEEP` jobs)."""

    KEEP = 20

    def __init__(self, gate: ModelGate):
        self.gate = gate
        self.jobs: dict[int, SuiteJob] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._stop = threading.Event()

    def start(self, suite: Path, preset: str, model: Any, database_url: str) -> SuiteJob:
        """Begin scoring `suite` with `preset` in a background thread.

        Raises:
            SuiteBusy: another suite run is still going.
            QueueFull: the model's queue is full.
        """
        with self._lock:
            if any(job.state == "running" for job in self.jobs.values()):
                raise SuiteBusy("a suite run is already in progress; wait for it to end")
            ticket = self.gate.admit()
            job = SuiteJob(id=next(self._ids), suite=suite.stem, preset=preset, started_at=time.time())
            self.jobs[job.id] = job
            for old in sorted(self.jobs)[:-self.KEEP]:
                self.jobs.pop(old, None)
        thread = threading.Thread(target=self._run, args=(job, suite, preset, model, database_url, ticket),
                                  name=f"groundsql-suite-{job.id}", daemon=True)
        thread.start()
        return job

    def get(self, job_id: int) -> SuiteJob:
        with self._lock:
            job = self.jobs.get(job_id)
        if job is None:
            raise ConfigError(f"no suite run {job_id}")
        return job

    def recent(self) -> list[dict[str, Any]]:
        with self._lock:
            return [job.to_dict() for job in sorted(self.jobs.values(), key=lambda j: -j.id)]

    def stop(self) -> None:
        """Stop every run at its next question (server shutdown)."""
        self._stop.set()

    def _run(self, job: SuiteJob, suite: Path, preset: str, model: Any, database_url: str, ticket: Any) -> None:
        from groundsql.evaluation.regression import next_run_dir
        from groundsql.evaluation.runner import EvalOptions, run_evaluation

        def progress(record: dict[str, Any], finished: int, total: int) -> None:
            job.done, job.total = finished, total
            job.correct += 1 if record.get("correct") else 0
            if self._stop.is_set():
                raise RunCancelled("the server is shutting down")

        try:
            with self.gate.slot(self._stop.is_set):
                out = next_run_dir(suite, preset, getattr(model, "spec", ""))
                job.run_dir = str(out)
                from groundsql.evaluation.suite import load_suite

                job.total = len(load_suite(suite, database=database_url).questions)
                run_evaluation(suite, EvalOptions(preset=preset, model=model, database=database_url), out,
                               progress=progress)
            job.state = "done"
        except GroundsqlError as exc:
            job.state, job.error = "failed", str(exc)
        except Exception as exc:  # noqa: BLE001 - reported on the page, never a silent dead thread
            log.exception("suite run %s failed", job.id)
            job.state, job.error = "failed", f"{type(exc).__name__}: {exc}"
        finally:
            job.finished_at = time.time()
            ticket.release()
