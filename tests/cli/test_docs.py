"""Docs that cannot drift: the CLI reference must match the commands' --help."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit
ROOT = Path(__file__).resolve().parents[2]


def test_cli_reference_is_current() -> None:
    spec = importlib.util.spec_from_file_location("gen_cli_docs", ROOT / "scripts" / "gen_cli_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (ROOT / "docs" / "cli.md").read_text() == module.render(), \
        "docs/cli.md is stale: run `python scripts/gen_cli_docs.py`"


def test_readme_commands_exist() -> None:
    readme = (ROOT / "README.md").read_text()
    for script in ("scripts/demo.sh", "scripts/test.sh"):
        assert f"bash {script}" in readme and (ROOT / script).exists()
    assert "bash scripts/test.sh" in (ROOT / ".ci" / "run").read_text()
