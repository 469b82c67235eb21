"""Marking answers: the run store's marks (a numbered migration), the checks on a corrected query, learning, the
`groundsql runs mark` command. Real SQLite files throughout; the runs come from real `ask` calls with a scripted
model."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from groundsql.api import ask, connect
from groundsql.cli import cli
from groundsql.errors import ConfigError, DatabaseError
from groundsql.marking import mark_run
from groundsql.models import ScriptedModel
from groundsql.runs import MIGRATIONS, PINNED_RUNS, RunStore

pytestmark = pytest.mark.integration


def _run(store: RunStore, db_path: Path, question: str, sql: str) -> int:
    db = connect(str(db_path))
    answer = ask(question, db, model=ScriptedModel(default=f"```sql\n{sql}\n```"), preset="baseline",
                 catalog=False)
    return store.record(answer, db.display)


@pytest.fixture()
def store(tmp_path: Path) -> RunStore:
    return RunStore(tmp_path / "runs.sqlite")


def test_a_store_of_an_older_version_gains_marks_and_keeps_its_runs(tmp_path: Path, music_db: Path) -> None:
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    for number, statement in enumerate(MIGRATIONS[:3], start=1):  # the store as it was before marks
        conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {number}")
    conn.execute("INSERT INTO runs (created_at, question, database, ok) VALUES (1, 'old question', 'x', 1)")
    conn.commit()
    conn.close()
    store = RunStore(path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    assert store.recent()[0]["question"] == "old question" and store.recent()[0]["mark"] is None
    store.set_mark(1, "right")
    assert store.is_marked(1) and store.get(1)["mark"]["verdict"] == "right"


def test_marks_are_stored_replaced_listed_and_pinned(store: RunStore, music_db: Path) -> None:
    first = _run(store, music_db, "How many singers?", "SELECT count(*) FROM singer")
    second = _run(store, music_db, "How many songs?", "SELECT count(*) FROM singer")
    mark_run(first, "right", store=store)
    outcome = mark_run(second, "wrong", sql="SELECT count(*) FROM song;", store=store)
    assert outcome.mark["corrected_sql"] == "SELECT count(*) FROM song"
    assert outcome.check == {"columns": ["count(*)"], "rows": [[4]], "row_count": 1, "truncated": False}
    assert [r["mark"] for r in store.recent()] == ["wrong", "right"]
    marked = store.marked(connect(str(music_db)).display)
    assert [(r["id"], r["verdict"]) for r in marked] == [(first, "right"), (second, "wrong")]
    assert store.marked("another database") == []
    mark_run(first, "wrong", store=store)  # a second mark replaces the first
    assert store.mark_of(first)["verdict"] == "wrong" and len(store.marked()) == 2
    # what retention must honour: pruning every run but the pinned ones keeps the marked runs
    third = _run(store, music_db, "Unmarked question", "SELECT 1")
    with sqlite3.connect(store.path) as conn:
        conn.execute(f"DELETE FROM runs WHERE NOT ({PINNED_RUNS})")
    assert store.get(third) is None and store.get(first) is not None and store.get(second) is not None


def test_a_corrected_query_must_pass_the_guard_and_run_before_anything_is_stored(store: RunStore,
                                                                                 music_db: Path) -> None:
    run_id = _run(store, music_db, "How many songs?", "SELECT count(*) FROM singer")
    with pytest.raises(DatabaseError, match="refused"):
        mark_run(run_id, "wrong", sql="DELETE FROM song", store=store)
    with pytest.raises(DatabaseError):
        mark_run(run_id, "wrong", sql="SELECT count(*) FROM no_such_table", store=store)
    assert store.mark_of(run_id) is None
    with sqlite3.connect(music_db) as conn:
        assert conn.execute("SELECT count(*) FROM song").fetchone()[0] == 4


def test_marks_that_say_nothing_are_refused(store: RunStore, music_db: Path) -> None:
    run_id = _run(store, music_db, "How many songs?", "SELECT count(*) FROM singer")
    with pytest.raises(ConfigError, match="no run #999"):
        mark_run(999, "right", store=store)
    with pytest.raises(ConfigError, match="right or wrong"):
        mark_run(run_id, "maybe", store=store)
    with pytest.raises(ConfigError, match="needs no corrected SQL"):
        mark_run(run_id, "right", sql="SELECT count(*) FROM song", store=store)
    with pytest.raises(ConfigError, match="nothing to learn"):
        mark_run(run_id, "wrong", learn=True, store=store)
    # the run's own SQL handed back (an unedited box) is no correction
    assert mark_run(run_id, "wrong", sql="select COUNT(*) from singer", store=store).mark["corrected_sql"] is None


def test_a_mark_can_become_a_verified_example(store: RunStore, music_db: Path, tmp_path: Path) -> None:
    from groundsql.knowledge import load_knowledge

    run_id = _run(store, music_db, "How many songs are there?", "SELECT count(*) FROM singer")
    folder = tmp_path / "knowledge"
    outcome = mark_run(run_id, "wrong", sql="SELECT count(*) FROM song", learn=True, folder=folder, store=store)
    assert outcome.learned["added"]
    examples = load_knowledge(folder, connect(str(music_db))).examples
    assert [(e.question, e.sql) for e in examples] == [("How many songs are there?", "SELECT count(*) FROM song")]
    again = mark_run(run_id, "wrong", sql="SELECT count(*) FROM song", learn=True, folder=folder, store=store)
    assert not again.learned["added"] and "already answers" in again.learned["reason"]


def test_runs_mark_command(music_db: Path, private_state_dir: Path) -> None:
    store = RunStore()
    run_id = _run(store, music_db, "How many songs?", "SELECT count(*) FROM singer")
    runner = CliRunner()
    result = runner.invoke(cli, ["runs", "mark", str(run_id), "wrong", "--sql", "SELECT count(*) FROM song"])
    assert result.exit_code == 0, result.output
    assert f"run #{run_id} marked wrong with the corrected SQL" in result.output
    assert "the corrected SQL runs: 1 row(s)" in result.output
    refused = runner.invoke(cli, ["runs", "mark", str(run_id), "wrong", "--sql", "DROP TABLE song"])
    assert refused.exit_code != 0 and "refused" in refused.output
    listed = runner.invoke(cli, ["runs", "--limit", "5", "--json"])
    assert json.loads(listed.output)["runs"][0]["mark"] == "wrong"
    assert "✗" in runner.invoke(cli, ["runs"]).output
    shown = runner.invoke(cli, ["runs", "mark", str(run_id), "right", "--json"])
    assert json.loads(shown.output)["verdict"] == "right"


def test_knowledge_learn_takes_the_corrected_sql_of_a_marked_run(store: RunStore, music_db: Path,
                                                                 tmp_path: Path) -> None:
    from groundsql.errors import KnowledgeError
    from groundsql.knowledge import load_knowledge
    from groundsql.knowledge.store import learn

    run_id = _run(store, music_db, "How many songs are there?", "SELECT count(*) FROM singer")
    mark_run(run_id, "wrong", store=store)
    with pytest.raises(KnowledgeError, match="marked wrong; give the correct query"):
        learn(run_id, folder=tmp_path / "k", store=store)
    mark_run(run_id, "wrong", sql="SELECT count(*) FROM song", store=store)
    assert learn(run_id, folder=tmp_path / "k", store=store).added
    example = load_knowledge(tmp_path / "k").examples[0]
    assert example.sql == "SELECT count(*) FROM song"
