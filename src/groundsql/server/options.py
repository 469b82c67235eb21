"""The server's settings, shared by the HTTP API and the MCP server."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from groundsql.db import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT_S
from groundsql.pipelines import DEFAULT_PRESET


class ServerOptions(BaseModel):
    """Limits and defaults of one server process."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    preset: str = Field(DEFAULT_PRESET, description="Pipeline used when a request names none.")
    preset_options: dict = Field(default_factory=dict, description="Options passed to every preset run.")
    samples: int = Field(1, description="Candidates sampled where the preset votes.")
    record: bool = Field(True, description="Log every answer to the run store.")
    use_catalog: bool = Field(True, description="Show the model each database's catalog: the cached one, else profiled once when a question needs it.")
    statement_timeout_s: float = Field(DEFAULT_TIMEOUT_S, description="Time limit of one SQL statement.")
    max_rows: int = Field(DEFAULT_MAX_ROWS, description="Row cap of one SQL statement.")
    ask_timeout_s: float = Field(600.0, description="Time limit of one ask request; past it the run is cancelled.")
    model_concurrency: int | None = Field(
        None, description="Asks answered at once (None: 1 for the embedded local model, else 4).")
    queue_size: int = Field(16, description="Asks waiting for the model at most; beyond it requests get 429.")
    sql_workers: int = Field(8, description="Threads running SQL, schema and profile requests.")
    max_body_bytes: int = Field(65_536, description="Largest request body accepted (413 beyond).")
    api_token: str | None = Field(None, description="Bearer token required on /v1 and /mcp when set.")
    shutdown_grace_s: float = Field(10.0, description="Seconds in-flight requests get to finish on shutdown.")
    runs_max_age_days: float | None = Field(
        None, description="Run store retention: runs older than this are pruned (None: GROUNDSQL_RUNS_MAX_AGE_DAYS, "
                          "else 90; 0: no limit).")
    runs_max_runs: int | None = Field(
        None, description="Run store retention: runs kept at most (None: GROUNDSQL_RUNS_MAX_RUNS, else 100000; 0: "
                          "no limit).")
    runs_max_mb: float | None = Field(
        None, description="Run store retention: megabytes of data kept at most (None: GROUNDSQL_RUNS_MAX_MB, else "
                          "500; 0: no limit).")
    conversations_max_age_days: float | None = Field(
        None, description="Conversation retention: conversations not used for this many days are pruned (None: "
                          "GROUNDSQL_CONVERSATIONS_MAX_AGE_DAYS, else 90; 0: no limit).")
    conversations_max: int | None = Field(
        None, description="Conversation retention: conversations kept at most, the most recently used (None: "
                          "GROUNDSQL_CONVERSATIONS_MAX, else 10000; 0: no limit).")
