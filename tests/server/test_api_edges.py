"""The HTTP API at the edges a new user hits: one error shape and status per mistake, the step running now on the
stream, a refused model query on /v1/ask against /v1/sql, and the schema once an ask has profiled the database."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from groundsql.inputs import MAX_QUESTION_CHARS
from groundsql.models import ScriptedModel
from groundsql.server.app import create_app

from .conftest import make_workspace

pytestmark = pytest.mark.integration


def _error(response, status: int) -> dict:
    """The response's error, checked to be the documented shape and nothing else (no FastAPI `detail`)."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"type", "message"}, body
    return body["error"]


def _events(client, path: str, body: dict) -> list[tuple[str, dict]]:
    events, kind = [], None
    with client.stream("POST", path, json=body) as response:
        assert response.status_code == 200, response.read()
        for line in response.iter_lines():
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                events.append((kind, json.loads(line[6:])))
    return events


def test_a_bad_question_gets_one_shape_and_one_status_everywhere(client) -> None:
    conversation = client.post("/v1/conversations", json={}).json()["id"]
    too_long = "x" * (MAX_QUESTION_CHARS + 1)
    for path in ("/v1/ask", "/v1/ask/stream", f"/v1/conversations/{conversation}/ask",
                 f"/v1/conversations/{conversation}/ask/stream"):
        long = client.post(path, json={"question": too_long})
        error = _error(long, 422)
        assert error["type"] == "InvalidRequest"
        assert error["message"] == (f"question: the question is {MAX_QUESTION_CHARS + 1:,} characters long; "
                                    f"the limit is {MAX_QUESTION_CHARS:,}")
        assert "xxxxxxxxxx" not in long.text  # the input is never echoed
        for blank in ("", "   ", "\n\t"):
            assert _error(client.post(path, json={"question": blank}), 422) == {
                "type": "InvalidRequest", "message": "question: the question is empty"}
    assert client.get(f"/v1/conversations/{conversation}").json()["turns"] == []  # nothing was asked


def test_a_question_at_the_limit_is_answered(client) -> None:
    answer = client.post("/v1/ask", json={"question": "orders " + "x" * (MAX_QUESTION_CHARS - 7)})
    assert answer.status_code == 200 and answer.json()["error"] is None


def test_bodies_that_are_not_what_the_endpoint_takes(client) -> None:
    cases = {
        "not json": (b"question=How many orders?", "application/json",
                     "the body is not valid JSON; send a JSON object (Content-Type: application/json)"),
        "plain text": (b"How many orders?", "text/plain",
                       "the body must be a JSON object (Content-Type: application/json)"),
        "a list": (b'["How many orders?"]', "application/json",
                   "the body must be a JSON object (Content-Type: application/json)"),
        "no question": (b'{"database": "shop"}', "application/json", "question is required"),
        "unknown field": (b'{"question": "How many orders?", "sql": "x"}', "application/json",
                          "unknown field 'sql'"),
        "wrong type": (b'{"question": 42}', "application/json", "question: Input should be a valid string"),
        "empty": (b"", "application/json", "the body is missing; send a JSON object"),
    }
    for name, (content, content_type, message) in cases.items():
        response = client.post("/v1/ask", content=content, headers={"content-type": content_type})
        assert _error(response, 422) == {"type": "InvalidRequest", "message": message}, name
        assert "How many orders" not in response.text, name
    assert _error(client.post("/v1/sql", content=b"SELECT 1", headers={"content-type": "application/json"}),
                  422)["message"].startswith("the body is not valid JSON")
    assert _error(client.get("/v1/runs", params={"limit": "many"}), 422)["message"] == \
        "limit: Input should be a valid integer, unable to parse string as an integer"
    assert _error(client.get("/v1/nothing-here"), 404) == {"type": "NotFound", "message": "Not Found"}
    assert _error(client.put("/v1/ask", json={"question": "x"}), 405)["type"] == "MethodNotAllowed"


def test_the_stream_announces_each_model_call_and_query_as_it_starts(client) -> None:
    events = [(k, d) for k, d in _events(client, "/v1/ask/stream", {"question": "orders per month",
                                                                    "preset": "refine"}) if d.get("kind") != "note"]
    kinds = [(k, d.get("kind")) for k, d in events]
    assert kinds == [("running", "model"), ("step", "model"), ("running", "query"), ("step", "query"),
                     ("answer", None)]
    (_, started), (_, finished) = events[:2]
    assert started["step"] == finished["step"] and started["model"] == finished["model"] == "scripted:demo"
    assert set(started) == {"kind", "step", "role", "model"}  # what runs, never the prompt
    assert events[2][1]["sql"] == events[3][1]["sql"]


def test_a_refused_model_query_is_an_answer_a_refused_statement_is_an_error(demo_db: Path, tmp_path: Path) -> None:
    """/v1/ask answers 200 with the answer's `error` set; /v1/sql answers 400 in the error shape (docs/server.md)."""
    from fastapi.testclient import TestClient

    model = ScriptedModel(default=lambda messages: "```sql\nDELETE FROM orders\n```")
    with TestClient(create_app(make_workspace(demo_db, tmp_path, model=model, preset="baseline"))) as client:
        answer = client.post("/v1/ask", json={"question": "Remove every order"})
        assert answer.status_code == 200
        data = answer.json()
        assert data["sql"] == "DELETE FROM orders" and "refused" in data["error"] and data["rows"] == []
        assert not client.get(f"/v1/runs/{data['run_id']}").json()["ok"]
        error = _error(client.post("/v1/sql", json={"sql": data["sql"]}), 400)
        assert error["type"] == "RefusedStatement" and "refused" in error["message"]
        assert error["message"] == data["error"]  # the same words for the same refusal
    with sqlite3.connect(demo_db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM orders").fetchone()[0] > 0


def test_the_schema_shows_the_catalog_an_ask_built(client) -> None:
    before = client.get("/v1/databases/shop/schema").json()
    assert before["profiled"] is False and {t["row_count"] for t in before["tables"]} == {None}
    assert client.post("/v1/ask", json={"question": "How many customers per region?"}).status_code == 200
    after = client.get("/v1/databases/shop/schema").json()
    assert after["profiled"] is True
    counts = {t["name"]: t["row_count"] for t in after["tables"]}
    regions = client.post("/v1/sql", json={"sql": "SELECT COUNT(*) AS n FROM regions"}).json()["rows"][0][0]
    assert counts["regions"] == regions


@pytest.mark.parametrize("sql", ["SELECT " + "(" * 3000 + "1" + ")" * 3000, "SELECT " + "NOT " * 3000 + "1"])
def test_a_statement_the_parser_cannot_handle_is_a_refusal_not_a_500(client, sql) -> None:
    """Fuzz finding (issue 47): sqlglot ran out of stack on deep nesting and the RecursionError reached the
    server as a 500; it is a refusal in the error shape now, on /v1/sql and where a statement is stored."""
    error = _error(client.post("/v1/sql", json={"sql": sql}), 400)
    assert error["type"] == "RefusedStatement" and error["message"].startswith("refused:")
    assert sql not in error["message"]
    error = _error(client.post("/v1/databases/shop/knowledge/examples",
                               json={"question": "How deep?", "sql": sql}), 400)
    assert "does not parse" in error["message"] and sql not in error["message"]


@pytest.mark.parametrize("sql", ["SELECT " + "(" * 3000 + "1" + ")" * 3000, "SELECT DATE_ADD(1)"])
def test_model_sql_the_parser_fails_on_is_an_answer_with_an_error_not_a_500(demo_db: Path, tmp_path: Path,
                                                                            sql) -> None:
    """Fuzz finding (issue 47): model-written SQL that makes sqlglot fail (deep nesting; DATE_ADD with one argument,
    read as MySQL by the tree repair) ended /v1/ask with a bare 500. A prompt injection could aim for it."""
    from fastapi.testclient import TestClient

    model = ScriptedModel(default=lambda messages: f"```sql\n{sql}\n```")
    workspace = make_workspace(demo_db, tmp_path, model=model)
    try:
        client = TestClient(create_app(workspace, mcp=False))
        response = client.post("/v1/ask", json={"question": "How many orders are there?"})
        assert response.status_code == 200, response.text
        assert response.json()["error"].startswith("refused:")
        events = _events(client, "/v1/ask/stream", {"question": "How many orders are there?"})
        assert events[-1][0] == "answer" and events[-1][1]["error"].startswith("refused:")
    finally:
        workspace.close()


def test_an_unexpected_error_is_a_500_in_the_error_shape_without_a_traceback(workspace, monkeypatch) -> None:
    from fastapi.testclient import TestClient

    def broken(*args, **kwargs):
        raise KeyError("a bug")

    monkeypatch.setattr(workspace, "run_sql", broken)
    client = TestClient(create_app(workspace, mcp=False), raise_server_exceptions=False)
    error = _error(client.post("/v1/sql", json={"sql": "SELECT 1"}), 500)
    assert error == {"type": "InternalError", "message": "internal error; the server's log has the details"}


@pytest.mark.parametrize("path", ["/v1/runs/1029333374146207154176", "/v1/runs/0", "/v1/runs/-3"])
def test_a_run_id_outside_the_store_range_is_a_422_not_a_500(client, path) -> None:
    """Fuzz finding (issue 47, Schemathesis): a run id past SQLite's 64-bit integers overflowed the driver
    (OverflowError, a 500) on GET /v1/runs/{id} and POST /v1/runs/{id}/mark."""
    assert _error(client.get(path), 422)["type"] == "InvalidRequest"
    assert _error(client.post(f"{path}/mark", json={"verdict": "right"}), 422)["type"] == "InvalidRequest"
    assert _error(client.get(f"/v1/runs/{2**63 - 1}"), 404)["type"] == "NotFound"
