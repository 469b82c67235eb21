"""A small, bounded load test on loopback: concurrent SQL and concurrent asks all succeed."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundsql.server.app import create_app
from groundsql.server.testing import BackgroundServer, demo_model, fire, percentile

from .conftest import make_workspace

pytestmark = pytest.mark.integration


def test_concurrent_sql_and_asks(demo_db: Path, tmp_path: Path) -> None:
    workspace = make_workspace(demo_db, tmp_path, model=demo_model(0.01), queue_size=20, model_concurrency=4)
    with BackgroundServer(create_app(workspace)) as server:
        sql = fire(server.url, "/v1/sql", [{"sql": "SELECT status, COUNT(*) FROM orders GROUP BY status"}] * 30)
        asks = fire(server.url, "/v1/ask", [{"question": "How many customers per region?"}] * 12)
    assert [status for status, _ in sql] == [200] * 30
    assert [status for status, _ in asks] == [200] * 12
    assert percentile([s for _, s in sql], 99) < 30
    assert workspace.gate.admitted == 0 and len(workspace.runs.recent(50)) == 12


@pytest.mark.unit
def test_percentile_by_nearest_rank() -> None:
    assert percentile([3.0, 1.0, 2.0, 4.0], 50) == 2.0
    assert percentile(list(range(1, 101)), 99) == 99
