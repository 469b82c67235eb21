"""The run store stays bounded: compact traces (compressed, prompt blocks stored once), retention by age, count
and size, conversation retention by idle age and count, `groundsql runs prune`, old stores that still read, and
a bounded pool of connections however many threads record. Marked runs and runs a conversation points at always
survive, and so does a conversation in use."""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from click.testing import CliRunner

from groundsql.answer import Answer
from groundsql.cli import cli
from groundsql.conversations import ConversationStore, Turn
from groundsql.errors import ConfigError
from groundsql.runs import CHECK_EVERY, CONVERSATION_GRACE_S, MIGRATIONS, POOL_SIZE, Retention, RunStore
from groundsql.trace import ModelCall, Note, Trace

pytestmark = pytest.mark.unit

SCHEMA = "\n".join(f"CREATE TABLE t{i} (id INTEGER PRIMARY KEY, name TEXT, amount REAL, created_at TEXT);"
                   for i in range(40))
NO_LIMITS = Retention(max_age_days=None, max_runs=None, max_mb=None)


def _answer(question: str, *, schema: str = SCHEMA) -> Answer:
    trace = Trace()
    prompt = f"You write SQLite queries.\n\n{schema}\n\nQuestion: {question}\nReply with one query."
    trace.add(ModelCall(role="generator", model="fake", step="generate", prompt_tokens=900, completion_tokens=12,
                        latency_s=0.01, messages=[{"role": "system", "content": "Be brief."},
                                                  {"role": "user", "content": prompt}],
                        outputs=["```sql\nSELECT COUNT(*) FROM t1\n```"]))
    trace.note("catalog", tables=40)
    return Answer(question=question, sql="SELECT COUNT(*) FROM t1", result=None, preset="baseline", model="fake",
                  trace=trace, elapsed_s=0.02)


def _fill(store: RunStore, count: int, *, age_days: float = 0.0) -> list[int]:
    ids = [store.record(_answer(f"question {i}?"), "shop.sqlite") for i in range(count)]
    if age_days:
        with sqlite3.connect(store.path) as conn:
            conn.execute(f"UPDATE runs SET created_at = ? WHERE id IN ({', '.join('?' * len(ids))})",
                         (time.time() - age_days * 86400, *ids))
    return ids


def test_a_trace_reads_back_exactly_and_its_prompt_is_stored_once(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite", retention=NO_LIMITS)
    answers = [_answer(f"How many rows in table {i}?") for i in range(50)]
    ids = [store.record(a, "shop.sqlite") for a in answers]
    for answer, run_id in zip(answers[:3], ids, strict=False):
        assert store.get(run_id)["trace"] == json.loads(json.dumps(answer.trace.to_list()))
    with sqlite3.connect(store.path) as conn:
        assert conn.execute("SELECT count(*) FROM prompt_blocks").fetchone()[0] == 1  # the schema, once
        stored = conn.execute("SELECT sum(length(trace_z)) FROM runs").fetchone()[0]
    plain = sum(len(json.dumps(a.trace.to_list())) for a in answers)
    assert stored < plain / 8  # the schema block is kept once; each run keeps a few hundred bytes


def test_an_old_store_migrates_in_place_and_its_runs_still_read(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    for number, statement in enumerate(MIGRATIONS[:4], start=1):  # the store as it was before compact traces
        conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {number}")
    old_trace = _answer("an old question?").trace.to_list()
    conn.execute("INSERT INTO runs (created_at, question, database, ok, trace) VALUES (?, ?, ?, 1, ?)",
                 (time.time(), "an old question?", "shop.sqlite", json.dumps(old_trace)))
    conn.commit()
    conn.close()
    store = RunStore(path, retention=NO_LIMITS)
    new_id = store.record(_answer("a new question?"), "shop.sqlite")
    assert store.get(1)["trace"] == json.loads(json.dumps(old_trace))
    assert store.get(new_id)["question"] == "a new question?"
    report = store.prune(compact=True)
    assert report.compacted == 1 and report.deleted == 0
    assert store.get(1)["trace"] == json.loads(json.dumps(old_trace))  # now from the compact form
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM runs WHERE trace IS NOT NULL").fetchone()[0] == 0


def test_retention_by_age_count_and_size_keeps_marked_and_conversation_runs(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite", retention=NO_LIMITS)
    old = _fill(store, 30, age_days=120)
    store.set_mark(old[0], "right")
    conversations = ConversationStore(store)
    conversation = conversations.create("shop")
    conversations.add_turn(conversation, Turn(position=0, question="q", standalone="q", run_id=old[1]))
    _fill(store, 100)

    by_age = store.prune(Retention(max_age_days=90, max_runs=None, max_mb=None))
    assert (by_age.by_age, by_age.runs, by_age.kept) == (28, 102, 2)
    assert store.get(old[0])["mark"]["verdict"] == "right" and store.get(old[1]) is not None

    by_count = store.prune(Retention(max_age_days=None, max_runs=50, max_mb=None))
    assert by_count.by_count == 102 - 45 and by_count.runs == 45  # down to 90% of the limit
    assert store.get(old[0]) is not None and store.get(old[1]) is not None  # the oldest, yet kept

    _fill(store, 400)
    limit = store.size_mb() * 0.5
    by_size = store.prune(Retention(max_age_days=None, max_runs=None, max_mb=limit))
    assert by_size.by_size > 0 and store.size_mb() <= limit
    assert store.get(old[0]) is not None and store.get(old[1]) is not None
    newest = store.recent(1)[0]["id"]
    assert store.get(newest)["trace"][0]["messages"][1]["content"].count("CREATE TABLE") == 40  # blocks intact


def test_a_dry_run_counts_exactly_and_deletes_nothing(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite", retention=NO_LIMITS)
    _fill(store, 20, age_days=10)
    _fill(store, 5)
    report = store.prune(Retention(max_age_days=5, max_runs=None, max_mb=None), dry_run=True)
    assert report.by_age == 20 and len(store.recent(100)) == 25


def test_the_store_prunes_itself_as_it_records(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite", retention=Retention(max_age_days=None, max_runs=CHECK_EVERY,
                                                                    max_mb=None))
    _fill(store, CHECK_EVERY * 3)
    count = len(store.recent(10_000))
    assert count <= CHECK_EVERY * 2  # checked on the first record and every CHECK_EVERY after
    assert store.recent(1)[0]["question"] == f"question {CHECK_EVERY * 3 - 1}?"


def test_retention_from_the_environment_and_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Retention() == Retention(max_age_days=90, max_runs=100_000, max_mb=500, conversations_max_age_days=90,
                                    max_conversations=10_000)
    monkeypatch.setenv("GROUNDSQL_CONVERSATIONS_MAX", "50")
    monkeypatch.setenv("GROUNDSQL_CONVERSATIONS_MAX_AGE_DAYS", "none")
    conversations = Retention.from_env()
    assert (conversations.max_conversations, conversations.conversations_max_age_days) == (50, None)
    monkeypatch.setenv("GROUNDSQL_RUNS_MAX_AGE_DAYS", "7")
    monkeypatch.setenv("GROUNDSQL_RUNS_MAX_MB", "0")
    retention = Retention.from_env(max_runs=10)
    assert (retention.max_age_days, retention.max_runs, retention.max_mb) == (7, 10, None)
    monkeypatch.setenv("GROUNDSQL_RUNS_MAX_RUNS", "lots")
    with pytest.raises(ConfigError, match="GROUNDSQL_RUNS_MAX_RUNS must be a number"):
        Retention.from_env()
    with pytest.raises(ValueError):
        Retention(max_days=3)  # unknown fields are refused


def test_low_disk_and_over_limit_warn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog) -> None:
    import shutil

    store = RunStore(tmp_path / "runs.sqlite", retention=NO_LIMITS)
    ids = _fill(store, 20)
    for run_id in ids:
        store.set_mark(run_id, "right")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: shutil._ntuple_diskusage(10**9, 10**9 - 10**8, 10**8))
    with caplog.at_level(logging.WARNING, logger="groundsql"):
        store.check()
        store.check()  # the same warning is not repeated at once
        store.prune(Retention(max_age_days=None, max_runs=None, max_mb=0.001))
    messages = [r.getMessage() for r in caplog.records]
    assert sum("MB free on the disk holding the run store" in m for m in messages) == 1
    assert any("over its 0 MB limit, in runs it must keep" in m for m in messages)


def test_runs_prune_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GROUNDSQL_STATE_DIR", str(tmp_path))
    store = RunStore(retention=NO_LIMITS)
    ids = _fill(store, 12, age_days=200)
    store.set_mark(ids[3], "wrong", "SELECT 1")
    _fill(store, 3)
    runner = CliRunner()
    dry = runner.invoke(cli, ["runs", "prune", "--dry-run", "--json"])
    assert dry.exit_code == 0, dry.output
    assert json.loads(dry.output)["by_age"] == 11 and len(store.recent(100)) == 15
    done = runner.invoke(cli, ["runs", "prune", "--max-runs", "3", "--vacuum"])  # down to 90%: 2 runs
    assert done.exit_code == 0, done.output
    assert "deleted 13 run(s): 11 by age, 2 by count, 0 by size; 2 left (1 kept: marked or in conversations)" \
        in done.output
    assert {r["id"] for r in store.recent(100)} >= {ids[3]}


def test_a_note_only_trace_and_an_empty_one_round_trip(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite", retention=NO_LIMITS)
    trace = Trace()
    trace.add(Note(step="plan", data={"text": "x" * 5000}))
    answer = Answer(question="q", sql="", result=None, preset="baseline", model="fake", trace=trace, error="no SQL")
    assert store.get(store.record(answer, "db"))["trace"][0]["data"]["text"] == "x" * 5000
    empty = Answer(question="q", sql="", result=None, preset="baseline", model="fake", trace=Trace())
    assert store.get(store.record(empty, "db"))["trace"] == []


# -- conversations -------------------------------------------------------------------------------------------


def _conversation(store: ConversationStore, idle_days: float, runs: RunStore) -> str:
    """A conversation with one turn (and its run), last used `idle_days` ago."""
    conversation = store.create("shop")
    run_id = runs.record(_answer(f"asked in {conversation.id}?"), "shop.sqlite")
    store.add_turn(conversation, Turn(position=0, question="q", standalone="q", run_id=run_id))
    when = time.time() - idle_days * 86400
    with sqlite3.connect(runs.path) as conn:
        conn.execute("UPDATE conversations SET created_at = ?, active_at = ? WHERE id = ?",
                     (when, when, conversation.id))
        conn.execute("UPDATE conversation_turns SET created_at = ? WHERE conversation_id = ?", (when, conversation.id))
        conn.execute("UPDATE runs SET created_at = ? WHERE id = ?", (when, run_id))
    return conversation.id


def _conversation_ids(runs: RunStore) -> set[str]:
    with sqlite3.connect(runs.path) as conn:
        return {row[0] for row in conn.execute("SELECT id FROM conversations")}


def test_conversations_go_by_idle_age_with_their_turns_and_then_their_runs_age_out(tmp_path: Path) -> None:
    runs = RunStore(tmp_path / "runs.sqlite", retention=NO_LIMITS)
    store = ConversationStore(runs)
    stale = _conversation(store, 120, runs)
    old_but_used = _conversation(store, 120, runs)
    store.touch(old_but_used)  # asked again just now: it is in use
    fresh = _conversation(store, 1, runs)
    report = runs.prune(Retention(max_age_days=90, max_runs=None, max_mb=None, conversations_max_age_days=90))
    assert (report.conversations_by_age, report.conversations) == (1, 2)
    assert _conversation_ids(runs) == {old_but_used, fresh}
    with sqlite3.connect(runs.path) as conn:
        assert conn.execute("SELECT count(*) FROM conversation_turns WHERE conversation_id = ?",
                            (stale,)).fetchone()[0] == 0
    # the stale conversation's run was kept while a turn pointed at it; now it is past the runs' age limit too
    assert report.by_age == 1 and report.kept == 2
    assert store.get(old_but_used).turns[0].run_id is not None and runs.get(store.get(old_but_used).turns[0].run_id)
    with pytest.raises(ConfigError, match="no conversation"):
        store.get(stale)


def test_conversations_over_the_count_go_least_recently_used_first_never_one_in_use(tmp_path: Path) -> None:
    runs = RunStore(tmp_path / "runs.sqlite", retention=NO_LIMITS)
    store = ConversationStore(runs)
    idle = [_conversation(store, 30 - day, runs) for day in range(20)]  # idle[0] is the least recently used
    in_use = [store.create("shop").id for _ in range(3)]  # just created: within the grace period
    report = runs.prune(Retention(max_age_days=None, max_runs=None, max_mb=None, max_conversations=10))
    # down to 90% of the limit (9), but the three in use are never counted as deletable
    assert report.conversations_by_count == 23 - 9 and report.conversations == 9
    assert _conversation_ids(runs) == set(idle[-6:]) | set(in_use)
    tight = runs.prune(Retention(max_age_days=None, max_runs=None, max_mb=None, max_conversations=1))
    assert set(in_use) <= _conversation_ids(runs) and tight.conversations == 3
    assert CONVERSATION_GRACE_S >= 600  # longer than an ask may take (ask_timeout_s)


def test_a_turn_stored_after_its_conversation_was_pruned_brings_it_back(tmp_path: Path) -> None:
    runs = RunStore(tmp_path / "runs.sqlite", retention=NO_LIMITS)
    store = ConversationStore(runs)
    conversation = store.get(_conversation(store, 200, runs))  # an ask begins: the conversation is read ...
    runs.prune(Retention(max_age_days=None, max_runs=None, max_mb=None, conversations_max_age_days=90))
    store.add_turn(conversation, Turn(position=0, question="and by region?", standalone="q by region"))
    again = store.get(conversation.id)  # ... and its new turn still has a conversation to belong to
    assert [t.question for t in again.turns] == ["and by region?"] and again.turns[0].position == 2


def test_an_old_store_gets_each_conversations_last_use_from_its_turns(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    for number, statement in enumerate(MIGRATIONS[:10], start=1):  # before conversation retention
        conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {number}")
    conn.execute("INSERT INTO conversations (id, created_at, database) VALUES ('a', 100.0, 'shop'), "
                 "('b', 200.0, 'shop')")
    conn.execute("INSERT INTO conversation_turns (conversation_id, position, created_at, question, standalone) "
                 "VALUES ('a', 1, 150.0, 'q', 'q'), ('a', 2, 900.0, 'q2', 'q2')")
    conn.commit()
    conn.close()
    RunStore(path, retention=NO_LIMITS)
    with sqlite3.connect(path) as conn:
        assert dict(conn.execute("SELECT id, active_at FROM conversations")) == {"a": 900.0, "b": 200.0}


def test_runs_prune_command_prunes_conversations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GROUNDSQL_STATE_DIR", str(tmp_path))
    runs = RunStore(retention=NO_LIMITS)
    store = ConversationStore(runs)
    kept = [_conversation(store, days, runs) for days in (1, 2, 40, 50)]
    result = CliRunner().invoke(cli, ["runs", "prune", "--conversations-max-age-days", "30", "--max-conversations",
                                      "0"])
    assert result.exit_code == 0, result.output
    assert "deleted 2 conversation(s): 2 by age, 0 by count; 2 left" in result.output
    assert _conversation_ids(runs) == set(kept[:2])


# -- connections ---------------------------------------------------------------------------------------------


def test_many_threads_share_a_bounded_pool_of_connections(tmp_path: Path) -> None:
    runs = RunStore(tmp_path / "runs.sqlite", retention=NO_LIMITS)
    conversations = ConversationStore(runs)
    threads: set[int] = set()

    def work(i: int) -> int:
        threads.add(threading.get_ident())
        conversation = conversations.create("shop")
        run_id = runs.record(_answer(f"question {i}?"), "shop.sqlite")
        conversations.add_turn(conversations.get(conversation.id), Turn(position=0, question="q", standalone="q",
                                                                        run_id=run_id))
        assert runs.get(run_id)["question"] == f"question {i}?"
        return run_id

    with ThreadPoolExecutor(max_workers=24) as pool:
        ids = list(pool.map(work, range(240)))
    assert len(set(ids)) == 240 and len(threads) > POOL_SIZE
    assert 1 <= runs.open_connections <= POOL_SIZE  # not one connection (and page cache) per thread
    with runs.connection() as outer, runs.connection() as inner:  # a thread holding one gets it again
        assert outer is inner
    runs.close()
    assert runs.open_connections == 0 and runs.recent(1)[0]["id"] == max(ids)


def test_an_id_no_run_can_have_is_not_found(tmp_path: Path) -> None:
    """Ids beyond SQLite's 64-bit integers (the API fuzz sent them): not found, not an OverflowError."""
    store = RunStore(tmp_path / "runs.sqlite")
    assert store.get(2**80) is None and store.mark_of(-(2**70)) is None and not store.is_marked(2**63)
