"""Python analysis (ProSPy §3.4): the model writes pandas code over the materialized views; it runs only in the
sandbox and must write result.csv. Errors and invalid outputs go back to the model for bounded revisions."""

from __future__ import annotations

import csv
import io
import logging
import re
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from groundsql.analysis import answer_frame
from groundsql.analysis.fetching import Fetch
from groundsql.analysis.pandas_hints import pandas_hint
from groundsql.analysis.sandbox import SandboxLimits, run_python
from groundsql.context import Context
from groundsql.db import Result
from groundsql.db.result import json_safe, value_from_text
from groundsql.errors import ModelError
from groundsql.prompts import render

log = logging.getLogger("groundsql")

RESULT_FILE = "result.csv"
_CODE_BLOCK = re.compile(r"```(?:python|py)?[ \t]*\n(.*?)```", re.S | re.I)


class PythonOptions(BaseModel):
    """The Python stage's budget and sandbox limits."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    revisions: int = Field(2, ge=0, description="revision rounds after a failed or invalid run")
    max_tokens: int = Field(900, ge=64, description="completion tokens per code-writing call")
    preview_rows: int = Field(5, ge=1, description="rows of each view shown to the model")
    limits: SandboxLimits = Field(default_factory=SandboxLimits, description="sandbox limits per run")
    name_hints: bool = Field(True, description="on a missing file or column, name the files and columns that "
                                               "exist in the revision request; on a known pandas error "
                                               "(`analysis.pandas_hints`), say its fix")
    keep_keys: bool = Field(True, description="write result.csv as the code computed it: a group key pandas "
                                              "holds in the index kept as columns, several header levels "
                                              "flattened to one (`analysis.answer_frame`)")


@dataclass
class Analysis:
    """The Python stage's outcome: the last code, its table (when valid), and each attempt's problem."""

    code: str = ""
    result: Result | None = None
    error: str | None = None
    attempts: int = 0
    problems: list[str] = field(default_factory=list)
    stdout: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.result is not None and self.error is None


def analyse(ctx: Context, fetch: Fetch, options: PythonOptions | None = None) -> Analysis:
    """Ask for code, run it in the sandbox with the views as CSV inputs, and revise it on failure.

    Returns:
        The `Analysis`; `result` holds result.csv as a table when some attempt produced a valid one.
    """
    options = options or PythonOptions()
    inputs = {v.path.name: v.path for v in fetch.views}
    denied = tuple(p for p in (getattr(ctx.db.target, "path", None),) if p is not None)
    prelude = answer_frame.prelude() if options.keep_keys else ""
    messages = [{"role": "user", "content": render(
        "prospy_python", question=ctx.question, evidence_block=_evidence(ctx), plan=fetch.plan or "(no plan)",
        files=_files_text(fetch, options.preview_rows))}]
    analysis = Analysis()
    for attempt in range(options.revisions + 1):
        try:
            reply = ctx.chat(f"prospy.python:{attempt + 1}", messages, role="generator",
                             max_tokens=options.max_tokens).text
        except ModelError as exc:
            analysis.error = f"the model failed: {exc}"
            ctx.trace.note("prospy.python", attempt=attempt + 1, ok=False, problem=analysis.error)
            break
        code = extract_code(reply)
        analysis.code, analysis.attempts = code, attempt + 1
        run = run_python(code, inputs, outputs=(RESULT_FILE,), limits=options.limits, denied_paths=denied,
                         prelude=prelude)
        analysis.stdout = run.stdout
        analysis.notes = [line[len(answer_frame.NOTE):] for line in run.stdout.splitlines()
                          if line.startswith(answer_frame.NOTE)]
        problem = run.error if not run.ok else None
        table = None
        if problem is None:
            table, problem = read_result(run.files.get(RESULT_FILE))
        last = attempt == options.revisions
        if problem is None or (table is not None and last):
            analysis.result, analysis.error = table, None
            ctx.trace.note("prospy.python", attempt=attempt + 1, ok=True, rows=table.row_count if table else 0,
                           notes=analysis.notes)
            break
        analysis.problems.append(problem)
        analysis.error = problem
        ctx.trace.note("prospy.python", attempt=attempt + 1, ok=False, problem=problem)
        detail = _stderr_tail(run.stderr) if not run.ok else ""
        hint = names_hint(problem + detail, fetch) + pandas_hint(problem + detail) if options.name_hints else ""
        fix = render("prospy_python_fix", problem=(problem + detail + hint).strip())
        messages = messages + [{"role": "assistant", "content": f"```python\n{code}\n```"},
                               {"role": "user", "content": fix}]
    return analysis


#: Errors of code that reads a file or a column the views do not have.
_MISSING_NAME = re.compile(r"KeyError|not in index|FileNotFoundError|No such file|has no attribute|"
                           r"None of \[.*\] are in the", re.IGNORECASE)


def names_hint(error: str, fetch: Fetch) -> str:
    """When `error` is a missing file or column: the exact files and columns that exist (a fact the 1.5B model
    does not recover from the traceback alone), else ''."""
    if not _MISSING_NAME.search(error) or not fetch.views:
        return ""
    lines = [f"- {v.path.name}: {', '.join(v.columns)}" for v in fetch.views]
    return "\nOnly these files and columns exist (use these exact names):\n" + "\n".join(lines)


def extract_code(reply: str) -> str:
    """The code of a reply: its longest fenced block, else the whole reply."""
    blocks = _CODE_BLOCK.findall(reply or "")
    if blocks:
        return max(blocks, key=len).strip() + "\n"
    return (reply or "").strip().strip("`").strip() + "\n"


def read_result(data: bytes | None) -> tuple[Result | None, str | None]:
    """result.csv as a `Result` with numbers typed; or a problem the model can act on."""
    if data is None:
        return None, "the code did not write result.csv"
    try:
        rows = list(csv.reader(io.StringIO(data.decode("utf-8", errors="replace"))))
    except csv.Error as exc:
        return None, f"result.csv is not valid CSV ({exc})"
    if not rows or not any(cell.strip() for cell in rows[0]):
        return None, "result.csv is empty; it needs a header row and the answer rows"
    columns = rows[0]
    if columns and columns[0] in ("", "Unnamed: 0"):
        log.debug("result.csv has an index column; keeping it as written")
    body = [tuple(value_from_text(cell) for cell in row) for row in rows[1:] if row]
    table = Result(columns=columns, rows=body)
    if not body:
        return table, "result.csv has a header but no rows; check the filters, or keep it if no row is right"
    return table, None


def _files_text(fetch: Fetch, preview_rows: int) -> str:
    """Each view's file: its name, size and columns, then its first rows as CSV (only these files exist)."""
    lines = []
    for view in fetch.views:
        more = " (cut at the row limit)" if view.truncated else ""
        shown = min(preview_rows, view.row_count)
        lines.append(f"- {view.path.name}: {view.row_count} rows{more}; first {shown}:")
        if view.lineage:  # where the columns come from (lineage-aware description)
            lines += ["    " + line for line in view.lineage.splitlines()]
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(view.columns)
        writer.writerows([["" if v is None else json_safe(v) for v in row] for row in view.result.rows[:shown]])
        lines += ["    " + line for line in buffer.getvalue().splitlines()]
    if fetch.joins:
        lines.append("Rows of these files match on (merge on these columns; read only the files the question needs):")
        lines += [f"- {pair}" for pair in fetch.joins]
    return "\n".join(lines) or "(no files)"


def _stderr_tail(stderr: str, lines: int = 8) -> str:
    tail = [line for line in stderr.strip().splitlines() if line.strip()][-lines:]
    return ("\nThe end of the error output:\n" + "\n".join(tail)) if tail else ""


def _evidence(ctx: Context) -> str:
    return f"Additional knowledge: {ctx.evidence.strip()}\n" if ctx.evidence and ctx.evidence.strip() else ""
