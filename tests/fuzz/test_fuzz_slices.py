"""A long fuzz run spans sessions as slices of one seed (`benchmarks/fuzz.py sql --start N`): the report adds up
the slices that continue each other and leaves out one that does not."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture()
def fuzz_module(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("fuzz_benchmark", REPO / "benchmarks" / "fuzz.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "OUT", tmp_path)
    return module


def _slice(folder: Path, name: str, start: int, statements: int, *, done: bool, findings: int = 0,
           count: int | None = None) -> None:
    """A slice's result file; `count` is how many statements it was asked for (default: up to 100,000)."""
    (folder / name).write_text(json.dumps({
        "engine": "spark", "seed": 47, "start": start, "count": 100_000 - start if count is None else count, "timeout_s": 2.0,
        "check_state_every": 1, "command": f"fuzz.py sql --start {start}", "commit": "abc1234", "machine": "m",
        "started": "2026-11-28 16:15 UTC", "done": done, "statements": statements, "elapsed_s": 10.0,
        "slowest_s": 1.5 + start / 100_000, "state_checks": 7, "verdicts": {"refused": statements - 2, "ran": 2},
        "by_kind": {"ddl|refused": statements - 2, "select|ran": 2},
        "findings": [{"oracle": "write"}] * findings, "findings_total": findings}))


def test_contiguous_slices_add_up_and_a_gap_is_left_out(fuzz_module, tmp_path) -> None:
    _slice(tmp_path, "sql_spark.json", 0, 5000, done=True)
    _slice(tmp_path, "sql_spark.from5000.json", 5000, 5000, done=False)
    _slice(tmp_path, "sql_spark.from10000.json", 10000, 24000, done=False, findings=1)
    _slice(tmp_path, "sql_spark.from50000.json", 50000, 1000, done=True)  # a gap: not a continuation
    merged = fuzz_module.load_engine_slices("spark")
    assert merged["statements"] == 34000
    assert merged["verdicts"] == {"refused": 33994, "ran": 6}
    assert merged["by_kind"]["select|ran"] == 6
    assert merged["findings_total"] == 1 and merged["state_checks"] == 21
    assert merged["done"] is False and merged["slowest_s"] == pytest.approx(1.6)
    assert [part["start"] for part in merged["slices"]] == [0, 5000, 10000]


def test_slices_that_reach_the_end_of_the_range_are_done_though_earlier_ones_were_stopped(fuzz_module,
                                                                                          tmp_path) -> None:
    """Slices stopped to free a core, then continued, complete the run once the last one reaches the end of the
    range they were asked for; a last slice stopped short leaves it partial."""
    _slice(tmp_path, "sql_spark.json", 0, 5000, done=True, count=5000)  # the first slice asked for 5,000 only
    _slice(tmp_path, "sql_spark.from5000.json", 5000, 65000, done=False)
    assert fuzz_module.load_engine_slices("spark")["done"] is False
    _slice(tmp_path, "sql_spark.from70000.json", 70000, 20000, done=False)
    assert fuzz_module.load_engine_slices("spark")["done"] is False
    _slice(tmp_path, "sql_spark.from70000.json", 70000, 30000, done=True)
    merged = fuzz_module.load_engine_slices("spark")
    assert merged["statements"] == 100_000 and merged["done"] is True


def test_a_statement_that_ends_the_session_is_a_finding_and_stops_the_slice(fuzz_module, tmp_path) -> None:
    """A Spark JVM that runs out of memory ends the session: nothing after that statement can be judged, so the
    harness records a `session_ended` finding and stops; the next slice starts after that statement."""
    from groundsql.errors import DatabaseError
    from tests.fuzz.harness import FuzzTarget, Report, SessionEnded, run_case
    from tests.fuzz.sqlgen import Generator

    class EndedSession:  # stands in for a Spark database whose JVM a statement took down
        def execute(self, sql, **_):
            raise DatabaseError("the Spark session ended while running the statement (out of memory or killed: "
                                "java.lang.OutOfMemoryError); connect again")

    target = FuzzTarget("spark", [EndedSession()], [], lambda: None, lambda: None, str(tmp_path / "s.txt"), [],
                        lambda: None)
    case = next(Generator(47, ("spark",)).cases(1, 46_147))
    report = Report("spark", 47)
    with pytest.raises(SessionEnded):
        run_case(target, case, report, timeout_s=2.0, check_state_every=1, baseline={})
    assert report.stopped_at == 46_147 and report.statements == 1
    assert [(f.number, f.oracle) for f in report.findings] == [(46_147, "session_ended")]
    _slice(tmp_path, "sql_spark.json", 0, 46_148, done=True)
    merged = fuzz_module.load_engine_slices("spark")
    assert merged["statements"] == 46_148
