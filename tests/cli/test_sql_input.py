"""`groundsql sql`: statements from an argument, standard input or a file; a leading comment is not an option;
system catalogs only with the explicit opt-in."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from groundsql.cli import cli

pytestmark = pytest.mark.integration


def run(*args: str, stdin: str | None = None):
    return CliRunner().invoke(cli, list(args), input=stdin)


def test_statement_after_double_dash_may_start_with_a_comment(concert_singer: Path) -> None:
    result = run("sql", "--db", str(concert_singer), "--json", "--", "-- singers\nSELECT count(*) FROM singer")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["rows"] == [[6]]


def test_statement_from_stdin_and_from_a_file(concert_singer: Path, tmp_path: Path) -> None:
    piped = run("sql", "-", "--db", str(concert_singer), stdin="-- how many\nSELECT count(*) AS n FROM concert\n")
    assert piped.exit_code == 0 and "6" in piped.output
    script = tmp_path / "q.sql"
    script.write_text("/* report */\nSELECT count(*) AS n FROM stadium;\n")
    from_file = run("sql", "--db", str(concert_singer), "--file", str(script))
    assert from_file.exit_code == 0 and "9" in from_file.output
    both = run("sql", "SELECT 1", "--db", str(concert_singer), "--file", str(script))
    assert both.exit_code != 0 and "not both" in both.output


def test_system_catalogs_need_the_flag(concert_singer: Path) -> None:
    command = [sys.executable, "-m", "groundsql.cli", "sql", "SELECT name FROM sqlite_master", "--db", str(concert_singer)]
    refused = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0 and "system catalog" in refused.stderr
    allowed = subprocess.run(command + ["--allow-system-catalogs"], capture_output=True, text=True, timeout=60)
    assert allowed.returncode == 0 and "singer" in allowed.stdout
