"""CLI shells of the interfaces: ask --explain/--chart, chat, serve and mcp start-up checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from groundsql.cli import cli
from groundsql.server.testing import demo_model


@pytest.fixture()
def scripted(monkeypatch):
    """Every command that loads a model gets the scripted demo model (control flow only)."""
    import groundsql.cli.commands as commands
    import groundsql.models as models

    model = demo_model()
    monkeypatch.setattr(commands, "load_model", lambda spec=None, **kw: model)
    monkeypatch.setattr(models, "load_model", lambda spec=None, **kw: model)
    return model


@pytest.mark.integration
def test_ask_explain_and_chart(demo_db: Path, tmp_path: Path, scripted) -> None:
    chart = tmp_path / "chart.html"
    result = CliRunner().invoke(cli, ["ask", "How many customers per region?", "--db", str(demo_db), "--explain",
                                      "--chart", str(chart)])
    assert result.exit_code == 0, result.output
    assert "What this SQL does:" in result.output and "Groups rows by r.region_name." in result.output
    assert "region_name ← regions.region_name" in result.output
    assert "vegaEmbed(" in chart.read_text()
    as_json = CliRunner().invoke(cli, ["ask", "How many customers per region?", "--db", str(demo_db), "--explain",
                                       "--json"])
    data = json.loads(as_json.stdout)
    assert data["explanation"]["lineage"]["region_name"] == ["regions.region_name"]


@pytest.mark.integration
def test_ask_chart_png_and_no_chart(demo_db: Path, tmp_path: Path, scripted) -> None:
    pytest.importorskip("vl_convert", reason="vl-convert-python is not installed (pip install 'groundsql[server]')")
    png = tmp_path / "c.png"
    ok = CliRunner().invoke(cli, ["ask", "orders per month", "--db", str(demo_db), "--chart", str(png)])
    assert ok.exit_code == 0 and png.read_bytes()[:4] == b"\x89PNG"
    scripted.default = lambda m: "```sql\nSELECT full_name, email, status FROM customers LIMIT 3\n```"
    none = CliRunner().invoke(cli, ["ask", "names", "--db", str(demo_db), "--chart", str(tmp_path / "x.png")])
    assert none.exit_code == 0 and "no chart" in none.output and not (tmp_path / "x.png").exists()


@pytest.mark.integration
def test_chat_holds_a_conversation_and_resumes(demo_db: Path, scripted) -> None:
    runner = CliRunner()
    first = runner.invoke(cli, ["chat", "--db", str(demo_db)],
                          input="How many customers per region?\nand by country?\n\\q\n")
    assert first.exit_code == 0, first.output
    assert "understood as: How many customers are there in each country?" in first.output
    assert "Central" in first.output and "country" in first.output
    listing = runner.invoke(cli, ["chat", "--db", str(demo_db), "--list"])
    conversation_id = listing.output.split()[0]
    assert "2 turn(s)" in listing.output
    resumed = runner.invoke(cli, ["chat", "--db", str(demo_db), "--resume", conversation_id], input="\\id\n")
    assert resumed.exit_code == 0 and conversation_id in resumed.output
    assert "1. How many customers per region?" in resumed.output


@pytest.mark.integration
def test_chat_list_shows_only_this_databases_conversations_with_turns(demo_db: Path, music_db: Path,
                                                                       scripted) -> None:
    runner = CliRunner()
    asked = runner.invoke(cli, ["chat", "--db", str(demo_db)], input="How many customers per region?\n\\q\n")
    assert asked.exit_code == 0, asked.output
    for db in (demo_db, music_db):  # opened and left without a question: 0 turns
        assert runner.invoke(cli, ["chat", "--db", str(db)], input="\\q\n").exit_code == 0
    assert runner.invoke(cli, ["chat", "--db", str(music_db)], input="How many singers?\n\\q\n").exit_code == 0
    shop = runner.invoke(cli, ["chat", "--db", str(demo_db), "--list"])
    assert shop.exit_code == 0, shop.output
    lines = shop.stdout.splitlines()
    assert len(lines) == 1 and "1 turn(s)" in lines[0] and str(demo_db) in lines[0]
    assert "How many customers per region?" in lines[0]
    music = runner.invoke(cli, ["chat", "--db", str(music_db), "--list"]).stdout.splitlines()
    assert len(music) == 1 and str(music_db) in music[0] and "How many singers?" in music[0]
    empty = music_db.parent / "empty.sqlite"
    import sqlite3

    sqlite3.connect(empty).execute("CREATE TABLE t (x INTEGER)").connection.close()
    none = runner.invoke(cli, ["chat", "--db", str(empty), "--list"])
    assert none.exit_code == 0 and none.stdout == "" and "no conversations about" in none.stderr


@pytest.mark.unit
def test_serve_refuses_a_public_bind_without_a_token(demo_db: Path, monkeypatch) -> None:
    monkeypatch.delenv("GROUNDSQL_API_TOKEN", raising=False)
    result = CliRunner().invoke(cli, ["serve", "--db", str(demo_db), "--host", "0.0.0.0"])
    assert result.exit_code == 2 and "set GROUNDSQL_API_TOKEN" in result.output


@pytest.mark.unit
def test_loopback_detection_and_database_names() -> None:
    from groundsql.cli.serve import is_loopback
    from groundsql.server.workspace import parse_database_args

    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.4")
    assert list(parse_database_args(["a/shop.sqlite", "pg=postgresql://u@h/sales", "x.duckdb"])) == [
        "shop", "pg", "x"]
    from groundsql.errors import ConfigError

    with pytest.raises(ConfigError, match="two databases are named"):
        parse_database_args(["a/shop.sqlite", "b/shop.sqlite"])


@pytest.mark.unit
def test_config_file_is_checked(tmp_path: Path) -> None:
    from groundsql.cli.serve import load_config
    from groundsql.errors import ConfigError

    good = tmp_path / "ok.yaml"
    good.write_text("databases:\n  shop: demo.sqlite\nport: 9000\noptions:\n  queue_size: 4\n")
    assert load_config(good)["options"] == {"queue_size": 4}
    bad = tmp_path / "bad.yaml"
    bad.write_text("databse: x\n")
    with pytest.raises(ConfigError, match="unknown keys databse"):
        load_config(bad)


@pytest.mark.integration
def test_workspace_from_config_and_flags(demo_db: Path, music_db: Path) -> None:
    from groundsql.cli.serve import build_workspace

    config = {"databases": {"shop": str(demo_db)}, "model": "local:qwen2.5-coder-0.5b", "preset": "ssev",
              "options": {"queue_size": 4}}
    workspace = build_workspace((), config, None, None, {"max_rows": 50, "record": None})
    assert list(workspace.databases) == ["shop"] and workspace.options.preset == "ssev"
    assert workspace.options.queue_size == 4 and workspace.options.max_rows == 50 and workspace.options.record
    assert workspace.gate.concurrency == 1  # the embedded model answers one question at a time
    flags = build_workspace((f"m={music_db}",), config, None, "baseline", {})
    assert list(flags.databases) == ["m"] and flags.options.preset == "baseline"
    workspace.close()
    flags.close()
