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


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_options_reference_is_current() -> None:
    assert (ROOT / "docs" / "options.md").read_text() == _script("gen_options_docs").render(), \
        "docs/options.md is stale: run `python scripts/gen_options_docs.py`"


def test_the_options_reference_shows_the_real_error() -> None:
    from groundsql.options import OptionsError
    from groundsql.pipelines import preset_options

    with pytest.raises(OptionsError) as error:
        preset_options("refine", {"refine_round": 3})
    assert f"error: {error.value}\n" in (ROOT / "docs" / "options.md").read_text()
