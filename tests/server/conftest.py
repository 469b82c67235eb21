"""Fixtures for the server: a workspace on the demo database with the scripted demo model, an in-process client
and a real uvicorn server on loopback."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the server extra is not installed (pip install 'groundsql[server]')")

from groundsql.runs import RunStore  # noqa: E402
from groundsql.server import ServerOptions, Workspace  # noqa: E402
from groundsql.server.app import create_app  # noqa: E402
from groundsql.server.testing import BackgroundServer, demo_model  # noqa: E402


@pytest.fixture(autouse=True)
def private_catalog_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Catalogs profiled by a test stay in its own folder, never the user's cache."""
    cache = tmp_path / "catalogs"
    monkeypatch.setenv("GROUNDSQL_CACHE_DIR", str(cache))
    return cache


def make_workspace(demo_db: Path, tmp_path: Path, model=None, **options) -> Workspace:
    return Workspace({"shop": str(demo_db)}, model or demo_model(), ServerOptions(**options),
                     runs=RunStore(tmp_path / "runs.sqlite"))


@pytest.fixture()
def workspace(demo_db: Path, tmp_path: Path) -> Workspace:
    ws = make_workspace(demo_db, tmp_path)
    yield ws
    ws.close()


@pytest.fixture()
def client(workspace: Workspace):
    from fastapi.testclient import TestClient

    with TestClient(create_app(workspace)) as test_client:
        yield test_client


@pytest.fixture()
def live_server(workspace: Workspace):
    with BackgroundServer(create_app(workspace)) as server:
        yield server
