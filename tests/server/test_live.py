"""A real uvicorn server on loopback: asks and SQL over HTTP, a client that goes away mid-stream cancels its
run, and shutdown lets a request in flight finish."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import httpx
import pytest

from groundsql.models import ScriptedModel
from groundsql.server.app import create_app
from groundsql.server.testing import BackgroundServer

from .conftest import make_workspace

pytestmark = pytest.mark.integration


def test_ask_and_sql_over_http(live_server) -> None:
    with httpx.Client(base_url=live_server.url, timeout=30) as http:
        answer = http.post("/v1/ask", json={"question": "How many customers per region?"}).json()
        assert answer["row_count"] == 6 and answer["chart"]["mark"]["type"] == "bar"
        result = http.post("/v1/sql", json={"sql": answer["sql"] + " LIMIT 2"}).json()
        assert result["row_count"] == 2
        assert http.get("/").status_code == 200 and http.get("/docs").status_code == 200


def _slow_empty_model(calls: list[float], delay_s: float) -> ScriptedModel:
    def reply(messages):
        calls.append(time.monotonic())
        time.sleep(delay_s)
        return "```sql\nSELECT order_id FROM orders WHERE 1 = 0\n```"  # empty: refine would ask again

    return ScriptedModel(default=reply)


def test_client_disconnect_cancels_the_run(demo_db: Path, tmp_path: Path) -> None:
    calls: list[float] = []
    workspace = make_workspace(demo_db, tmp_path, model=_slow_empty_model(calls, 1.0))
    workspace.profile("shop")  # profiled beforehand: the client leaves during the model call, not profiling
    with BackgroundServer(create_app(workspace)) as server, httpx.Client(timeout=10) as http:
        with http.stream("POST", server.url + "/v1/ask/stream", json={"question": "orders?"}) as response:
            assert response.status_code == 200
            started = time.monotonic() + 10
            while not calls and time.monotonic() < started:  # wait for the first model call (slow on a busy machine)
                time.sleep(0.02)
            assert calls, "the model was never called"
            # the first model call is under way; now the client goes away
        deadline = time.monotonic() + 10
        while workspace.gate.admitted and time.monotonic() < deadline:
            time.sleep(0.05)
        assert workspace.gate.admitted == 0
        time.sleep(0.5)
    assert len(calls) == 1  # no repair rounds after the disconnect (refine would have made 3 calls)
    assert workspace.runs.recent() == []  # a cancelled run is not recorded as an answer


def test_shutdown_lets_the_request_in_flight_finish(demo_db: Path, tmp_path: Path) -> None:
    workspace = make_workspace(demo_db, tmp_path, model=ScriptedModel(
        default=lambda m: (time.sleep(1.0), "```sql\nSELECT COUNT(*) AS n FROM orders\n```")[1]))
    outcome: dict[str, int] = {}
    server = BackgroundServer(create_app(workspace), grace_s=10)
    with server:
        def ask() -> None:
            outcome["status"] = httpx.post(server.url + "/v1/ask", json={"question": "orders?"}, timeout=30).status_code

        thread = threading.Thread(target=ask)
        thread.start()
        time.sleep(0.3)
        # leaving the block asks uvicorn to exit: it stops accepting and waits for the ask in flight
    thread.join(20)
    assert outcome == {"status": 200}
