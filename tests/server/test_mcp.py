"""The MCP server, driven by the official SDK's own client over streamable HTTP and stdio."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the mcp SDK is not installed (pip install 'groundsql[server]')")

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

from groundsql.server.auth import require_token  # noqa: E402
from groundsql.server.mcp_server import build_mcp_server  # noqa: E402
from groundsql.server.testing import BackgroundServer, run_async  # noqa: E402

from ..conftest import TEST_MODEL  # noqa: E402

pytestmark = pytest.mark.integration
TOOLS = {"list_databases", "list_tables", "describe_table", "search_values", "search_knowledge", "run_sql", "ask",
         "mark_answer"}


async def _explore(client: Client) -> None:
    """What every transport must support, without a language model."""
    assert {t.name for t in (await client.list_tools()).tools} == TOOLS
    tables = (await client.call_tool("list_tables", {})).structured_content
    assert "orders" in [t["name"] for t in tables["tables"]]
    result = await client.call_tool("run_sql", {"sql": "SELECT region_name FROM regions ORDER BY region_id",
                                                "max_rows": 2})
    assert not result.is_error
    assert result.content[0].text.splitlines()[:3] == ["region_name", "North", "South"]
    assert result.structured_content["rows"] == [["North"], ["South"]] and result.structured_content["truncated"]
    refused = await client.call_tool("run_sql", {"sql": "DROP TABLE regions"})
    assert refused.is_error and "refused" in refused.content[0].text
    described = (await client.call_tool("describe_table", {"table": "products"})).structured_content
    assert described["table"]["primary_key"] == ["product_id"]
    assert {c["name"]: c["semantic_type"] for c in described["profile"]["columns"]}["unit_price"] == "metric"
    matches = (await client.call_tool("search_values", {"text": "Nordik"})).structured_content["matches"]
    assert matches[0]["value"] == "Nordic"
    resources = (await client.list_resources()).resources
    assert len(resources) == 1 and str(resources[0].uri).endswith("/schema")
    content = (await client.read_resource(str(resources[0].uri))).contents[0].text
    assert '"name": "orders"' in content


def test_streamable_http_transport(workspace) -> None:
    async def main() -> None:
        server = build_mcp_server(workspace)
        with BackgroundServer(server.streamable_http_app()) as http:
            async with Client(http.url + "/mcp") as client:
                await _explore(client)
                answer = await client.call_tool("ask", {"question": "How many customers per region?"})
                assert answer.structured_content["row_count"] == 6
                assert answer.content[0].text.startswith("SQL: SELECT r.region_name")
                assert answer.structured_content["explanation"]

    run_async(main)


def test_search_knowledge(demo_db: Path, tmp_path: Path) -> None:
    """`search_knowledge` on a demo database with its knowledge folder (as `groundsql demo-db` writes it)."""
    import shutil

    from groundsql.knowledge.store import write_demo_knowledge

    from .conftest import make_workspace

    shop = tmp_path / "shop.sqlite"
    shutil.copy(demo_db, shop)
    write_demo_knowledge(shop)
    workspace = make_workspace(shop, tmp_path)

    async def main() -> None:
        with BackgroundServer(build_mcp_server(workspace).streamable_http_app()) as http:
            async with Client(http.url + "/mcp") as client:
                result = await client.call_tool("search_knowledge", {"query": "revenue of cancelled orders", "k": 3})
                assert not result.is_error, result.content[0].text
                items = result.structured_content["items"]
                assert 1 <= len(items) <= 3 and set(items[0]) == {"kind", "text", "score", "source"}
                assert items[0]["kind"] == "rule" and "Revenue" in items[0]["text"]
                assert items[0]["source"].startswith("rules.yaml:")
                assert [i["score"] for i in items] == sorted((i["score"] for i in items), reverse=True)
                unknown = await client.call_tool("search_knowledge", {"query": "x", "database": "nope"})
                assert unknown.is_error and "no database named" in unknown.content[0].text
    try:
        run_async(main)
    finally:
        workspace.close()


def test_streamable_http_with_a_token(workspace) -> None:
    import httpx

    server = build_mcp_server(workspace)
    with BackgroundServer(require_token(server.streamable_http_app(), "tok-123")) as http:
        refused = httpx.post(http.url + "/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert refused.status_code == 401


def _stdio(demo_db: Path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, env=dict(os.environ), args=[
        "-m", "groundsql.cli", "mcp", "--db", f"shop={demo_db}", "--model", TEST_MODEL, "--preset", "baseline"])


def test_stdio_transport(demo_db: Path) -> None:
    async def main() -> None:
        async with Client(_stdio(demo_db)) as client:
            await _explore(client)
            databases = (await client.call_tool("list_databases", {})).structured_content["databases"]
            assert databases[0]["name"] == "shop"

    run_async(main)


@pytest.mark.e2e
@pytest.mark.slow
def test_ask_with_the_real_model(music_db: Path, tmp_path: Path, local_model) -> None:
    """The full pipeline behind the `ask` tool, with the real 0.5B model (kept warm across e2e tests)."""
    from .conftest import make_workspace

    workspace = make_workspace(music_db, tmp_path, model=local_model, preset="baseline")

    async def main() -> None:
        with BackgroundServer(build_mcp_server(workspace).streamable_http_app()) as http:
            async with Client(http.url + "/mcp", read_timeout_seconds=240) as client:
                answer = await client.call_tool("ask", {"question": "How many singers are there?"})
                assert not answer.is_error, answer.content[0].text
                data = answer.structured_content
                assert data["sql"].lower().startswith(("select", "with")) and data["model"] == TEST_MODEL
                assert answer.content[0].text.startswith("SQL: ")

    run_async(main)


def test_serve_also_answers_mcp_at_slash_mcp(live_server) -> None:
    async def main() -> None:
        async with Client(live_server.url + "/mcp") as client:
            await _explore(client)

    run_async(main)


def _leaves(error: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups: the SDK's client raises its errors inside task groups."""
    inner = getattr(error, "exceptions", None)  # BaseExceptionGroup (a backport's on Python 3.10)
    return [leaf for child in inner for leaf in _leaves(child)] if isinstance(inner, tuple) else [error]


def test_the_documented_token_snippet_and_a_wrong_token(demo_db: Path, tmp_path: Path) -> None:
    """docs/server.md's Python snippet (the official SDK client with a bearer header) lists the tables of a server
    that needs a token; without the token, or with a wrong one, the client's error says what is missing."""
    import re
    import subprocess

    import httpx2
    from mcp import MCPError
    from mcp.client.streamable_http import streamable_http_client

    from groundsql.server.app import create_app

    from .conftest import make_workspace

    snippet = re.search(r"```python\n(.*?)```", (Path(__file__).resolve().parents[2] / "docs" / "server.md")
                        .read_text(), re.S).group(1)
    assert "GROUNDSQL_API_TOKEN" in snippet and "streamable_http_client" in snippet
    workspace = make_workspace(demo_db, tmp_path, api_token="doc-token-42")
    try:
        with BackgroundServer(create_app(workspace)) as server:
            run = subprocess.run([sys.executable, "-c", snippet.replace("http://127.0.0.1:8000", server.url)],
                                 env={**os.environ, "GROUNDSQL_API_TOKEN": "doc-token-42"}, capture_output=True,
                                 text=True, timeout=120)
            assert run.returncode == 0, run.stderr
            assert "'orders'" in run.stdout and "'customers'" in run.stdout

            async def connect(headers: dict[str, str]) -> None:
                async with httpx2.AsyncClient(headers=headers) as http, \
                        Client(streamable_http_client(server.url + "/mcp", http_client=http)) as client:
                    await client.list_tools()

            for headers in ({}, {"Authorization": "Bearer wrong-token"}):
                with pytest.raises(BaseException) as raised:
                    run_async(lambda headers=headers: connect(headers))
                errors = [e for e in _leaves(raised.value) if isinstance(e, MCPError)]
                assert len(errors) == 1, raised.value
                assert str(errors[0].error.message) == ("unauthorized: a valid bearer token is required "
                                                        "(Authorization: Bearer $GROUNDSQL_API_TOKEN)")
    finally:
        workspace.close()


def test_list_tables_counts_rows_the_same_over_serve_and_stdio(live_server, workspace, demo_db: Path) -> None:
    """After a question (which profiles the database), serve's /mcp and a fresh stdio server give the same row
    counts: the ones the database holds."""
    import httpx

    assert httpx.post(live_server.url + "/v1/ask", json={"question": "How many customers per region?"},
                      timeout=60).status_code == 200
    counts = {t: workspace.run_sql(f"SELECT COUNT(*) FROM {t}")["rows"][0][0] for t in ("customers", "orders")}

    async def rows(target) -> dict[str, int | None]:
        async with Client(target) as client:
            tables = (await client.call_tool("list_tables", {})).structured_content["tables"]
            return {t["name"]: t["row_count"] for t in tables}

    over_serve = run_async(lambda: rows(live_server.url + "/mcp"))
    over_stdio = run_async(lambda: rows(_stdio(demo_db)))
    assert over_serve == over_stdio
    assert {t: over_serve[t] for t in counts} == counts
