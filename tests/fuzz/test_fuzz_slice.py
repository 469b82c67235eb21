"""A short seeded slice of the fuzz run, in the default test run: generated statements through
`Database.execute` on SQLite, DuckDB, files (and PostgreSQL and MariaDB where they run here), with every oracle
(tests/fuzz/harness.py). The full run is `-m fuzz` or benchmarks/fuzz.py."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.fuzz.harness import fuzz_engine, guard_verdicts
from tests.fuzz.sqlgen import DIALECTS, Generator

pytestmark = pytest.mark.integration

SEED = 47
SLICE = {"sqlite": 600, "duckdb": 250, "files": 250, "postgres": 250, "mysql": 250}


def test_the_generator_is_reproducible() -> None:
    first = [c.sql for c in Generator(SEED, DIALECTS).cases(40)]
    again = [c.sql for c in Generator(SEED, DIALECTS).cases(40)]
    assert first == again
    kinds = Counter(c.kind for c in Generator(SEED, ("sqlite",)).cases(400))
    assert len(kinds) == 12 and min(kinds.values()) >= 15, kinds


@pytest.mark.parametrize("engine", list(SLICE))
def test_generated_statements_write_nothing_read_no_canary_and_end_in_time(engine, tmp_path) -> None:
    if engine == "duckdb":
        pytest.importorskip("duckdb")
    if engine == "mysql":
        pytest.importorskip("pymysql")
    try:
        report = fuzz_engine(engine, tmp_path / engine, seed=SEED, count=SLICE[engine])
    except Exception as exc:
        if engine in ("postgres", "mysql") and "connect" in str(exc).lower():
            pytest.skip(f"{engine} is not running here: {str(exc).splitlines()[0]}")
        raise
    assert report.statements == SLICE[engine]
    assert [(f.oracle, f.sql, f.detail) for f in report.findings] == []
    assert report.verdicts["refused"] > 0 and report.verdicts["ran"] > 0, report.verdicts


def test_the_same_tree_gets_the_same_guard_verdict_on_every_engine_but_for_listed_reasons() -> None:
    """A portable statement (one sqlglot tree written in each dialect) passes the guard on every engine or on
    none, unless one of the known reasons applies: a function on one engine's allow-list only, `||` on MySQL,
    a spelling one dialect's parser does not read back, or a file-like name DuckDB reads as a path."""
    verdicts = guard_verdicts(SEED, 150, DIALECTS)
    known = ("function X", "'||' is logical OR", "cannot parse", "reading files",
             "value of", "nested too deeply", "optimizer hints", "user and system variables")
    unexplained = []
    for number in verdicts["sqlite"]:
        seen = {d: verdicts[d][number] for d in DIALECTS}
        if len({v == "pass" for v in seen.values()}) > 1:
            reasons = [v for v in seen.values() if v != "pass"]
            if not all(any(k in r for k in known) for r in reasons):
                unexplained.append((number, seen))
    assert unexplained == []


def test_the_http_api_under_schemathesis_answers_no_5xx_and_only_documented_errors(tmp_path) -> None:
    """A short seeded slice of the API fuzz (benchmarks/fuzz.py api runs 10,000): every operation, positive and
    negative generation, in-process against the real app with a scripted model."""
    pytest.importorskip("schemathesis")
    from tests.fuzz.api import fuzz_api

    report = fuzz_api(150, SEED, tmp_path)
    assert report.requests >= 150 and report.rounds >= 1
    assert not [status for status in report.statuses if status >= 500], report.statuses
    assert [p for p in report.problems if not str(p["problem"]).startswith("generation:")] == []
    assert report.log_errors == 0
    assert len(report.by_operation) >= 15  # the requests reached (nearly) every operation
