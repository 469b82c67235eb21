"""The full fuzz run, one engine at a time (`-m fuzz`; excluded from every other run). Statement count and
seed: GROUNDSQL_FUZZ_COUNT (default 100,000) and GROUNDSQL_FUZZ_SEED (default 47). benchmarks/fuzz.py runs the
same and writes the report."""

from __future__ import annotations

import os

import pytest

from tests.fuzz.harness import ENGINES, fuzz_engine

pytestmark = [pytest.mark.fuzz, pytest.mark.slow]


@pytest.mark.parametrize("engine", ENGINES)
def test_fuzz_engine(engine, tmp_path) -> None:
    if engine == "spark":
        pytest.importorskip("pyspark")
    count = int(os.environ.get("GROUNDSQL_FUZZ_COUNT", "100000"))
    report = fuzz_engine(engine, tmp_path / engine, seed=int(os.environ.get("GROUNDSQL_FUZZ_SEED", "47")),
                         count=count, check_state_every=int(os.environ.get("GROUNDSQL_FUZZ_CHECK_EVERY", "1")))
    assert report.statements == count
    assert [(f.oracle, f.number, f.sql, f.detail) for f in report.findings] == []
