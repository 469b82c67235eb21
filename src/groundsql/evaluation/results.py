"""The run directory: `results.jsonl` (one line per question, appended as each completes) and `run.json`.

Appending one flushed line per question makes a run resumable: an interrupted run keeps every finished
question, and a torn last line (a crash mid-write) is cut off before new lines are appended.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from groundsql.errors import ConfigError

log = logging.getLogger("groundsql")

RESULTS_FILE = "results.jsonl"
SUMMARY_FILE = "summary.json"
CONFIG_FILE = "run.json"
#: Settings that must match for a run directory to be resumed.
RESUME_KEYS = ("dataset", "preset", "model", "samples", "stage", "linker", "predictions", "options")


def read_results(path: Path, *, repair: bool = False) -> list[dict[str, Any]]:
    """Every complete line of a results file; with `repair`, a torn last line is removed from the file."""
    if not path.exists():
        return []
    records: list[dict[str, Any]] = []
    raw = path.read_bytes()
    good_end = 0
    position = 0
    for line in raw.splitlines(keepends=True):
        position += len(line)
        if not line.endswith(b"\n"):
            break
        try:
            records.append(json.loads(line))
        except ValueError:
            log.warning("skipping an unreadable line in %s", path)
            continue
        good_end = position
    if repair and good_end < len(raw):
        log.warning("cutting a torn last line from %s (an interrupted write)", path)
        with path.open("r+b") as handle:
            handle.truncate(good_end)
    return records


class ResultsWriter:
    """Appends one JSON line per finished question, flushed and synced so nothing finished is lost."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._handle = path.open("a", encoding="utf-8")

    def write(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False, default=str)
        with self._lock:
            self._handle.write(line + "\n")
            self._handle.flush()
            os.fsync(self._handle.fileno())

    def close(self) -> None:
        self._handle.close()


def check_resumable(out: Path, config: dict[str, Any],
                    normalize: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> None:
    """Refuse to mix two different runs in one directory; otherwise record the run's settings.

    `normalize` turns the options recorded by an earlier run into today's identity (runs recorded before
    options were validated listed every value given, defaults included)."""
    path = out / CONFIG_FILE
    if path.exists():
        previous = json.loads(path.read_text(encoding="utf-8"))
        if normalize is not None and isinstance(previous.get("options"), dict):
            previous["options"] = normalize(previous["options"])
        changed = [k for k in RESUME_KEYS if previous.get(k) != config.get(k)]
        if changed:
            raise ConfigError(
                f"{out} holds a run with different settings ({', '.join(changed)}); "
                "resume it with the same settings or choose another --out directory"
            )
        return
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config, indent=2, default=str) + "\n", encoding="utf-8")


def load_run(run_dir: str | Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(run.json settings, results) of a finished or partial run directory."""
    run_dir = Path(run_dir)
    results = run_dir / RESULTS_FILE
    if not results.exists():
        raise ConfigError(f"{run_dir} is not a run directory (no {RESULTS_FILE})")
    config_path = run_dir / CONFIG_FILE
    config = json.loads(config_path.read_text(encoding="utf-8")) if config_path.exists() else {}
    return config, read_results(results)
