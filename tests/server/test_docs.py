"""docs/server.md cannot drift: every /v1 route is documented, and its config example is valid."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from groundsql.server.app import create_app

pytestmark = pytest.mark.unit
DOC = Path(__file__).resolve().parents[2] / "docs" / "server.md"


def test_every_route_is_documented(workspace) -> None:
    def shape(path: str) -> str:
        return re.sub(r"\{[^}]*\}", "{}", path)

    text = DOC.read_text()
    paths = {shape(p) for p in create_app(workspace, mcp=False).openapi()["paths"]}
    assert len(paths) >= 14
    documented = {shape(p) for p in re.findall(r"`(?:GET|POST) (/v1/[^ `?[]*)", text)}
    documented |= {p + "/stream" for p in documented if p.endswith("/ask")}  # "(and `/ask/stream`)"
    missing = sorted(p for p in paths if p not in documented)
    assert not missing, f"routes missing from docs/server.md: {missing}"


def test_config_example_is_valid(tmp_path: Path) -> None:
    from groundsql.cli.serve import load_config
    from groundsql.server import ServerOptions

    block = re.search(r"```yaml\n(.*?)```", DOC.read_text(), re.S).group(1)
    path = tmp_path / "server.yaml"
    path.write_text(block)
    config = load_config(path)
    assert set(config["databases"]) == {"shop", "sales"}
    ServerOptions(**config["options"], preset=config["preset"])
