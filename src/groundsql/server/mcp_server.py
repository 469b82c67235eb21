"""The MCP server (official `mcp` SDK): groundsql's databases as tools and resources for agents.

Tools: list_databases, list_tables, describe_table, search_values, search_knowledge, run_sql, ask, mark_answer. Each
database's schema is a resource (``groundsql://databases/{name}/schema``).
"""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent

from groundsql.db.result import json_safe
from groundsql.errors import GroundsqlError
from groundsql.server.workspace import Workspace

TEXT_ROWS = 50  # rows shown in a tool's text content; the structured content carries all returned rows
CELL_CHARS = 60


def build_mcp_server(workspace: Workspace) -> MCPServer:
    """An `MCPServer` whose tools call `workspace` (the same calls the HTTP API makes)."""
    server = MCPServer(name="groundsql", instructions=(
        "Answer questions over the user's databases. Prefer `ask` for a question in plain language; use "
        "list_tables / describe_table / search_values / search_knowledge to look around and `run_sql` for read-only SQL you wrote. "
        "Every statement runs read-only through a SQL guard with time and row limits."))

    def call(function, *args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except GroundsqlError as exc:
            raise ToolError(str(exc)) from None

    @server.tool(description="The databases this server answers about: name, dialect, location.")
    def list_databases() -> dict[str, Any]:
        return {"databases": workspace.list_databases()}

    @server.tool(description="Tables of a database with their row counts and columns (names only).")
    def list_tables(database: str | None = None) -> dict[str, Any]:
        schema = call(workspace.schema, database)
        return {"database": schema["database"], "tables": [
            {"name": t["name"], "row_count": t["row_count"], "columns": [c["name"] for c in t["columns"]]}
            for t in schema["tables"]]}

    @server.tool(description="One table in detail: columns, types, keys, semantic types and its profile "
                             "(null ratios, distinct counts, top values, ranges).")
    def describe_table(table: str, database: str | None = None) -> dict[str, Any]:
        schema = call(workspace.schema, database)
        found = next((t for t in schema["tables"] if t["name"].lower() == table.lower()), None)
        if found is None:
            raise ToolError(f"no table {table!r}; tables: {', '.join(t['name'] for t in schema['tables'])}")
        profile = call(workspace.profile, database, found["name"])
        return {"database": schema["database"], "table": found, "profile": profile["tables"][0]}

    @server.tool(description="Stored values that a piece of text names (misspellings and codes included), "
                             "with the table and column holding each.")
    def search_values(text: str, database: str | None = None, limit: int = 10) -> dict[str, Any]:
        return call(workspace.search_values, text, database, limit)

    @server.tool(description="The user's knowledge about a database (business rules, glossary terms, verified "
                             "question-and-SQL examples, document sections) that matches a query, best first, "
                             "with kind, text, score and source.")
    def search_knowledge(query: str, database: str | None = None, k: int = 5) -> dict[str, Any]:
        return call(workspace.search_knowledge, query, database, k)

    @server.tool(description="Run one read-only SQL statement (guarded, time- and row-limited). Returns the rows "
                             "as a compact text table and as structured content.")
    def run_sql(sql: str, database: str | None = None, max_rows: int = 200) -> CallToolResult:
        data = call(workspace.run_sql, sql, database, max_rows)
        data.pop("chart", None)
        return _tool_result(_table_text(data), data)

    @server.tool(description="Answer a question in plain language with groundsql's full pipeline: the SQL it "
                             "ran, the result table, its confidence, warnings and a plain reading of the SQL.")
    def ask(question: str, database: str | None = None) -> CallToolResult:
        data = call(workspace.ask, question, database)
        keep = ("question", "sql", "columns", "rows", "row_count", "truncated", "error", "confidence", "warnings",
                "clarification", "preset", "model", "elapsed_s", "run_id", "database")
        compact = {k: data.get(k) for k in keep}
        compact["explanation"] = (data.get("explanation") or {}).get("sentences")
        lines = [f"SQL: {data['sql']}"]
        if data.get("clarification"):
            lines.append(f"Clarifying question: {data['clarification']}")
        if data.get("confidence") is not None:
            lines.append(f"Confidence: {data['confidence']:.2f}")
        lines += [f"Warning: {w}" for w in data.get("warnings") or []]
        if data.get("error"):
            lines.append(f"The query failed: {data['error']}")
        lines.append(_table_text(data))
        return _tool_result("\n".join(lines), compact)

    @server.tool(description="Mark an answer of `ask` (by its run_id) right or wrong. For a wrong answer give the "
                             "corrected SQL when you know it: it is run read-only through the guard before the mark "
                             "is stored. With learn=true the question and its right SQL also become a verified "
                             "example. Marked answers make up the database's evaluation suite.")
    def mark_answer(run_id: int, verdict: str, corrected_sql: str | None = None, learn: bool = False) -> dict[str, Any]:
        return call(workspace.mark_run, run_id, verdict, corrected_sql, learn)

    for name in workspace.databases:
        _add_schema_resource(server, workspace, name)
    return server


def _add_schema_resource(server: MCPServer, workspace: Workspace, name: str) -> None:
    @server.resource(f"groundsql://databases/{name}/schema", name=f"{name} schema", mime_type="application/json",
                     description=f"Tables, columns, keys and semantic types of the database {name!r}.")
    def schema() -> str:
        return json.dumps(workspace.schema(name), default=json_safe)


def _tool_result(text: str, structured: dict[str, Any]) -> CallToolResult:
    structured = json.loads(json.dumps(structured, default=json_safe))
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)


def _table_text(data: dict[str, Any]) -> str:
    columns, rows = data.get("columns") or [], data.get("rows") or []
    if not columns:
        return "(no result)"

    def cell(value: Any) -> str:
        text = "NULL" if value is None else str(value)
        return text if len(text) <= CELL_CHARS else text[: CELL_CHARS - 1] + "…"

    lines = [" | ".join(columns)] + [" | ".join(cell(v) for v in row) for row in rows[:TEXT_ROWS]]
    more = f"; showing {TEXT_ROWS}" if len(rows) > TEXT_ROWS else ""
    cut = " (cut at the row limit)" if data.get("truncated") else ""
    lines.append(f"({data.get('row_count', len(rows))} row(s){cut}{more})")
    return "\n".join(lines)
