"""The result download (`GET /v1/runs/{id}/result`) and suite runs started over the API: the scripted demo model
for control flow, the real demo database, run store, guard, scoring and file formats."""

from __future__ import annotations

import io
import shutil
import time
from pathlib import Path

import pytest

from groundsql.knowledge.store import write_demo_knowledge
from groundsql.server.app import create_app

from .conftest import make_workspace

pytestmark = pytest.mark.integration
pd = pytest.importorskip("pandas", reason="pandas is not installed (pip install 'groundsql[dataframes]')")
pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is not installed (pip install 'groundsql[dataframes]')")


@pytest.fixture()
def api(demo_db: Path, tmp_path: Path):
    from fastapi.testclient import TestClient

    path = tmp_path / "shop.sqlite"
    shutil.copy(demo_db, path)
    write_demo_knowledge(path)  # verified examples: the suite's questions
    workspace = make_workspace(path, tmp_path, max_rows=4, preset="baseline")
    with TestClient(create_app(workspace, mcp=False)) as client:
        yield client, workspace
    workspace.close()


def test_a_run_result_downloads_as_csv_and_parquet_under_the_row_cap(api) -> None:
    client, workspace = api
    answer = client.post("/v1/ask", json={"question": "How many customers per region?"}).json()
    assert answer["row_count"] == 4 and answer["truncated"]
    csv = client.get(f"/v1/runs/{answer['run_id']}/result", params={"format": "csv"})
    assert csv.status_code == 200 and csv.headers["content-type"].startswith("text/csv")
    assert csv.headers["x-groundsql-row-cap"] == "4" and csv.headers["x-groundsql-truncated"] == "true"
    assert f'filename="groundsql-run-{answer["run_id"]}.csv"' in csv.headers["content-disposition"]
    frame = pd.read_csv(io.StringIO(csv.text))
    assert list(frame.columns) == answer["columns"]
    assert [list(r) for r in frame.itertuples(index=False, name=None)] == answer["rows"]

    parquet = client.get(f"/v1/runs/{answer['run_id']}/result", params={"format": "parquet"})
    assert parquet.status_code == 200
    table = pq.read_table(io.BytesIO(parquet.content))
    assert [list(r.values()) for r in table.to_pylist()] == answer["rows"]
    assert table.schema.metadata[b"groundsql.sql"].decode() == answer["sql"]
    assert table.schema.metadata[b"groundsql.question"] == b"How many customers per region?"
    assert table.schema.metadata[b"groundsql.row_cap"] == b"4"
    assert str(table.schema.field("customers").type) == "int64"


def test_download_errors(api) -> None:
    client, _ = api
    assert client.get("/v1/runs/999/result").status_code == 404
    huge = client.get(f"/v1/runs/{2**80}/result")  # found by the API fuzz: a 500 (OverflowError) before
    assert huge.status_code == 422 and "run_id" in huge.json()["error"]["message"]
    answer = client.post("/v1/ask", json={"question": "How many customers per region?"}).json()
    bad = client.get(f"/v1/runs/{answer['run_id']}/result", params={"format": "xml"})
    assert bad.status_code == 422 and "format" in bad.json()["error"]["message"]


def test_a_suite_runs_from_the_api_with_progress(api) -> None:
    client, workspace = api
    built = client.post("/v1/databases/shop/suite").json()
    assert built["questions"] >= 2
    listing = client.get("/v1/suites").json()
    assert "baseline" in listing["presets"] and listing["default_preset"] == "baseline"
    assert client.post("/v1/suites/nope/runs", json={"preset": "baseline"}).status_code == 404
    assert client.post("/v1/suites/shop/runs", json={"preset": "bogus"}).status_code == 400
    job = client.post("/v1/suites/shop/runs", json={"preset": "baseline"})
    assert job.status_code == 202 and job.json()["state"] == "running"
    deadline = time.monotonic() + 120
    while (state := client.get(f"/v1/suites/jobs/{job.json()['id']}").json())["state"] == "running":
        assert time.monotonic() < deadline, state
        time.sleep(0.2)
    assert state["state"] == "done", state
    assert state["done"] == state["total"] == built["questions"]
    suite = client.get("/v1/suites").json()["suites"][0]
    assert [r["preset"] for r in suite["runs"]] == ["baseline"]
    assert suite["runs"][0]["correct"] == state["correct"] and suite["latest"]["name"] == Path(state["run_dir"]).name
    assert client.get("/v1/suites/jobs/77").status_code == 404
