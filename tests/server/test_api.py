"""The HTTP API in-process: every endpoint on the demo database, errors, limits and safety."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from groundsql.server.app import create_app
from groundsql.server.testing import demo_model

from .conftest import make_workspace

pytestmark = pytest.mark.integration


def test_health_databases_schema(client) -> None:
    assert client.get("/v1/health").json()["status"] == "ok"
    databases = client.get("/v1/databases").json()["databases"]
    assert databases == [{"name": "shop", "dialect": "sqlite", "location": databases[0]["location"], "default": True}]
    schema = client.get("/v1/databases/shop/schema").json()
    orders = next(t for t in schema["tables"] if t["name"] == "orders")
    assert orders["primary_key"] == ["order_id"] and orders["foreign_keys"][0]["ref_table"] == "customers"
    assert client.get("/v1/databases/nope/schema").status_code == 404


def test_profile_then_schema_has_semantic_types_and_values_search(client) -> None:
    profile = client.get("/v1/databases/shop/profile", params={"table": "orders"}).json()
    assert [t["name"] for t in profile["tables"]] == ["orders"]
    schema = client.get("/v1/databases/shop/schema").json()
    assert schema["profiled"] is True
    types = {c["name"]: c.get("semantic_type") for t in schema["tables"] if t["name"] == "products"
             for c in t["columns"]}
    assert types["unit_price"] == "metric"
    found = client.get("/v1/databases/shop/values", params={"q": "Nordik"}).json()["matches"]
    assert found[0]["value"] == "Nordic" and found[0]["table"] == "regions"


def test_ask_returns_sql_table_explanation_chart_and_run_id(client) -> None:
    answer = client.post("/v1/ask", json={"question": "How many customers per region?"}).json()
    assert answer["sql"].startswith("SELECT r.region_name")
    assert answer["columns"] == ["region_name", "customers"] and answer["row_count"] == 6
    assert answer["chart"]["mark"]["type"] == "bar"
    assert "Groups rows by r.region_name." in answer["explanation"]["sentences"]
    assert answer["explanation"]["lineage"]["region_name"] == ["regions.region_name"]
    assert answer["usage"]["llm_calls"] == 2 and answer["preset"] == "auto"  # the cheap pass and its agreeing sample
    kinds = [s["kind"] for s in answer["steps"] if s["kind"] != "note"]
    assert kinds[:2] == ["model", "query"] and kinds.count("model") == 2  # sanity-check probes are queries too
    run = client.get(f"/v1/runs/{answer['run_id']}").json()
    first_call = next(e for e in run["trace"] if e["kind"] == "model")
    assert run["sql"] == answer["sql"] and first_call["messages"]  # the full trace, prompts included
    assert client.get("/v1/runs").json()["runs"][0]["id"] == answer["run_id"]
    assert client.get("/v1/runs/99999").status_code == 404


def test_ask_stream_sends_steps_then_the_answer(client) -> None:
    events = []
    with client.stream("POST", "/v1/ask/stream", json={"question": "orders per month",
                                                                   "preset": "refine"}) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        kind = None
        for line in response.iter_lines():
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                events.append((kind, json.loads(line[6:])))
    # trace notes (catalog, knowledge) stream too, and each model call and query is announced as it starts
    events = [(k, d) for k, d in events if d.get("kind") != "note" and k != "running"]
    assert [k for k, _ in events] == ["step", "step", "answer"]
    assert [d["kind"] for _, d in events[:2]] == ["model", "query"] and events[1][1]["ok"] is True
    assert events[-1][1]["chart"]["mark"]["type"] == "line"


def test_ask_stream_shows_the_first_answer_before_the_checked_one(client) -> None:
    events = []
    with client.stream("POST", "/v1/ask/stream", json={"question": "orders per month", "preset": "auto"}) as response:
        kind = None
        for line in response.iter_lines():
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                events.append((kind, json.loads(line[6:])))
    kinds = [k for k, _ in events]
    assert "provisional" in kinds and kinds.index("provisional") < kinds.index("answer")
    first = next(d for k, d in events if k == "provisional")
    assert first["stage"] == "direct" and first["columns"] == ["month", "orders"] and first["rows"]
    model_calls = [i for i, (k, d) in enumerate(events) if k == "step" and d.get("kind") == "model"]
    assert kinds.index("provisional") < model_calls[-1]  # shown while the second framing was still to come


def test_a_question_past_its_time_limit_returns_its_best_answer_so_far(demo_db: Path, tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from groundsql.models import ScriptedModel
    from groundsql.server.testing import demo_reply

    calls: list[int] = []

    def first_fast_then_slow(messages):
        calls.append(1)
        if len(calls) > 1:
            time.sleep(3.5)  # ends past the 3 s limit however early it started
        return demo_reply(messages)

    # The limit leaves the first answer time to run and be checked on a loaded machine; the second call is past it.
    workspace = make_workspace(demo_db, tmp_path, model=ScriptedModel(default=first_fast_then_slow),
                               ask_timeout_s=3.0)
    workspace.profile("shop")
    with TestClient(create_app(workspace)) as client:
        response = client.post("/v1/ask", json={"question": "orders per month", "preset": "auto"})
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["partial"] is True and body["columns"] == ["month", "orders"] and body["run_id"]
        assert any("best answer so far" in note for note in body["notes"])
        stored = client.get(f"/v1/runs/{body['run_id']}").json()
        assert stored["sql"] == body["sql"]


def test_sql_endpoint_runs_through_the_guard(client) -> None:
    ok = client.post("/v1/sql", json={"sql": "SELECT category, COUNT(*) AS n FROM products GROUP BY category",
                                      "max_rows": 2}).json()
    assert ok["row_count"] == 2 and ok["truncated"] is True and ok["chart"]["mark"]["type"] == "bar"
    refused = client.post("/v1/sql", json={"sql": "DELETE FROM orders"})
    assert refused.status_code == 400 and refused.json()["error"]["type"] == "RefusedStatement"
    broken = client.post("/v1/sql", json={"sql": "SELECT nope FROM orders"})
    assert broken.status_code == 400 and "nope" in broken.json()["error"]["message"]
    assert client.post("/v1/sql", json={"sql": "SELECT 1", "unexpected": 1}).status_code == 422
    joined = client.post("/v1/sql", json={"sql": "SELECT region_name, full_name FROM customers "
                                                 "JOIN regions USING (region_id) LIMIT 3"}).json()
    assert joined["explanation"]["lineage"] == {"region_name": ["regions.region_name"],
                                                "full_name": ["customers.full_name"]}  # unprofiled: schema types


def test_conversation_follow_up_and_history(client) -> None:
    conversation = client.post("/v1/conversations", json={"database": "shop"}).json()
    first = client.post(f"/v1/conversations/{conversation['id']}/ask",
                        json={"question": "How many customers per region?"}).json()
    second = client.post(f"/v1/conversations/{conversation['id']}/ask", json={"question": "and by country?"}).json()
    assert first["turn"]["position"] == 1 and second["turn"]["position"] == 2
    assert second["turn"]["standalone"] == "How many customers are there in each country?"
    assert second["columns"] == ["country", "customers"]
    history = client.get(f"/v1/conversations/{conversation['id']}").json()
    assert [t["question"] for t in history["turns"]] == ["How many customers per region?", "and by country?"]
    assert client.get("/v1/conversations").json()["conversations"][0]["turns"] == 2
    assert client.post("/v1/conversations/missing/ask", json={"question": "x"}).status_code == 404


def test_conversations_survive_a_restart(demo_db: Path, tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    with TestClient(create_app(make_workspace(demo_db, tmp_path))) as first:
        conversation = first.post("/v1/conversations", json={}).json()["id"]
        first.post(f"/v1/conversations/{conversation}/ask", json={"question": "How many customers per region?"})
    with TestClient(create_app(make_workspace(demo_db, tmp_path))) as second:
        answer = second.post(f"/v1/conversations/{conversation}/ask", json={"question": "and by country?"}).json()
        assert answer["turn"]["position"] == 2 and "r.country" in answer["sql"]


def test_limits_body_size_and_validation(client) -> None:
    big = client.post("/v1/sql", content=b"{" + b" " * 70_000 + b"}", headers={"content-type": "application/json"})
    assert big.status_code == 413
    assert client.post("/v1/ask", json={"question": ""}).status_code == 422
    assert client.post("/v1/ask", json={"question": "x", "preset": "nope"}).status_code == 400


def test_token_required_when_configured(demo_db: Path, tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    with TestClient(create_app(make_workspace(demo_db, tmp_path, api_token="s3cret-token"))) as client:
        assert client.get("/v1/databases").status_code == 401
        assert client.get("/v1/databases", headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert client.get("/v1/databases", headers={"Authorization": "Bearer s3cret-token"}).status_code == 200
        assert client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).status_code == 401
        assert client.get("/").status_code == 200  # the page loads and asks for the token


def test_no_cors_headers_by_default(client) -> None:
    response = client.options("/v1/sql", headers={"Origin": "http://evil.example",
                                                   "Access-Control-Request-Method": "POST"})
    assert "access-control-allow-origin" not in {k.lower() for k in response.headers}


def test_full_queue_answers_429_with_retry_after(demo_db: Path, tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    release = threading.Event()

    def slow(messages):
        release.wait(10)
        return "```sql\nSELECT COUNT(*) FROM orders\n```"

    from groundsql.models import ScriptedModel

    workspace = make_workspace(demo_db, tmp_path, model=ScriptedModel(default=slow), model_concurrency=1,
                               queue_size=1)
    results: list[int] = []
    with TestClient(create_app(workspace)) as client:
        def ask() -> None:
            results.append(client.post("/v1/ask", json={"question": "orders?"}).status_code)

        threads = [threading.Thread(target=ask) for _ in range(2)]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 10
        while workspace.gate.admitted < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        refused = client.post("/v1/ask", json={"question": "one too many"})
        assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
        release.set()
        for thread in threads:
            thread.join(20)
    assert results == [200, 200]
    assert workspace.gate.admitted == 0


def test_secrets_never_in_responses(tmp_path: Path) -> None:
    """A PostgreSQL URL with a password (trust auth ignores it): listings and errors show it masked."""
    from fastapi.testclient import TestClient

    from groundsql.runs import RunStore
    from groundsql.server import ServerOptions, Workspace
    from tests.conftest import PG_ADMIN_URL, _admin_engine

    _admin_engine(PG_ADMIN_URL).dispose()
    url = PG_ADMIN_URL.replace("postgres@", "postgres:hunter2secret@")
    workspace = Workspace({"pg": url}, demo_model(), ServerOptions(), runs=RunStore(tmp_path / "r.sqlite"))
    with TestClient(create_app(workspace)) as client:
        bodies = [client.get("/v1/databases").text, client.post("/v1/sql", json={"sql": "SELECT nope"}).text,
                  client.post("/v1/ask", json={"question": "How many orders?"}).text, client.get("/v1/runs").text]
    assert all("hunter2secret" not in body for body in bodies)
    assert "postgres:***@" in bodies[0]


def test_openapi_and_offline_docs(client) -> None:
    spec = client.get("/openapi.json").json()
    assert {"/v1/ask", "/v1/ask/stream", "/v1/sql", "/v1/conversations/{conversation_id}/ask"} <= set(spec["paths"])
    docs = client.get("/docs").text
    assert "/static/vendor/swagger-ui-bundle.js" in docs and "cdn" not in docs.lower()
    assert client.get("/static/vendor/swagger-ui-bundle.js").status_code == 200
    response = client.get("/")
    page = response.text
    assert "/static/vendor/vega-embed.min.js" in page and "http" not in page.replace("http-equiv", "")
    assert "connect-src 'self'" in response.headers["content-security-policy"]


def test_cancelled_run_stops_at_its_next_step(workspace) -> None:
    from groundsql.server.gate import RunCancelled
    from groundsql.server.payloads import WatchedTrace

    trace = WatchedTrace()
    trace.cancelled.set()
    with pytest.raises(RunCancelled):
        workspace.ask("How many orders?", trace=trace)
    assert workspace.gate.admitted == 0


def test_a_question_past_its_time_limit_is_cancelled(demo_db: Path, tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from groundsql.models import ScriptedModel

    calls: list[int] = []

    def slow(messages):
        calls.append(1)
        time.sleep(1.0)
        return "```sql\nSELECT order_id FROM orders WHERE 1 = 0\n```"  # empty: refine would ask again

    workspace = make_workspace(demo_db, tmp_path, model=ScriptedModel(default=slow), ask_timeout_s=0.3)
    workspace.profile("shop")  # profiled beforehand: the time limit falls on the model call, not on profiling
    with TestClient(create_app(workspace)) as client:
        response = client.post("/v1/ask", json={"question": "orders?"})
        assert response.status_code == 504 and "cancelled" in response.json()["error"]["message"]
        deadline = time.monotonic() + 10
        while workspace.gate.admitted and time.monotonic() < deadline:
            time.sleep(0.05)
    assert workspace.gate.admitted == 0 and calls == [1]


def test_preset_options_reach_conversation_turns(demo_db: Path, tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    workspace = make_workspace(demo_db, tmp_path, preset_options={"refine_rounds": 0})
    with TestClient(create_app(workspace)) as client:
        conversation = client.post("/v1/conversations", json={}).json()["id"]
        answer = client.post(f"/v1/conversations/{conversation}/ask", json={"question": "orders per month"})
        assert answer.status_code == 200 and answer.json()["columns"] == ["month", "orders"]


def test_bad_preset_options_fail_at_start(demo_db: Path, tmp_path: Path) -> None:
    from groundsql.errors import ConfigError

    with pytest.raises(ConfigError, match="refine_roundz"):
        make_workspace(demo_db, tmp_path, preset_options={"refine_roundz": 1})
