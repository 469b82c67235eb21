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
#: Settings that must match for a run directory to be resumed: everything that changes which questions run
#: (the filters) or how they are answered and scored.
RESUME_KEYS = ("dataset", "preset", "model", "models", "samples", "stage", "linker", "predictions", "options",
               "filters", "keep_distinct")
#: Values assumed for keys a run.json written by an older groundsql lacks.
_OLD_DEFAULTS: dict[str, Any] = {"keep_distinct": False}


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
        previous = read_config(path)
        if normalize is not None and isinstance(previous.get("options"), dict):
            previous["options"] = normalize(previous["options"])
        mine = _identity(json.loads(json.dumps(config, default=str)), out)
        theirs = _identity(previous, out)
        changed = [k for k in RESUME_KEYS if theirs.get(k) != mine.get(k)]
        if changed:
            raise ConfigError(
                f"{out} holds a run with different settings ({', '.join(changed)}); "
                "resume it with the same settings or choose another --out directory"
            )
        return
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file; give a directory")
    if (out / RESULTS_FILE).exists() and (out / RESULTS_FILE).stat().st_size > 0:
        raise ConfigError(f"{out} holds results but no {CONFIG_FILE}; choose another --out directory")
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(config, indent=2, default=str) + "\n")


def _identity(config: dict[str, Any], out: Path | None = None) -> dict[str, Any]:
    """The settings that name a run; the seed counts only when questions are sampled.

    `limit` and `ids` are not part of it: they pick questions of the same fixed set (the databases, the sample
    and its seed), so a run can be extended (a larger `--limit`) or a subset reported; every summary covers only
    the questions its own filters select. A predictions file kept inside a run directory named like `out` counts
    by its name, so a run committed from one checkout resumes in another."""
    identity = {k: config.get(k, _OLD_DEFAULTS.get(k)) for k in RESUME_KEYS}
    predictions = identity.get("predictions")
    if out is not None and predictions and Path(str(predictions)).parent.name == out.name:
        identity["predictions"] = Path(str(predictions)).name
    filters = {k: v for k, v in dict(identity.get("filters") or {}).items() if k not in ("limit", "ids")}
    if filters.get("sample") is None:
        filters.pop("seed", None)
    identity["filters"] = filters
    return identity


def read_config(path: Path) -> dict[str, Any]:
    """A run's `run.json`, or a `ConfigError` naming the file when it is damaged."""
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, OSError) as exc:
        raise ConfigError(f"{path} is damaged ({str(exc).splitlines()[0] or type(exc).__name__}); delete the run "
                          "directory or choose another --out") from None
    if not isinstance(config, dict):
        raise ConfigError(f"{path} is damaged (not a JSON object); delete the run directory or choose "
                          "another --out")
    return config


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` so that a reader (or a crash) sees the old file or the new one, never half."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with temporary.open("w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def load_run(run_dir: str | Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(run.json settings, results) of a finished or partial run directory."""
    run_dir = Path(run_dir)
    results = run_dir / RESULTS_FILE
    if not results.exists():
        raise ConfigError(f"{run_dir} is not a run directory (no {RESULTS_FILE})")
    config_path = run_dir / CONFIG_FILE
    config = read_config(config_path) if config_path.exists() else {}
    return config, read_results(results)
