"""Marking answers and the evaluation suite over the HTTP API and MCP: a workspace on a demo database (with its
knowledge folder), the scripted demo model for control flow, the real run store, guard and scoring."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from groundsql.evaluation import run_suite
from groundsql.knowledge.store import write_demo_knowledge
from groundsql.server.app import create_app
from groundsql.server.testing import demo_model

from .conftest import make_workspace

pytestmark = pytest.mark.integration


@pytest.fixture()
def shop(demo_db: Path, tmp_path: Path) -> Path:
    path = tmp_path / "shop.sqlite"
    shutil.copy(demo_db, path)
    write_demo_knowledge(path)
    return path


@pytest.fixture()
def api(shop: Path, tmp_path: Path):
    from fastapi.testclient import TestClient

    workspace = make_workspace(shop, tmp_path)
    with TestClient(create_app(workspace, mcp=False)) as client:
        yield client, workspace
    workspace.close()


def test_mark_an_answer_right_or_wrong_with_a_checked_correction(api, shop: Path) -> None:
    client, _ = api
    right = client.post("/v1/ask", json={"question": "How many customers per region?"}).json()
    wrong = client.post("/v1/ask", json={"question": "How many active customers are there?"}).json()
    marked = client.post(f"/v1/runs/{right['run_id']}/mark", json={"verdict": "right"})
    assert marked.status_code == 200 and marked.json()["verdict"] == "right" and marked.json()["check"] is None
    refused = client.post(f"/v1/runs/{wrong['run_id']}/mark", json={"verdict": "wrong", "sql": "DELETE FROM orders"})
    assert refused.status_code == 400 and "refused" in refused.json()["error"]["message"]
    assert client.get(f"/v1/runs/{wrong['run_id']}").json()["mark"] is None
    corrected = "SELECT count(*) AS active FROM customers WHERE status = 'A'"
    body = client.post(f"/v1/runs/{wrong['run_id']}/mark",
                       json={"verdict": "wrong", "sql": corrected, "learn": True}).json()
    assert body["corrected_sql"] == corrected and body["check"]["columns"] == ["active"]
    assert body["learned"]["added"] and body["learned"]["path"].endswith("examples.yaml")
    assert "How many active customers are there?" in (shop.parent / "shop.sqlite.knowledge" / "examples.yaml").read_text()
    assert client.get(f"/v1/runs/{wrong['run_id']}").json()["mark"]["corrected_sql"] == corrected
    assert [r["mark"] for r in client.get("/v1/runs").json()["runs"]] == ["wrong", "right"]
    assert client.post("/v1/runs/9999/mark", json={"verdict": "right"}).status_code == 404
    assert client.post(f"/v1/runs/{right['run_id']}/mark", json={"verdict": "maybe"}).status_code == 422
    assert client.post(f"/v1/runs/{right['run_id']}/mark", json={"verdict": "right", "extra": 1}).status_code == 422


def test_build_a_suite_and_see_its_runs_and_diff(api) -> None:
    client, workspace = api
    empty = client.get("/v1/suites").json()
    assert empty["suites"] == [] and empty["jobs"] == [] and empty["default_preset"] in empty["presets"]
    asked = client.post("/v1/ask", json={"question": "How many customers per region?"}).json()
    client.post(f"/v1/runs/{asked['run_id']}/mark", json={"verdict": "right"})
    built = client.post("/v1/databases/shop/suite")
    assert built.status_code == 201
    report = built.json()
    assert (report["questions"], report["from_examples"], report["from_runs"]) == (3, 2, 1)
    suites = client.get("/v1/suites").json()["suites"]
    assert [(s["database_name"], s["questions"], s["runs"]) for s in suites] == [("shop", 3, [])]
    for preset in ("baseline", "refine"):
        run_suite(report["path"], preset=preset, model=demo_model())
    suite = client.get("/v1/suites").json()["suites"][0]
    assert [r["preset"] for r in suite["runs"]] == ["baseline", "refine"]
    assert suite["latest"]["preset"] == "refine" and len(suite["latest"]["answers"]) == 3
    assert suite["regression"]["previous"]["name"] == suite["runs"][0]["name"]
    assert suite["regression"]["common"] == 3
    assert client.post("/v1/databases/nope/suite").status_code == 404
    assert workspace.suites_dir == workspace.runs.path.parent / "suites"


def test_mark_answer_over_mcp(shop: Path, tmp_path: Path) -> None:
    pytest.importorskip("mcp", reason="the mcp SDK is not installed")
    from mcp import Client

    from groundsql.server.mcp_server import build_mcp_server
    from groundsql.server.testing import BackgroundServer, run_async

    workspace = make_workspace(shop, tmp_path)

    async def main() -> None:
        with BackgroundServer(build_mcp_server(workspace).streamable_http_app()) as http:
            async with Client(http.url + "/mcp") as client:
                answer = await client.call_tool("ask", {"question": "How many orders were placed?"})
                run_id = answer.structured_content["run_id"]
                result = await client.call_tool("mark_answer", {
                    "run_id": run_id, "verdict": "wrong",
                    "corrected_sql": "SELECT count(*) FROM orders WHERE status <> 'X'"})
                assert not result.is_error, result.content[0].text
                assert result.structured_content["verdict"] == "wrong"
                assert result.structured_content["check"]["row_count"] == 1
                refused = await client.call_tool("mark_answer", {"run_id": run_id, "verdict": "wrong",
                                                                 "corrected_sql": "DROP TABLE orders"})
                assert refused.is_error and "refused" in refused.content[0].text
    try:
        run_async(main)
        assert workspace.runs.recent(1)[0]["mark"] == "wrong"
    finally:
        workspace.close()
