"""A knowledge folder configured by name for a database that is not a file (PostgreSQL): the /v1 knowledge
endpoints, MCP `search_knowledge` and asks through the server all use it."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from fastapi.testclient import TestClient

from groundsql.errors import ConfigError
from groundsql.runs import RunStore
from groundsql.server import ServerOptions, Workspace
from groundsql.server.app import create_app
from groundsql.server.testing import BackgroundServer, demo_model, run_async

from ..conftest import copy_sqlite_to_server

pytestmark = pytest.mark.integration

RULE = "A large order has a total above 500"


@pytest.fixture()
def sales_url(demo_db: Path, postgres_database: str) -> str:
    """A fresh PostgreSQL database holding the demo shop's regions, customers and orders."""
    copy_sqlite_to_server(demo_db, postgres_database, tables=["regions", "customers", "orders"])
    return postgres_database


def test_a_postgres_database_carries_its_configured_knowledge_folder(sales_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "sales.knowledge"  # not created yet: the first addition creates it
    workspace = Workspace({"sales": sales_url}, demo_model(), ServerOptions(preset="baseline"),
                          runs=RunStore(tmp_path / "runs.sqlite"), knowledge={"sales": folder})
    with TestClient(create_app(workspace, mcp=False)) as client:
        empty = client.get("/v1/databases/sales/knowledge").json()
        assert empty == {"database": "sales", "folder": str(folder), "found": False, "counts": {}, "items": [],
                         "problems": []}
        assert client.get("/v1/databases/sales/knowledge/search", params={"q": "large"}).json()["items"] == []

        rule = client.post("/v1/databases/sales/knowledge/rules", json={"text": RULE, "tables": ["orders"]})
        assert rule.status_code == 201 and rule.json()["path"] == str(folder / "rules.yaml")
        assert yaml.safe_load((folder / "rules.yaml").read_text()) == {"rules": [{"text": RULE,
                                                                                  "tables": ["orders"]}]}
        example = client.post("/v1/databases/sales/knowledge/examples", json={
            "question": "How many regions are there?", "sql": "SELECT count(*) FROM regions"})
        assert example.status_code == 201  # checked by running it on PostgreSQL
        broken = client.post("/v1/databases/sales/knowledge/examples", json={
            "question": "Planets?", "sql": "SELECT name FROM planets"})
        assert broken.status_code == 400 and "no longer runs" in broken.json()["error"]["message"]

        listed = client.get("/v1/databases/sales/knowledge").json()
        assert listed["found"] and listed["counts"]["rules"] == 1 and listed["counts"]["examples"] == 1
        found = client.get("/v1/databases/sales/knowledge/search", params={"q": "large orders", "k": 3}).json()
        assert found["items"][0]["text"] == RULE and found["items"][0]["source"].startswith("rules.yaml:")

        answer = client.post("/v1/ask", json={"question": "How many large orders are there?"})
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["database"] == "sales" and body["error"] is None and body["run_id"] is not None
        recorded = client.get(f"/v1/runs/{body['run_id']}").json()
        prompts = [m["content"] for e in recorded["trace"] if e.get("messages") for m in e["messages"]]
        assert prompts and any(RULE in p for p in prompts)  # the rule reached the prompt actually sent
        loaded = [e for e in recorded["trace"] if e.get("step") == "knowledge.loaded"]
        assert loaded and loaded[0]["data"]["folder"] == str(folder)

    async def mcp_search() -> None:
        from mcp import Client

        from groundsql.server.mcp_server import build_mcp_server

        with BackgroundServer(build_mcp_server(workspace).streamable_http_app()) as http:
            async with Client(http.url + "/mcp") as mcp_client:
                result = await mcp_client.call_tool("search_knowledge", {"query": "large orders", "k": 2})
                assert not result.is_error, result.content[0].text
                assert result.structured_content["items"][0]["text"] == RULE

    try:
        pytest.importorskip("mcp", reason="the mcp SDK is not installed (pip install 'groundsql[server]')")
        run_async(mcp_search)
    finally:
        workspace.close()


def test_a_folder_for_an_unknown_database_is_refused(demo_db: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not a served database"):
        Workspace({"shop": str(demo_db)}, demo_model(), runs=RunStore(tmp_path / "runs.sqlite"),
                  knowledge={"sales": tmp_path / "k"})


def test_config_and_flags_name_knowledge_folders(demo_db: Path, tmp_path: Path) -> None:
    from groundsql.cli.serve import configured_databases, parse_knowledge_args

    urls, folders = configured_databases({"shop": str(demo_db),
                                          "sales": {"url": "postgresql://me@db/sales", "knowledge": "k/sales"}})
    assert urls == {"shop": str(demo_db), "sales": "postgresql://me@db/sales"} and folders == {"sales": "k/sales"}
    with pytest.raises(ConfigError, match="unknown keys knowlege"):
        configured_databases({"sales": {"url": "postgresql://me@db/sales", "knowlege": "k"}})
    assert parse_knowledge_args(("sales=/srv/k", "./local.knowledge"), "shop") == {
        "sales": "/srv/k", "shop": "./local.knowledge"}
