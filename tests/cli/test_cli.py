"""The CLI: JSON shape, and errors as one clear line with a non-zero exit, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from groundsql.cli import cli

pytestmark = pytest.mark.integration


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_sql_json_shape(demo_db: Path) -> None:
    result = run("sql", "SELECT count(*) AS n FROM products", "--db", str(demo_db), "--json")
    assert result.exit_code == 0
    payload = json.loads(result.stdout)
    assert payload["columns"] == ["n"] and payload["rows"] == [[16]] and payload["row_count"] == 1
    assert payload["truncated"] is False and payload["usage"]["db_queries"] == 1


def test_sql_row_cap_flag(demo_db: Path) -> None:
    payload = json.loads(run("sql", "SELECT * FROM orders", "--db", str(demo_db), "--max-rows", "5", "--json").stdout)
    assert payload["row_count"] == 5 and payload["truncated"] is True


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["sql", "SELECT 1", "--db", "/no/such/file.sqlite"], "database file not found"),
        (["sql", "SELECT 1", "--db", "oracle://x@y/z"], "unsupported database type"),
        (["sql", "DELETE FROM orders", "--db", "{demo}"], "refused"),
        (["sql", "SELECT nope FROM orders", "--db", "{demo}"], "no such column"),
        (["ask", "how many?", "--db", "{demo}", "--model", "local:qwen-9000"], "unknown model"),
        (["ask", "how many?", "--db", "{demo}", "--model", "local:/no/such/model.gguf"], "GGUF file not found"),
        (["ask", "  ", "--db", "{demo}", "--model", "local:qwen2.5-coder-0.5b"], "question is empty"),
        (["demo-db", "{demo}"], "exists; pass --force"),
    ],
)
def test_errors_are_one_line(demo_db: Path, args: list[str], message: str) -> None:
    args = [a.replace("{demo}", str(demo_db)) for a in args]
    result = run(*args)
    assert result.exit_code != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], result.stderr
    assert "Traceback" not in result.output


def test_model_not_installed_is_a_clear_error(demo_db: Path, monkeypatch, tmp_path) -> None:
    import dataclasses

    from groundsql.models import weights

    monkeypatch.setenv("GROUNDSQL_CACHE_DIR", str(tmp_path))
    info = weights.KNOWN_MODELS["qwen2.5-coder-1.5b"]
    monkeypatch.setitem(weights.KNOWN_MODELS, info.name,
                        dataclasses.replace(info, package_prefix="groundsql-absent-part"))
    pytest.importorskip("llama_cpp")
    result = run("ask", "How many orders?", "--db", str(demo_db), "--model", "local:qwen2.5-coder-1.5b")
    assert result.exit_code == 2
    assert "is not installed" in result.stderr and "pip install" in result.stderr


def test_demo_db_is_deterministic(tmp_path: Path) -> None:
    import hashlib

    a, b = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    assert run("demo-db", str(a)).exit_code == 0 and run("demo-db", str(b)).exit_code == 0
    digest = lambda p: hashlib.sha256(p.read_bytes()).hexdigest()  # noqa: E731
    assert digest(a) == digest(b)


def test_demo_db_has_the_promised_mess(demo_db: Path) -> None:
    from groundsql.db import Database

    db = Database(str(demo_db))
    assert {r[0] for r in db.execute("SELECT DISTINCT status FROM customers").rows} == {"A", "C"}
    assert db.execute("SELECT count(*) FROM orders WHERE order_date LIKE '__/__/____'").rows[0][0] > 100
    assert db.execute("SELECT count(*) FROM customers WHERE segment LIKE '% '").rows[0][0] > 0
    nulls, total = db.execute("SELECT sum(phone IS NULL), count(*) FROM customers").rows[0]
    assert nulls / total > 0.6
    pragma_free = db.execute_catalog_query("SELECT count(*) FROM pragma_foreign_key_list('product_tags')").rows[0][0]
    assert pragma_free == 0


def test_models_lists_known_models() -> None:
    result = run("models", "--json")
    payload = json.loads(result.stdout)
    assert {m["name"] for m in payload["local"]} == {"qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b"}
    assert payload["default"] == "local:qwen2.5-coder-1.5b"


def test_runs_store_records_asks(demo_db: Path, tmp_path: Path, monkeypatch) -> None:
    from groundsql.api import ask
    from groundsql.models import ScriptedModel
    from groundsql.runs import RunStore

    monkeypatch.setenv("GROUNDSQL_STATE_DIR", str(tmp_path))
    answer = ask("How many tags?", str(demo_db), model=ScriptedModel(["SELECT count(*) FROM tags"]),
                 preset="baseline")
    RunStore().record(answer, str(demo_db))
    payload = json.loads(run("runs", "--json").stdout)
    assert payload["runs"][0]["question"] == "How many tags?"
    assert payload["runs"][0]["sql"] == "SELECT count(*) FROM tags" and payload["runs"][0]["ok"] == 1


def test_presets_prints_the_options_of_a_preset() -> None:
    result = run("presets", "--options", "ssev")
    assert result.exit_code == 0
    assert "refine_rounds" in result.output and "repair rounds per failing or empty candidate" in result.output
    assert "one of: majority, wma, rwma; default wma" in result.output and "vector_k" not in result.output
    assert "vector_k" in run("presets", "--options", "ssev", "--linker", "vector").output
    assert "baseline_tree_repair" in run("presets", "--options", "baseline").output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--preset", "refine", "--option", "refine_round=3"], "unknown option 'refine_round' for preset 'refine' "
                                                             "(did you mean "
                                         "'refine_rounds'?); valid options: catalog_context"),
        (["--preset", "ssev", "--option", "vote=maj"], "option 'vote' for preset 'ssev': expected one of: "
                                                       "majority, wma, rwma, got 'maj'"),
        (["--preset", "ssev", "--option", "vector_k=3"], "it is an option of linker 'vector'"),
    ],
)
def test_ask_refuses_bad_options_before_opening_anything(args: list[str], message: str) -> None:
    result = run("ask", "how many?", "--db", "/no/such/file.sqlite", "--model", "local:qwen-9000", *args)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], result.stderr


def test_flags_a_preset_cannot_use_are_refused(demo_db: Path) -> None:
    result = run("ask", "how many?", "--db", str(demo_db), "--preset", "refine", "--clarify")
    assert result.exit_code == 2 and "--clarify has no effect with preset 'refine'; use it with apex, auto, recap, ssev" in \
        result.output
