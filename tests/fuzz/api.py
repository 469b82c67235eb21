"""The HTTP API fuzzed from its own OpenAPI schema with Schemathesis: every operation, valid (positive) and
invalid (negative) requests, against the app `groundsql serve` runs (scripted demo model, demo shop database,
in-process ASGI transport: nothing leaves the machine).

Checks on every response: no 5xx but the documented 502/504 (model failure, time limit) in the error shape; no
traceback in the body or the server's log; every error in the documented shape ``{"error": {"type": str,
"message": str}}``; a validation error (422) does not echo a value that was sent.
"""

from __future__ import annotations

import json
import logging
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: 5xx statuses the API documents (docs/server.md): a model failure (502) and a time limit (504).
DOCUMENTED_5XX = {502, 504}


@dataclass
class ApiReport:
    requests: int = 0
    statuses: Counter = field(default_factory=Counter)
    by_operation: Counter = field(default_factory=Counter)
    problems: list[dict] = field(default_factory=list)
    log_errors: int = 0
    elapsed_s: float = 0.0
    stateful: str = ""
    rounds: int = 0  # passes over the operations it took to reach the requested count


class _ErrorCounter(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(f"{record.name}: {record.getMessage()[:200]}"
                            f"{' (with traceback)' if record.exc_info else ''}")


def make_app(folder: Path) -> tuple[Any, Any]:
    """The server's app over the demo shop with the scripted demo model, and its workspace."""
    from groundsql.demo import generate_demo_database
    from groundsql.runs import RunStore
    from groundsql.server import ServerOptions, Workspace
    from groundsql.server.app import create_app
    from groundsql.server.testing import demo_model

    db = folder / "demo.sqlite"
    generate_demo_database(db, seed=7)
    workspace = Workspace({"shop": str(db)}, demo_model(), ServerOptions(statement_timeout_s=5, ask_timeout_s=30),
                          runs=RunStore(folder / "runs.sqlite"))
    return create_app(workspace, mcp=False), workspace


def _sent_strings(case: Any) -> list[str]:
    """String values of the request (body, query, path) long enough that finding one in a reply is an echo."""
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str) and len(value) >= 12 and value.strip():
            found.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for part in ("body", "query", "path_parameters"):
        value = getattr(case, part, None)
        if value is not None and not isinstance(value, (bytes, bytearray)):
            walk(value)
    return found


def judge(case: Any, response: Any, report: ApiReport) -> None:
    """Every check on one response; problems are recorded, not raised, so the run goes on."""
    status = response.status_code
    label = f"{case.operation.method.upper()} {case.operation.path}"
    report.requests += 1
    report.statuses[status] += 1
    report.by_operation[label] += 1
    text = response.text if hasattr(response, "text") else response.content.decode("utf-8", "replace")
    problem = None
    if status >= 500 and status not in DOCUMENTED_5XX:
        problem = f"{status}"
    elif "Traceback (most recent call last)" in text:
        problem = "traceback in the body"
    elif status >= 400:
        try:
            body = json.loads(text)
        except ValueError:
            body = None
        error = body.get("error") if isinstance(body, dict) else None
        if not (isinstance(body, dict) and set(body) == {"error"} and isinstance(error, dict)
                and isinstance(error.get("type"), str) and isinstance(error.get("message"), str)):
            problem = f"undocumented error shape: {text[:200]}"
        elif status == 422:
            echoed = [s for s in _sent_strings(case) if s in error["message"]]
            if echoed:
                problem = f"422 echoes what was sent: {echoed[0][:80]!r}"
    if problem:
        report.problems.append({"operation": label, "status": status, "problem": problem,
                                "request": _describe(case)})


def _describe(case: Any) -> str:
    parts = {"path": getattr(case, "path_parameters", None), "query": getattr(case, "query", None),
             "body": getattr(case, "body", None)}
    try:
        return json.dumps({k: v for k, v in parts.items() if v not in (None, {})}, default=str)[:400]
    except Exception:
        return repr(parts)[:400]


#: Passes over the operations at most (each with the next seed) to reach the requested count.
MAX_ROUNDS = 6


def _probe(run: tuple[Any, Any, dict[str, str] | None], examples: int, seed: int, report: ApiReport) -> int:
    """Up to `examples` generated requests of one operation in one mode; returns how many were sent."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

    operation, mode, fixed = run
    strategy = operation.as_strategy(generation_mode=mode, path_parameters=fixed)
    before = report.requests

    @hypothesis_seed(seed)
    @settings(max_examples=examples, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(case=strategy)
    def probe(case: Any) -> None:
        try:
            response = case.call()
        except Exception as exc:  # the app raised: a 500 to a client; recorded, and the run goes on
            report.requests += 1
            report.statuses[500] += 1
            report.problems.append({"operation": f"{case.operation.method.upper()} {case.operation.path}",
                                    "status": 500, "problem": f"server exception {type(exc).__name__}",
                                    "request": _describe(case)})
            return
        judge(case, response, report)

    try:
        probe()
    except Exception as exc:  # a strategy that cannot generate (e.g. negative for a body-less GET)
        problem = {"operation": f"{operation.method.upper()} {operation.path}", "status": None,
                   "problem": f"generation: {type(exc).__name__}: "
                              f"{str(exc).splitlines()[0][:160] if str(exc) else ''}",
                   "request": f"{mode}{' shop' if fixed else ''}"}
        if problem not in report.problems:
            report.problems.append(problem)
    return report.requests - before


def fuzz_api(requests: int, seed: int, folder: Path) -> ApiReport:
    """About `requests` generated requests, spread over every operation and both generation modes."""
    import schemathesis
    from hypothesis.configuration import set_hypothesis_home_dir
    from schemathesis import GenerationMode

    # Hypothesis caches (its character map, for one) go to `.hypothesis` in the working directory unless told
    # otherwise: under the run's own folder, so a test or a benchmark leaves nothing in the checkout.
    set_hypothesis_home_dir(folder / ".hypothesis")
    app, workspace = make_app(folder)
    errors = _ErrorCounter()
    logging.getLogger("groundsql").addHandler(errors)
    logging.getLogger("uvicorn.error").addHandler(errors)
    report = ApiReport()
    started = time.perf_counter()
    try:
        schema = schemathesis.openapi.from_asgi("/openapi.json", app)
        operations = [result.ok() for result in schema.get_all_operations()]
        links = sum(len(response.get("links", {})) for path in schema.raw_schema.get("paths", {}).values()
                    for op in path.values() if isinstance(op, dict)
                    for response in op.get("responses", {}).values() if isinstance(response, dict))
        report.stateful = ("no links in the schema: stateful testing has nothing to follow" if not links
                           else f"{links} links")
        runs = [(operation, mode, fixed) for operation in operations
                for mode, fixed in ((GenerationMode.POSITIVE, None), (GenerationMode.NEGATIVE, None),
                                    (GenerationMode.POSITIVE, {"name": "shop"}))
                if fixed is None or "{name}" in operation.path]  # the real database's name: past the 404
        # Hypothesis stops a run early once it has exhausted a small input space (a GET with one path
        # parameter) and a mode may generate nothing at all: rounds with the next seed spread what is left of the
        # budget over the runs that still generate, until the requests are reached.
        live = list(runs)
        for round_ in range(MAX_ROUNDS):
            remaining = requests - report.requests
            if remaining <= 0 or not live:
                break
            per_run = max(1, remaining // len(live))
            report.rounds = round_ + 1
            live = [run for run in live if _probe(run, per_run, seed + round_, report) > 0]
    finally:
        logging.getLogger("groundsql").removeHandler(errors)
        logging.getLogger("uvicorn.error").removeHandler(errors)
        workspace.close()
        set_hypothesis_home_dir(None)
    report.log_errors = len(errors.records)
    report.elapsed_s = time.perf_counter() - started
    for record in errors.records[:20]:
        report.problems.append({"operation": "server log", "status": None, "problem": record, "request": ""})
    return report


def run_api(args: Any, out: Path, command: str, commit: str, machine: str) -> int:
    with tempfile.TemporaryDirectory(prefix="groundsql-api-fuzz-") as tmp:
        report = fuzz_api(args.requests, args.seed, Path(tmp))
    out.mkdir(parents=True, exist_ok=True)
    payload = {"command": command, "commit": commit, "machine": machine, "requests": report.requests,
               "statuses": {str(k): v for k, v in sorted(report.statuses.items())},
               "by_operation": dict(report.by_operation), "problems": report.problems[:200],
               "problems_total": len(report.problems), "log_errors": report.log_errors,
               "elapsed_s": round(report.elapsed_s, 1), "stateful": report.stateful, "rounds": report.rounds}
    (out / "api.json").write_text(json.dumps(payload, indent=1, default=str))
    server_errors = sum(v for k, v in report.statuses.items() if k >= 500)
    real = [p for p in report.problems if not str(p["problem"]).startswith("generation:")]
    lines = ["## The HTTP API under Schemathesis", "",
             f"Command: `{command}` at {commit}. Machine: {machine}.  ",
             f"Schemathesis over `/openapi.json` of the app `groundsql serve` runs (scripted demo model, demo shop, "
             f"in-process ASGI): {len(report.by_operation)} operations, positive and negative generation, "
             f"{report.requests:,} requests in {report.elapsed_s / 60:.1f} min, {report.rounds} pass(es) over the "
             f"operations (each with the next seed). Stateful: {report.stateful}.", "",
             "| measure | value |", "|---|---:|",
             f"| requests | {report.requests:,} |",
             f"| 5xx responses | {server_errors} (documented 502/504 among them: "
             f"{sum(v for k, v in report.statuses.items() if k in DOCUMENTED_5XX)}) |",
             f"| undocumented error shapes, tracebacks, echoes | {len(real)} |",
             f"| errors in the server's log | {report.log_errors} |", "",
             "Statuses: " + ", ".join(f"{k} × {v:,}" for k, v in sorted(report.statuses.items())) + ".", ""]
    gen = [p for p in report.problems if str(p["problem"]).startswith("generation:")]
    if gen:
        lines.append(f"Operations where a mode generated nothing: {len(gen)} "
                     f"({'; '.join(sorted({p['operation'] + ' ' + p['request'] for p in gen}))[:400]}).")
    for p in real[:20]:
        lines.append(f"- {p['operation']} → {p['status']}: {p['problem'][:200]} (request {p['request'][:200]})")
    (out / "api.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 1 if real else 0
