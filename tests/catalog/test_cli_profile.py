"""`groundsql profile`: the JSON scripts rely on, the done-when check on world_1, caching across runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import groundsql
from groundsql.cli import cli

pytestmark = pytest.mark.integration


@pytest.fixture()
def cache_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("GROUNDSQL_CACHE_DIR", str(folder))
    return folder


def test_world_1_json_in_a_fresh_process(spider_dir: Path, tmp_path: Path) -> None:
    path = spider_dir / "database" / "world_1" / "world_1.sqlite"
    env = {**os.environ, "GROUNDSQL_CACHE_DIR": str(tmp_path / "cache")}
    # Generous wall-clock bounds: a fresh interpreter's imports on a loaded machine (the whole suite on two cores)
    # take seconds that say nothing about profiling; the 5 s done-when bound is on the profiling the catalog
    # itself measured (`build_seconds`: introspection, profiles, keys, value index).
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "groundsql.cli", "profile", "--db", str(path), "--json"],
                          capture_output=True, text=True, env=env, timeout=300)
    seconds = time.perf_counter() - started
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert 0 < data["build_seconds"] < 5, f"profiling world_1 took {data['build_seconds']:.1f}s ({seconds:.1f}s " \
                                          "with the process start)"
    tables = {t["name"]: t for t in data["tables"]}
    for table in tables.values():
        assert {"name", "row_count", "columns", "primary_key", "foreign_keys"} <= set(table)
        for column in table["columns"]:
            assert {"name", "semantic_type", "null_ratio", "top_values"} <= set(column)
            assert column["semantic_type"] in ("identifier", "dimension", "metric", "time", "other")
        for fk in table["foreign_keys"]:
            assert {"columns", "ref_table", "ref_columns", "inferred"} <= set(fk)
    columns = {(t, c["name"]): c for t, table in tables.items() for c in table["columns"]}
    assert columns[("city", "ID")]["semantic_type"] == "identifier"
    continent = columns[("country", "Continent")]
    assert continent["semantic_type"] == "dimension" and len(continent["top_values"]) == 7
    assert columns[("country", "Population")]["semantic_type"] == "metric"
    assert tables["country"]["primary_key"] == ["Code"]
    assert {"columns": ["CountryCode"], "ref_table": "country", "ref_columns": ["Code"], "inferred": False} in \
        tables["city"]["foreign_keys"]


def test_summary_then_cache_then_refresh(crafted_db: Path, cache_env: Path) -> None:
    runner = CliRunner()
    first = runner.invoke(cli, ["profile", "--db", str(crafted_db)], catch_exceptions=False)
    assert first.exit_code == 0 and "profiled in" in first.stdout and "product_tags [bridge]" in first.stdout
    assert "customer_id→customers.customer_id (inferred)" in first.stdout
    second = runner.invoke(cli, ["profile", "--db", str(crafted_db)], catch_exceptions=False)
    assert "; cache;" in second.stdout
    third = runner.invoke(cli, ["profile", "--db", str(crafted_db), "--refresh"], catch_exceptions=False)
    assert "profiled in" in third.stdout
    assert len(list(cache_env.glob("*.json"))) == 1


def test_render_option_respects_budget(crafted_db: Path, cache_env: Path) -> None:
    result = CliRunner().invoke(cli, ["profile", "--db", str(crafted_db), "--render", "compact", "--budget", "150"],
                                catch_exceptions=False)
    assert result.exit_code == 0
    assert 0 < len(result.stdout.strip()) <= 150 * 3.2


def test_library_verb(crafted_db: Path, cache_env: Path) -> None:
    catalog = groundsql.profile(str(crafted_db))
    assert catalog.table("events") is not None and not catalog.from_cache
    assert groundsql.profile(str(crafted_db)).from_cache


def test_missing_database_is_one_clear_line(cache_env: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["profile", "--db", str(tmp_path / "nope.sqlite")])
    assert result.exit_code == 2 and "database file not found" in result.output
