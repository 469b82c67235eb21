"""docs/evaluation.md cannot drift from the command: every eval option and subcommand is documented."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundsql.cli.eval import eval_group

pytestmark = pytest.mark.unit

DOC = Path(__file__).resolve().parents[2] / "docs" / "evaluation.md"


def test_every_run_option_is_documented():
    text = DOC.read_text()
    missing = [opt for param in eval_group.commands["run"].params for opt in param.opts
               if opt.startswith("--") and opt not in ("--json",) and opt not in text]
    assert missing == []


def test_every_subcommand_is_documented():
    text = DOC.read_text()
    assert [name for name in eval_group.commands if f"groundsql eval {name}" not in text] == []
