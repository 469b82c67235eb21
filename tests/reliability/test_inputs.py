"""Bad input ends in one clear line and the right exit status, before any model call (issue defects 5-11).

The model is a loopback OpenAI-compatible server (`FaultServer`) so that the CLI runs its real code path and
the tests can count the model calls a bad input must not cause.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from groundsql.cli import cli
from groundsql.errors import ConfigError
from groundsql.inputs import MAX_QUESTION_CHARS
from tests.reliability.fault_server import FaultServer

pytest.importorskip("openai")
pytestmark = pytest.mark.integration


def run(*args: str, input: bytes | str | None = None):
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def one_error_line(result, fragment: str) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert fragment in lines[0], lines[0]
    assert "Traceback" not in result.output and "unexpected" not in result.stderr
    return lines[0]


def replying(sql: str):
    return FaultServer(respond=lambda messages: f"```sql\n{sql}\n```")


# -- 5. exit status with --json ---------------------------------------------------------------------------

@pytest.mark.parametrize("reply", ["```sql\nDELETE FROM orders\n```", "```sql\nSELECT * FROM no_such_table\n```",
                                   "I cannot answer that."])
def test_an_answer_with_an_error_exits_non_zero_with_and_without_json(demo_db: Path, reply: str) -> None:
    with FaultServer(respond=lambda messages: reply) as server:
        as_json = run("ask", "How many orders?", "--db", str(demo_db), "--model", server.spec, "--preset",
                      "baseline", "--json")
        plain = run("ask", "How many orders?", "--db", str(demo_db), "--model", server.spec, "--preset",
                    "baseline")
    payload = json.loads(as_json.stdout)
    assert payload["error"], payload
    assert as_json.exit_code == 1 and plain.exit_code == 1


def test_a_good_answer_exits_zero_with_json(demo_db: Path) -> None:
    with replying("SELECT count(*) FROM orders") as server:
        result = run("ask", "How many orders?", "--db", str(demo_db), "--model", server.spec, "--preset",
                     "baseline", "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["error"] is None


# -- 6 and 7. empty, corrupt and irregular database files ---------------------------------------------------

def empty_sqlite_without_tables(path: Path) -> Path:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 3")  # writes the header: a real database with no tables
    conn.commit()
    conn.close()
    return path


@pytest.mark.parametrize(("name", "content", "message"), [
    ("empty.sqlite", b"", "has no tables"),
    ("empty.csv", b"", "is empty (0 bytes)"),
    ("blank.csv", b"\n  \n", "holds no data"),
    ("notes.sqlite", b"just some text, not a database\n" * 10, "is not a SQLite database"),
    ("ragged.csv", b"id,name,country\n1,Ann,France\n2,Bo\n3,Cy,Peru,extra\n4,Di,Chile\n",
     "line 3 has 2, line 4 has 4"),
])
def test_bad_database_files_are_refused_before_any_model_call(tmp_path: Path, name: str, content: bytes,
                                                              message: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with replying("SELECT 1") as server:
        result = run("ask", "How many rows?", "--db", str(path), "--model", server.spec, "--preset", "baseline")
    assert result.exit_code == 2
    one_error_line(result, message)
    assert server.times == []


def test_a_database_without_tables_is_refused_before_any_model_call(tmp_path: Path) -> None:
    path = empty_sqlite_without_tables(tmp_path / "none.sqlite")
    with replying("SELECT 1") as server:
        result = run("ask", "How many rows?", "--db", str(path), "--model", server.spec)
    assert result.exit_code == 2
    one_error_line(result, "has no tables")
    assert server.times == []


def test_a_damaged_sqlite_file_is_one_clear_line(tmp_path: Path, demo_db: Path) -> None:
    data = bytearray(demo_db.read_bytes())
    data[100:] = b"\x13" * (len(data) - 100)  # the header survives, every page is garbage
    path = tmp_path / "damaged.sqlite"
    path.write_bytes(bytes(data))
    result = run("sql", "SELECT 1", "--db", str(path))
    assert result.exit_code == 2
    one_error_line(result, "is not a readable SQLite database")


def test_a_regular_csv_loads_with_its_columns(tmp_path: Path) -> None:
    path = tmp_path / "people.csv"
    path.write_text('id;name;country\n1;"Ann; Jr";France\n2;Bo;Peru\n', encoding="utf-8")
    result = run("sql", "SELECT * FROM people ORDER BY id", "--db", str(path), "--json")
    payload = json.loads(result.stdout)
    assert payload["columns"] == ["id", "name", "country"] and payload["rows"][0] == [1, "Ann; Jr", "France"]


# -- 8. limits are finite numbers within bounds --------------------------------------------------------------

@pytest.mark.parametrize(("flag", "value", "message"), [
    ("--timeout", "inf", "timeout must be a finite number"),
    ("--timeout", "nan", "timeout must be a finite number"),
    ("--timeout", "0", "timeout must be a finite number"),
    ("--timeout", "1e12", "at most 86400"),
    ("--max-rows", "100000000000000000000", "row limit must be between 1 and"),
    ("--max-rows", "0", "row limit must be between 1 and"),
])
@pytest.mark.parametrize("suffix", [".sqlite", ".duckdb"])
def test_limits_are_checked(tmp_path: Path, demo_db: Path, flag: str, value: str, message: str,
                            suffix: str) -> None:
    db = demo_db
    if suffix == ".duckdb":
        import duckdb

        db = tmp_path / "x.duckdb"
        duckdb.connect(str(db)).execute("CREATE TABLE t AS SELECT 1 AS a").close()
    result = run("sql", "SELECT 1", "--db", str(db), flag, value)
    assert result.exit_code == 2
    one_error_line(result, message)


def test_per_statement_limits_are_checked_in_the_library(demo_db: Path) -> None:
    from groundsql import connect

    db = connect(str(demo_db))
    for kwargs in ({"timeout_s": float("inf")}, {"timeout_s": float("nan")}, {"max_rows": 10**20},
                   {"max_rows": -1}):
        with pytest.raises(ConfigError):
            db.execute("SELECT 1", **kwargs)
    with pytest.raises(ConfigError):
        connect(str(demo_db), timeout_s=float("inf"))


# -- 9. a bad port, bad bytes, a bad --sample, bad prediction lines ------------------------------------------

def test_a_non_numeric_port_is_named_and_the_password_is_not(tmp_path: Path) -> None:
    result = run("sql", "SELECT 1", "--db", "postgresql://me:s3cret@localhost:abc/db")
    line = one_error_line(result, "the port 'abc' is not a number")
    assert "s3cret" not in result.output and "me:***@localhost" in line


def test_a_question_that_is_not_utf8_is_named(demo_db: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "groundsql.cli", "ask", b"caf\xe9 \xff?", "--db", str(demo_db),
                           "--model", "openai:x@http://127.0.0.1:9/v1"], capture_output=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr.decode().strip() == "error: the question is not valid UTF-8 text (bad byte at position 3)"


def test_a_query_that_is_not_utf8_is_named(demo_db: Path) -> None:
    result = run("sql", "SELECT 'caf\udce9'", "--db", str(demo_db))  # how Python hands over undecodable argv
    one_error_line(result, "the query is not valid UTF-8 text (bad byte at position 11)")


def test_samples_are_bounded(demo_db: Path) -> None:
    with replying("SELECT 1") as server:
        for value in ("0", "-2", "1000"):
            result = run("ask", "How many orders?", "--db", str(demo_db), "--model", server.spec, "--samples", value)
            one_error_line(result, "samples must be a whole number from 1 to 64")
    assert server.times == []


def test_a_negative_sample_is_named(spider_dir: Path, tmp_path: Path) -> None:
    result = run("eval", str(spider_dir), "--predictions", str(tmp_path / "p.jsonl"), "--sample", "-1")
    assert result.exit_code != 0  # the predictions file is missing: click says so first
    (tmp_path / "p.jsonl").write_text('{"id": 0, "sql": "SELECT 1"}\n')
    result = run("eval", str(spider_dir), "--predictions", str(tmp_path / "p.jsonl"), "--sample", "-1",
                 "--out", str(tmp_path / "out"))
    one_error_line(result, "--sample must be a whole number of at least 1")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("line", "message"), [
    (b'{"id": 1, "sql": 42}\n', "p.jsonl:2: 'sql' must be a string"),
    (b'{"id": 1, "sql": "SELECT \xff"}\n', "p.jsonl:2: not UTF-8 text"),
    (b'{"id": 1, "sql": \n', "p.jsonl:2: not valid JSON"),
    (b'[1, 2]\n', "p.jsonl:2: expected a JSON object"),
])
def test_bad_prediction_lines_are_named_by_file_and_line(spider_dir: Path, tmp_path: Path, line: bytes,
                                                         message: str) -> None:
    path = tmp_path / "p.jsonl"
    path.write_bytes(b'{"id": 0, "sql": "SELECT 1"}\n' + line)
    result = run("eval", str(spider_dir), "--predictions", str(path), "--limit", "2")
    assert result.exit_code == 2
    one_error_line(result, message)


# -- 10. a documented limit on the question, and long questions from a file or stdin --------------------------

def test_a_too_long_question_is_refused_before_any_model_call(demo_db: Path) -> None:
    from groundsql import ask
    from groundsql.models import ScriptedModel

    model = ScriptedModel(default="SELECT 1")
    with pytest.raises(ConfigError, match="the limit is 10,000"):
        ask("How many? " * 20_000, str(demo_db), model=model)
    assert model.calls == []
    with replying("SELECT 1") as server:
        result = run("ask", "x" * (MAX_QUESTION_CHARS + 1), "--db", str(demo_db), "--model", server.spec)
    one_error_line(result, "the limit is 10,000")
    assert server.times == []


def test_questions_from_a_file_and_from_stdin(demo_db: Path, tmp_path: Path) -> None:
    question = "How many orders are there? " + "Count every order, whatever its status. " * 100
    path = tmp_path / "question.txt"
    path.write_text(question, encoding="utf-8")
    with replying("SELECT count(*) FROM orders") as server:
        from_file = run("ask", "--question-file", str(path), "--db", str(demo_db), "--model", server.spec,
                        "--preset", "baseline", "--json")
        from_stdin = run("ask", "-", "--db", str(demo_db), "--model", server.spec, "--preset", "baseline",
                         "--json", input=question.encode())
        too_long = run("ask", "--question-file", "-", "--db", str(demo_db), "--model", server.spec,
                       input=b"y" * (MAX_QUESTION_CHARS + 5))
    for result in (from_file, from_stdin):
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["question"] == question.strip()
    asked = [body["messages"][-1]["content"] for body in server.bodies]
    assert len(asked) == 2 and all("whatever its status" in text for text in asked)
    one_error_line(too_long, "the limit is 10,000")


# -- 11. model specs and files are checked up front ---------------------------------------------------------

def test_a_missing_or_fake_gguf_fails_before_the_database_is_read(tmp_path: Path) -> None:
    missing = run("ask", "How many?", "--db", str(tmp_path / "absent.sqlite"), "--model",
                  f"local:{tmp_path}/model.gguf")
    one_error_line(missing, "GGUF file not found")
    (tmp_path / "model.gguf").write_text("not weights")
    fake = run("ask", "How many?", "--db", str(tmp_path / "absent.sqlite"), "--model",
               f"local:{tmp_path}/model.gguf")
    one_error_line(fake, "is not a GGUF model file")


@pytest.mark.parametrize(("spec", "message"), [
    ("openai:gpt@localhost:8000/v1", "must start with http:// or https://"),
    ("nope:model", "unknown model provider"),
])
def test_bad_model_specs_fail_up_front(spec: str, message: str, tmp_path: Path) -> None:
    from groundsql.models import load_model

    with pytest.raises(ConfigError, match=message):
        load_model(spec)
