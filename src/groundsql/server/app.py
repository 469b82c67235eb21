"""The HTTP API (versioned under /v1), the web UI at / and an offline docs page, as one FastAPI app."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from functools import partial
from http import HTTPStatus
from importlib import resources
from typing import Annotated, Any, Literal

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi import Path as PathParameter
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, JSONResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Route

import groundsql
from groundsql.db.result import json_safe
from groundsql.errors import ConfigError, DatabaseError, GroundsqlError, ModelError, QueryTimeout
from groundsql.inputs import MAX_EVIDENCE_CHARS, MAX_QUESTION_CHARS, check_evidence, check_question
from groundsql.pipelines import PRESETS
from groundsql.server.auth import UNAUTHORIZED, UNAUTHORIZED_MCP, token_matches
from groundsql.server.gate import QueueFull, RunCancelled
from groundsql.server.memory import TRIM_EVERY_S, trim_heap
from groundsql.server.payloads import WatchedTrace
from groundsql.server.workspace import Workspace

log = logging.getLogger("groundsql")
STATIC = resources.files("groundsql.server").joinpath("static")
STREAM_POLL_S = 0.25
#: After the ask time limit, how long a cancelled run may take to stop and return its best answer so far.
PARTIAL_GRACE_S = 15.0
# The page talks to this server only; vega compiles its expressions with Function (hence 'unsafe-eval') and
# vega-embed adds a style element.
PAGE_POLICY = ("default-src 'self'; script-src 'self' 'unsafe-eval'; style-src 'self' 'unsafe-inline'; "
               "img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
               "form-action 'none'")


# -- request bodies ---------------------------------------------------------------------------------------


def _library_check(check):
    """A field validator from one of `groundsql.inputs`' checks: the same limits and messages as the library and
    the CLI (its `ConfigError` becomes a validation error, answered 422 in the error shape)."""
    def validate(value):
        try:
            return check(value)
        except ConfigError as exc:
            raise ValueError(str(exc)) from None
    return AfterValidator(validate)


Question = Annotated[str, _library_check(check_question), Field(
    description=f"The question, in plain language (at most {MAX_QUESTION_CHARS:,} characters; not blank).",
    json_schema_extra={"maxLength": MAX_QUESTION_CHARS})]
Evidence = Annotated[str | None, _library_check(check_evidence), Field(
    description=f"Extra knowledge: definitions, rules (at most {MAX_EVIDENCE_CHARS:,} characters).",
    json_schema_extra={"maxLength": MAX_EVIDENCE_CHARS})]


#: A run's id: SQLite's integer range (a larger number overflowed the driver: a 500 before, found by fuzzing).
RunId = Annotated[int, PathParameter(ge=1, le=2**63 - 1, description="The run's id (from /v1/runs or an answer).")]


class AskRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: Question
    database: str | None = Field(None, description="A database name from /v1/databases (default: the first).")
    evidence: Evidence = None
    preset: str | None = Field(None, description="Pipeline to run (default: the server's).")
    conversation_id: str | None = Field(None, description="Ask as the next turn of this conversation.")


class FollowUpRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: Question
    evidence: Evidence = None
    preset: str | None = None


class SqlRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    sql: str = Field(min_length=1, max_length=20000, description="One read-only statement.")
    database: str | None = None
    max_rows: int | None = Field(None, ge=1, description="Row cap (never above the server's).")


class ConversationRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    database: str | None = None
    title: str | None = Field(None, max_length=200)


class ExampleRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: Question
    sql: str = Field(min_length=1, max_length=20000, description="One read-only statement; run once to check it.")


class MarkRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    verdict: Literal["right", "wrong"] = Field(description="Whether the run's answer is right.")
    sql: str | None = Field(None, max_length=20000, description="With wrong: the corrected query (run through "
                            "the guard before the mark is stored).")
    learn: bool = Field(False, description="Also add the question with its right SQL as a verified example.")


class SuiteRunRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    preset: str | None = Field(None, description="The preset to score the suite with (default: the server's).")


class RuleRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1, max_length=4000, description="The rule in plain language.")
    tables: list[str] = Field(default_factory=list, max_length=50, description="Tables the rule is about.")


# -- the app ----------------------------------------------------------------------------------------------


def create_app(workspace: Workspace, *, mcp: bool = True, host: str = "127.0.0.1") -> FastAPI:
    """The ASGI app serving `workspace`: the API under /v1, the UI at /, docs at /docs and, with `mcp` (when the
    SDK is installed), the MCP server over streamable HTTP at /mcp. `host` is the address served (MCP checks the
    Host header against it)."""
    options = workspace.options
    sql_pool = ThreadPoolExecutor(max_workers=options.sql_workers, thread_name_prefix="groundsql-sql")
    ask_pool = ThreadPoolExecutor(max_workers=workspace.gate.capacity, thread_name_prefix="groundsql-ask")
    mcp_server, mcp_endpoint = _mcp_endpoint(workspace, host) if mcp else (None, None)

    async def trim_now_and_then() -> None:
        while True:  # freed heap back to the system, so a server's RSS follows its live data (server/memory.py)
            await asyncio.sleep(TRIM_EVERY_S)
            trim_heap()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        trimmer = asyncio.create_task(trim_now_and_then())
        try:
            if mcp_server is not None:
                async with mcp_server.session_manager.run():
                    yield
            else:
                yield
        finally:
            trimmer.cancel()
        workspace.suite_runner.stop()
        cancelled = workspace.cancel_all()
        if cancelled:
            log.info("shutting down: cancelled %d run(s) in flight", cancelled)
        ask_pool.shutdown(wait=False, cancel_futures=True)
        sql_pool.shutdown(wait=False, cancel_futures=True)

    app = FastAPI(title="groundsql", version=groundsql.__version__, docs_url=None, redoc_url=None,
                  lifespan=lifespan, description="Ask questions of your databases; every statement runs "
                  "read-only through the SQL guard with time and row limits.")
    app.state.workspace = workspace

    async def in_pool(pool: ThreadPoolExecutor, function, *args, **kwargs):
        return await asyncio.get_running_loop().run_in_executor(pool, partial(function, *args, **kwargs))

    @app.exception_handler(GroundsqlError)
    async def library_error(request: Request, exc: GroundsqlError) -> JSONResponse:
        return error_response(exc)

    @app.exception_handler(Exception)
    async def unexpected_error(request: Request, exc: Exception) -> JSONResponse:
        # a bug, never the client's input: the documented error shape, no traceback and nothing echoed
        log.error("unexpected %s on %s %s", type(exc).__name__, request.method, request.url.path, exc_info=exc)
        return JSONResponse({"error": {"type": "InternalError", "message": "internal error; the server's log has "
                                       "the details"}}, status_code=500)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": {"type": "InvalidRequest", "message": validation_message(exc.errors())}},
                            status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        try:
            kind = "".join(word.capitalize() for word in HTTPStatus(exc.status_code).phrase.split())
        except ValueError:
            kind = "HTTPError"
        return JSONResponse({"error": {"type": kind, "message": str(exc.detail)}}, status_code=exc.status_code,
                            headers=getattr(exc, "headers", None))

    # -- middleware: token, then body size ---------------------------------------------------------------

    @app.middleware("http")
    async def guard_requests(request: Request, call_next):
        path = request.url.path
        protected = options.api_token and (path.startswith("/v1") or path.startswith("/mcp"))
        if protected and not token_matches(request.headers.get("authorization"), options.api_token):
            return JSONResponse(UNAUTHORIZED_MCP if path.startswith("/mcp") else UNAUTHORIZED, status_code=401,
                                headers={"WWW-Authenticate": "Bearer"})
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > options.max_body_bytes):
            return JSONResponse({"error": {"type": "TooLarge", "message": f"request bodies are limited to "
                                           f"{options.max_body_bytes} bytes"}}, status_code=413)
        if length is None and request.method in {"POST", "PUT", "PATCH"} \
                and "chunked" in request.headers.get("transfer-encoding", ""):
            return JSONResponse({"error": {"type": "LengthRequired", "message": "send a Content-Length"}},
                                status_code=411)
        return await call_next(request)

    v1 = APIRouter(prefix="/v1")

    @v1.get("/health", summary="Liveness and version")
    async def health() -> dict[str, Any]:
        return {"status": "ok", "version": groundsql.__version__, "model": workspace.model.spec,
                "preset": options.preset, "queue": {"admitted": workspace.gate.admitted,
                                                    "capacity": workspace.gate.capacity}}

    @v1.get("/databases", summary="The databases this server answers about")
    async def databases() -> dict[str, Any]:
        return {"databases": workspace.list_databases()}

    @v1.get("/databases/{name}/schema", summary="Tables, columns, keys (and semantic types once profiled)")
    async def schema(name: str) -> dict[str, Any]:
        return await in_pool(sql_pool, workspace.schema, name)

    @v1.get("/databases/{name}/profile", summary="The catalog: per-table and per-column profiles")
    async def profile(name: str, table: str | None = None) -> dict[str, Any]:
        return await in_pool(sql_pool, workspace.profile, name, table)

    @v1.get("/databases/{name}/values", summary="Stored values that a piece of text names")
    async def values(name: str, q: str = Query(min_length=1, max_length=200),
                     limit: int = Query(10, ge=1, le=100)) -> dict[str, Any]:
        return await in_pool(sql_pool, workspace.search_values, q, name, limit)

    @v1.get("/databases/{name}/knowledge", summary="The database's knowledge folder: counts, items, problems")
    async def knowledge(name: str) -> dict[str, Any]:
        return await in_pool(sql_pool, workspace.knowledge, name)

    @v1.get("/databases/{name}/knowledge/search", summary="Knowledge items BM25 finds for a piece of text")
    async def knowledge_search(name: str, q: str = Query(min_length=1, max_length=2000),
                               k: int = Query(5, ge=1, le=50)) -> dict[str, Any]:
        return await in_pool(sql_pool, workspace.search_knowledge, q, name, k)

    @v1.post("/databases/{name}/knowledge/examples", summary="Add a verified example (checked to run read-only)")
    async def add_example(name: str, body: ExampleRequest, response: Response) -> dict[str, Any]:
        outcome = await in_pool(sql_pool, workspace.add_example, body.question, body.sql, name)
        response.status_code = 201 if outcome["added"] else 200
        return outcome

    @v1.post("/databases/{name}/knowledge/rules", summary="Add a business rule in plain language")
    async def add_rule(name: str, body: RuleRequest, response: Response) -> dict[str, Any]:
        outcome = await in_pool(sql_pool, workspace.add_rule, body.text, name, body.tables)
        response.status_code = 201 if outcome["added"] else 200
        return outcome

    @v1.post("/sql", summary="Run one read-only statement through the SQL guard and limits")
    async def run_sql(body: SqlRequest) -> dict[str, Any]:
        try:
            return await asyncio.wait_for(in_pool(sql_pool, workspace.run_sql, body.sql, body.database,
                                                  body.max_rows), timeout=options.statement_timeout_s + 5)
        except asyncio.TimeoutError:
            raise QueryTimeout(f"the statement did not finish within {options.statement_timeout_s:g} s") from None

    @v1.post("/ask", summary="Answer a question: SQL, table, confidence, warnings, explanation, chart")
    async def ask(body: AskRequest) -> dict[str, Any]:
        return await answer(body.question, body.database, body.conversation_id, body.evidence, body.preset)

    @v1.post("/ask/stream", summary="The same answer as a server-sent event stream of steps as they happen",
             response_class=StreamingResponse)
    async def ask_stream(body: AskRequest, request: Request) -> StreamingResponse:
        return stream_answer(request, body.question, body.database, body.conversation_id, body.evidence,
                             body.preset)

    @v1.get("/runs", summary="Recent runs from the run store")
    async def runs(limit: int = Query(20, ge=1, le=500)) -> dict[str, Any]:
        return {"runs": await in_pool(sql_pool, workspace.runs.recent, limit)}

    @v1.get("/runs/{run_id}", summary="One run with its full trace")
    async def run(run_id: RunId) -> dict[str, Any]:
        found = await in_pool(sql_pool, workspace.runs.get, run_id)
        if found is None:
            raise NotFound(f"no run {run_id}")
        return json.loads(json.dumps(found, default=json_safe))

    @v1.get("/runs/{run_id}/result", summary="Download a run's result as CSV, Parquet, Excel or JSON (its SQL run "
            "again under the row cap)", response_class=StreamingResponse)
    async def run_result(run_id: RunId, format: Literal["csv", "parquet", "xlsx", "json"] = "csv"
                         ) -> StreamingResponse:
        result, info = await in_pool(sql_pool, workspace.run_result, run_id)
        return download_response(result, info, format, f"groundsql-run-{run_id}")

    @v1.post("/runs/{run_id}/mark", summary="Mark a run's answer right or wrong (with the corrected SQL)")
    async def mark(run_id: RunId, body: MarkRequest) -> dict[str, Any]:
        return await in_pool(sql_pool, workspace.mark_run, run_id, body.verdict, body.sql, body.learn)

    @v1.get("/suites", summary="Evaluation suites: runs, the latest results and the diff with the run before")
    async def suites() -> dict[str, Any]:
        return {"suites": await in_pool(sql_pool, workspace.suites), "presets": sorted(PRESETS),
                "default_preset": options.preset, "jobs": workspace.suite_runner.recent()}

    @v1.post("/suites/{suite}/runs", summary="Start scoring a suite with a preset (in the background)",
             status_code=202)
    async def run_suite(suite: str, body: SuiteRunRequest | None = None) -> dict[str, Any]:
        return await in_pool(sql_pool, workspace.run_suite, suite, (body or SuiteRunRequest()).preset)

    @v1.get("/suites/jobs/{job_id}", summary="A suite run's progress: state, questions done, right so far")
    async def suite_job(job_id: int) -> dict[str, Any]:
        return workspace.suite_job(job_id)

    @v1.post("/databases/{name}/suite", summary="Build the database's suite from verified examples and marks",
             status_code=201)
    async def build_suite(name: str) -> dict[str, Any]:
        return await in_pool(sql_pool, workspace.build_suite, name)

    @v1.post("/conversations", summary="Start a conversation", status_code=201)
    async def create_conversation(body: ConversationRequest | None = None) -> dict[str, Any]:
        body = body or ConversationRequest()
        return await in_pool(sql_pool, workspace.create_conversation, body.database, body.title)

    @v1.get("/conversations", summary="Recent conversations")
    async def conversations(limit: int = Query(20, ge=1, le=500)) -> dict[str, Any]:
        return {"conversations": await in_pool(sql_pool, workspace.conversations.recent, limit)}

    @v1.get("/conversations/{conversation_id}", summary="A conversation's history")
    async def conversation(conversation_id: str) -> dict[str, Any]:
        found = await in_pool(sql_pool, workspace.conversations.get, conversation_id)
        return found.to_dict()

    @v1.post("/conversations/{conversation_id}/ask", summary="Ask the conversation's next question")
    async def follow_up(conversation_id: str, body: FollowUpRequest) -> dict[str, Any]:
        return await answer(body.question, None, conversation_id, body.evidence, body.preset)

    @v1.post("/conversations/{conversation_id}/ask/stream", summary="The next question, as an event stream",
             response_class=StreamingResponse)
    async def follow_up_stream(conversation_id: str, body: FollowUpRequest, request: Request) -> StreamingResponse:
        return stream_answer(request, body.question, None, conversation_id, body.evidence, body.preset)

    async def answer(question, database, conversation_id, evidence, preset) -> dict[str, Any]:
        ticket = workspace.admit()
        trace = WatchedTrace()
        future = asyncio.get_running_loop().run_in_executor(ask_pool, partial(
            workspace.ask, question, database, conversation_id=conversation_id, evidence=evidence, preset=preset,
            trace=trace, ticket=ticket))
        try:
            return await asyncio.wait_for(asyncio.shield(future), timeout=options.ask_timeout_s)
        except asyncio.TimeoutError:
            trace.cancelled.set()  # the run stops at its next step and returns its best answer so far, if any
            try:
                return await asyncio.wait_for(asyncio.shield(future), timeout=PARTIAL_GRACE_S)
            except (asyncio.TimeoutError, RunCancelled):
                pass
            raise RunCancelled(f"the question took longer than {options.ask_timeout_s:g} s and was cancelled") \
                from None
        except asyncio.CancelledError:  # the client went away
            trace.cancelled.set()
            raise

    def stream_answer(request: Request, question, database, conversation_id, evidence, preset) -> StreamingResponse:
        ticket = workspace.admit()  # a full queue answers 429 before the stream starts
        loop = asyncio.get_running_loop()
        events: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        trace = WatchedTrace(lambda step: loop.call_soon_threadsafe(events.put_nowait, ("step", step)),
                             on_start=lambda now: loop.call_soon_threadsafe(events.put_nowait, ("running", now)),
                             on_provisional=lambda first: loop.call_soon_threadsafe(
                                 events.put_nowait, ("provisional", json.loads(json.dumps(first, default=json_safe)))))

        def work() -> None:
            try:
                payload = workspace.ask(question, database, conversation_id=conversation_id, evidence=evidence,
                                        preset=preset, trace=trace, ticket=ticket)
                loop.call_soon_threadsafe(events.put_nowait, ("answer", payload))
            except GroundsqlError as exc:
                loop.call_soon_threadsafe(events.put_nowait, ("error", error_body(exc)))
            except Exception as exc:  # noqa: BLE001 - reported to the client, never a hung stream
                log.exception("ask failed")
                loop.call_soon_threadsafe(events.put_nowait, ("error", {"type": type(exc).__name__,
                                                                        "message": "internal error"}))

        async def generate():
            loop.run_in_executor(ask_pool, work)
            deadline = loop.time() + options.ask_timeout_s
            finished = False
            try:
                while True:
                    if await request.is_disconnected():
                        trace.cancelled.set()
                        log.info("client disconnected: run cancelled")
                        return
                    if loop.time() > deadline and not trace.cancelled.is_set():
                        trace.cancelled.set()  # its best answer so far (if any) still arrives, marked partial
                        deadline = loop.time() + PARTIAL_GRACE_S
                    elif loop.time() > deadline:
                        yield sse("error", {"type": "RunCancelled", "message": "the question ran out of time"})
                        return
                    try:
                        kind, data = await asyncio.wait_for(events.get(), timeout=STREAM_POLL_S)
                    except asyncio.TimeoutError:
                        continue
                    if kind in {"answer", "error"}:
                        finished = True
                    yield sse(kind, data)
                    if finished:
                        return
            finally:
                if not finished:  # the client went away or the stream was closed: stop the run
                    trace.cancelled.set()

        return StreamingResponse(generate(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    app.include_router(v1)

    # -- UI and docs -------------------------------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(str(STATIC.joinpath("index.html")), headers={
            "Cache-Control": "no-store", "Content-Security-Policy": PAGE_POLICY, "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer"})

    @app.get("/suite", include_in_schema=False)
    async def suite_page() -> FileResponse:
        return FileResponse(str(STATIC.joinpath("suite.html")), headers={
            "Cache-Control": "no-store", "Content-Security-Policy": PAGE_POLICY, "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer"})

    @app.get("/docs", include_in_schema=False)
    async def docs() -> Response:
        return get_swagger_ui_html(openapi_url="/openapi.json", title="groundsql API",
                                   swagger_js_url="/static/vendor/swagger-ui-bundle.js",
                                   swagger_css_url="/static/vendor/swagger-ui.css",
                                   swagger_favicon_url="/static/favicon.svg")

    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
    if mcp_endpoint is not None:
        app.router.routes.append(Route("/mcp", endpoint=mcp_endpoint, include_in_schema=False))
    return app


def _mcp_endpoint(workspace: Workspace, host: str) -> tuple[Any, Any]:
    """The MCP server and its streamable-HTTP endpoint, or (None, None) without the SDK."""
    try:
        from groundsql.server.mcp_server import build_mcp_server
    except ImportError:
        return None, None
    server = build_mcp_server(workspace)
    starlette_app = server.streamable_http_app(streamable_http_path="/mcp", host=host)
    return server, starlette_app.routes[0].endpoint


def download_response(result: Any, info: Any, kind: str, stem: str) -> StreamingResponse:
    """A result as a file download: CSV and JSON streamed a chunk of rows at a time, Parquet and Excel built
    then sent in pieces; the row cap and whether it cut the result in headers (CSV has no room for them)."""
    from groundsql.db.exports import MEDIA_TYPES, csv_chunks, export_bytes, json_chunks

    if kind == "csv":
        body: Any = csv_chunks(result)
    elif kind == "json":
        body = json_chunks(result, info)
    else:
        data = export_bytes(result, kind, info)
        body = (data[i:i + 65536] for i in range(0, len(data), 65536))
    headers = {"Content-Disposition": f'attachment; filename="{stem}.{kind}"', "Cache-Control": "no-store",
               "X-Groundsql-Row-Count": str(info.row_count),
               "X-Groundsql-Row-Cap": "" if info.row_cap is None else str(info.row_cap),
               "X-Groundsql-Truncated": "true" if info.truncated else "false"}
    return StreamingResponse(body, media_type=MEDIA_TYPES[kind], headers=headers)


class NotFound(ConfigError):
    """A run, conversation or database that does not exist."""


def sse(event: str, data: Any) -> str:
    return f"event: {event}\ndata: {json.dumps(data, default=json_safe)}\n\n"


def error_body(exc: BaseException) -> dict[str, Any]:
    return {"type": type(exc).__name__, "message": str(exc)}


def validation_message(errors: Sequence[Any]) -> str:
    """One line naming each problem of a request and the field it is in, never echoing what was sent."""
    problems = []
    for error in errors:
        where = [str(part) for part in error.get("loc", ()) if part not in ("body",)]
        field = ".".join(where[1:] if where and where[0] in {"query", "path", "header"} else where)
        kind = error.get("type", "")
        message = str(error.get("msg", "is not valid")).removeprefix("Value error, ")
        if kind == "json_invalid":
            problem = "the body is not valid JSON; send a JSON object (Content-Type: application/json)"
        elif kind == "missing":
            problem = f"{field} is required" if field else "the body is missing; send a JSON object"
        elif kind == "extra_forbidden":
            problem = f"unknown field {field!r}"
        elif kind in {"model_attributes_type", "dict_type"} and not field:
            problem = "the body must be a JSON object (Content-Type: application/json)"
        else:
            problem = f"{field}: {message}" if field else message
        if problem not in problems:
            problems.append(problem)
    return "; ".join(problems) or "the request is not valid"


def error_response(exc: GroundsqlError) -> JSONResponse:
    headers: dict[str, str] = {}
    if isinstance(exc, QueueFull):
        status = 429
        headers["Retry-After"] = str(exc.retry_after_s)
    elif isinstance(exc, NotFound) or (isinstance(exc, ConfigError) and str(exc).startswith("no ")):
        status = 404
    elif isinstance(exc, (RunCancelled, QueryTimeout)):
        status = 504
    elif isinstance(exc, ModelError):
        status = 502
    elif isinstance(exc, (ConfigError, DatabaseError)):
        status = 400
    else:
        status = 500
    return JSONResponse({"error": error_body(exc)}, status_code=status, headers=headers)
