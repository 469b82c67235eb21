"""What a pipeline returns: the chosen SQL, its result, candidates and the trace."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from groundsql.db import Result
from groundsql.errors import ConfigError
from groundsql.trace import Trace


@dataclass
class Candidate:
    """One SQL candidate and what happened when it ran."""

    sql: str
    result: Result | None = None
    error: str | None = None
    source: str = ""
    model: str = ""
    rounds: int = 0  # refinement rounds spent on it
    expert: str = ""  # the model role that proposed it (voting weights are kept per expert)
    strategy: str = ""  # the plan or reasoning behind it, for the judge
    repairs: list[dict[str, str]] = field(default_factory=list)  # tree repairs applied: rule, before, after, detail

    @property
    def ok(self) -> bool:
        return self.result is not None and self.error is None


@dataclass
class Answer:
    question: str
    sql: str
    result: Result | None
    preset: str
    model: str
    trace: Trace
    elapsed_s: float = 0.0
    error: str | None = None
    confidence: float | None = None
    candidates: list[Candidate] = field(default_factory=list)
    linked_schema: dict[str, list[str]] | None = None
    clarification: str | None = None  # a question back to the user when confidence is too low to answer
    notes: list[str] = field(default_factory=list)  # caveats for the reader (e.g. low confidence)
    warnings: list[str] = field(default_factory=list)  # what the result sanity checks found (selection/checks.py)
    # The SQL the pipeline would have returned had it stopped after each stage, in stage order; evaluation
    # scores every entry, which yields a cumulative per-stage ablation from a single run.
    stages: dict[str, str] = field(default_factory=dict)
    # ProSPy: the intermediate views (name, sql, columns, row_count, definition) and the Python code that turned
    # them into `result` (None when a view answered by itself).
    views: list[dict[str, Any]] = field(default_factory=list)
    python_code: str | None = None
    # Where `result` came from: "sql" (running `sql` gives it) or "python" (computed by the Python stage from
    # the views; `sql` is then only the script of those views). Evaluation scores a "python" result as a table.
    result_source: str = "sql"
    # True when the run stopped early (a model deadline, a cancellation, the ask time limit) and this is the best
    # answer announced before it stopped (`Context.provisional`); `notes` says why.
    partial: bool = False
    # The SQL dialect of the database asked (for reading the SQL back in a notebook); None when not known.
    dialect: str | None = None

    def to_pandas(self) -> Any:
        """The result as a pandas DataFrame with the engine's column types (``groundsql[dataframes]``).

        Raises:
            ConfigError: the answer has no result, or pandas is not installed.
        """
        return self._table().to_pandas()

    def to_polars(self) -> Any:
        """The result as a polars DataFrame with the engine's column types (``groundsql[dataframes]``)."""
        return self._table().to_polars()

    def to_arrow(self) -> Any:
        """The result as a pyarrow Table with the engine's column types (``groundsql[dataframes]``)."""
        return self._table().to_arrow()

    def export(self, path: str | Path, *, row_cap: int | None = None) -> Path:
        """Write the result to `path` (.csv, .parquet, .xlsx or .json) with the question and the SQL in the file's
        metadata where the format has room (`groundsql.db.exports`); `row_cap`: the cap it ran under, stated too."""
        from groundsql.db.exports import write_export

        return write_export(self._table(), path, question=self.question, sql=self.sql, row_cap=row_cap)

    def _table(self) -> Result:
        if self.result is None:
            raise ConfigError(f"this answer has no result table{f' ({self.error})' if self.error else ''}")
        return self.result

    def to_dict(self, *, include_trace: bool = False) -> dict[str, Any]:
        """The JSON shape `groundsql ask --json` prints."""
        empty = {"columns": [], "rows": [], "row_count": 0, "truncated": False}
        table = self.result.to_dict() if self.result is not None else empty
        data: dict[str, Any] = {
            "question": self.question,
            "sql": self.sql,
            **table,
            "error": self.error,
            "preset": self.preset,
            "model": self.model,
            "elapsed_s": round(self.elapsed_s, 3),
            "confidence": self.confidence,
            "usage": self.trace.usage().to_dict(),
            "candidates": [
                {"sql": c.sql, "ok": c.ok, "error": c.error, "source": c.source, "model": c.model,
                 **({"repairs": list(c.repairs)} if c.repairs else {})}
                for c in self.candidates
            ],
        }
        if self.linked_schema is not None:
            data["linked_schema"] = self.linked_schema
        if self.clarification is not None:
            data["clarification"] = self.clarification
        if self.notes:
            data["notes"] = list(self.notes)
        data["warnings"] = list(self.warnings)
        if self.stages:
            data["stages"] = dict(self.stages)
        if self.views:
            data["views"] = [dict(v) for v in self.views]
        if self.python_code is not None:
            data["python_code"] = self.python_code
        if self.result_source != "sql":
            data["result_source"] = self.result_source
        if self.partial:
            data["partial"] = True
        if include_trace:
            data["trace"] = self.trace.to_list()
        return data
