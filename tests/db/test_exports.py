"""Exports read back by pandas, pyarrow and openpyxl hold the answer's rows, types included; `ask --out` writes
them; the question, the SQL and the row cap travel in the file where the format has room."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path

import pytest

from groundsql.db import Database
from groundsql.db.exports import format_of, write_export
from groundsql.errors import ConfigError

pytestmark = pytest.mark.integration
pd = pytest.importorskip("pandas", reason="pandas is not installed (pip install 'groundsql[dataframes]')")
pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is not installed (pip install 'groundsql[dataframes]')")
openpyxl = pytest.importorskip("openpyxl", reason="openpyxl is not installed (pip install 'groundsql[dataframes]')")

SQL = "SELECT * FROM entries ORDER BY id"
QUESTION = "Every ledger entry, oldest first?"


@pytest.fixture()
def result(ledger_duckdb: Path):
    return Database(str(ledger_duckdb), max_rows=2).execute(SQL)  # three rows, cut at two


def test_parquet_round_trip_keeps_types_nulls_and_metadata(result, tmp_path: Path) -> None:
    path = write_export(result, tmp_path / "r.parquet", question=QUESTION, row_cap=2)
    table = pq.read_table(path)
    assert table.to_pylist() == [dict(zip(result.columns, row)) for row in result.rows]  # values and types
    assert str(table.schema.field("amount").type) == "decimal128(12, 2)"
    assert str(table.schema.field("booked").type) == "date32[day]"
    meta = {k.decode(): v.decode() for k, v in table.schema.metadata.items() if k.startswith(b"groundsql.")}
    assert meta == {"groundsql.question": QUESTION, "groundsql.sql": SQL, "groundsql.row_cap": "2",
                    "groundsql.truncated": "true", "groundsql.row_count": "2"}
    frame = pd.read_parquet(path)
    assert frame["booked"].tolist() == [dt.date(2024, 1, 31), dt.date(2024, 2, 29)]


def test_csv_round_trip_with_pandas(result, tmp_path: Path) -> None:
    path = write_export(result, tmp_path / "r.csv")
    frame = pd.read_csv(path, parse_dates=["booked", "posted"], dtype={"amount": str})
    assert list(frame.columns) == result.columns
    assert frame["id"].tolist() == [1, 2]
    assert [d.date() for d in frame["booked"]] == [row[1] for row in result.rows]
    assert [Decimal(a) for a in frame["amount"]] == [row[2] for row in result.rows]  # exact decimal text
    assert frame["posted"].tolist() == [pd.Timestamp(row[4]) for row in result.rows]
    assert frame["ok"].tolist() == [True, False] and frame["rate"].tolist() == [0.25, 1e-9]


def test_csv_writes_null_as_an_empty_field(ledger_duckdb: Path, tmp_path: Path) -> None:
    nulls = Database(str(ledger_duckdb)).execute("SELECT id, booked, memo FROM entries WHERE id = 3")
    path = write_export(nulls, tmp_path / "n.csv")
    assert path.read_text() == "id,booked,memo\n3,,\n"
    assert pd.read_csv(path).iloc[0, 1:].isna().all()


def test_excel_round_trip_with_openpyxl(result, tmp_path: Path) -> None:
    path = write_export(result, tmp_path / "r.xlsx", question=QUESTION, row_cap=2)
    book = openpyxl.load_workbook(path)
    rows = list(book["result"].iter_rows(values_only=True))
    assert list(rows[0]) == result.columns
    for read, row in zip(rows[1:], result.rows):
        assert read[0] == row[0] and read[1].date() == row[1]  # Excel keeps a date as a date-formatted datetime
        assert Decimal(str(read[2])) == row[2] and read[3] == row[3] and read[4] == row[4]
        assert read[5] is row[5] and read[6] == row[6]
    assert book["result"]["B2"].is_date and book["result"]["E2"].is_date
    about = dict(book["query"].iter_rows(values_only=True))
    assert about["question"] == QUESTION and about["sql"] == SQL and about["row_cap"] == 2
    assert about["truncated"] is True and "cut at the cap" in about["note"]
    assert book.properties.title == QUESTION and book.properties.description == SQL


def test_excel_keeps_formula_like_text_as_text(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "f.sqlite"
    con = sqlite3.connect(path)
    con.executescript("CREATE TABLE t (note TEXT); INSERT INTO t VALUES ('=HYPERLINK(\"http://x\")'), (NULL);")
    con.commit()
    con.close()
    out = write_export(Database(str(path)).execute("SELECT note FROM t"), tmp_path / "f.xlsx")
    cell = openpyxl.load_workbook(out)["result"]["A2"]
    assert cell.data_type == "s" and cell.value == '=HYPERLINK("http://x")'


def test_json_round_trip(result, tmp_path: Path) -> None:
    path = write_export(result, tmp_path / "r.json", question=QUESTION, row_cap=2)
    data = json.loads(path.read_text())
    assert {k: data[k] for k in ("question", "sql", "row_count", "row_cap", "truncated")} == {
        "question": QUESTION, "sql": SQL, "row_count": 2, "row_cap": 2, "truncated": True}
    assert [c["type"] for c in data["columns"]] == ["int", "date", "decimal", "string", "datetime", "bool", "float"]
    frame = pd.DataFrame(data["rows"], columns=[c["name"] for c in data["columns"]])
    assert [dt.date.fromisoformat(d) for d in frame["booked"]] == [row[1] for row in result.rows]
    assert [Decimal(a) for a in frame["amount"]] == [row[2] for row in result.rows]
    assert frame["id"].tolist() == [1, 2] and frame["ok"].tolist() == [True, False]


def test_an_unknown_suffix_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"use a \.csv, \.parquet, \.xlsx or \.json file"):
        format_of("result.txt")


@pytest.mark.parametrize("suffix", ["csv", "parquet", "xlsx", "json"])
def test_cli_ask_out_writes_the_answer(suffix: str, demo_db: Path, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """`groundsql ask --out` with the scripted demo model (control flow) on the real demo database."""
    from click.testing import CliRunner

    from groundsql.cli import cli, commands
    from groundsql.server.testing import demo_model

    model = demo_model()
    monkeypatch.setattr(commands, "load_model", lambda spec=None, **kw: model)
    out = tmp_path / f"regions.{suffix}"
    run = CliRunner().invoke(cli, ["ask", "How many customers does each region have?", "--db", str(demo_db),
                                   "--out", str(out), "--max-rows", "4", "--no-record"])
    assert run.exit_code == 0, run.output
    assert f"wrote 4 row(s) (cut at the row cap) to {out}" in run.output
    expected = Database(str(demo_db)).execute("SELECT r.region_name, COUNT(*) AS customers FROM customers AS c "
                                              "JOIN regions AS r ON r.region_id = c.region_id GROUP BY r.region_name "
                                              "ORDER BY customers DESC LIMIT 4").rows
    if suffix == "csv":
        rows = list(pd.read_csv(out).itertuples(index=False, name=None))
    elif suffix == "parquet":
        table = pq.read_table(out)
        rows = [tuple(r.values()) for r in table.to_pylist()]
        assert table.schema.metadata[b"groundsql.question"] == b"How many customers does each region have?"
        assert table.schema.metadata[b"groundsql.row_cap"] == b"4"
    elif suffix == "xlsx":
        rows = list(openpyxl.load_workbook(out)["result"].iter_rows(min_row=2, values_only=True))
    else:
        rows = [tuple(r) for r in json.loads(out.read_text())["rows"]]
    assert rows == expected


def test_cli_ask_out_refuses_a_bad_suffix_before_the_model_runs(demo_db: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from groundsql.cli import cli, commands

    monkeypatch.setattr(commands, "load_model", lambda spec=None, **kw: pytest.fail("the model was loaded"))
    run = CliRunner().invoke(cli, ["ask", "q?", "--db", str(demo_db), "--out", str(tmp_path / "x.txt")])
    assert run.exit_code == 2 and "use a .csv, .parquet, .xlsx or .json file" in run.output


def test_cli_sql_out_writes_the_statement_result(ledger_duckdb: Path, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from groundsql.cli import cli

    out = tmp_path / "entries.parquet"
    run = CliRunner().invoke(cli, ["sql", SQL, "--db", str(ledger_duckdb), "--out", str(out)])
    assert run.exit_code == 0, run.output
    assert f"wrote 3 row(s) to {out}" in run.output
    table = pq.read_table(out)
    assert table.column_names == ["id", "booked", "amount", "memo", "posted", "ok", "rate"]
    assert [r["amount"] for r in table.to_pylist()] == [Decimal("1234.50"), Decimal("-0.05"), None]
    assert table.schema.metadata[b"groundsql.sql"] == SQL.encode()
    assert table.schema.metadata[b"groundsql.row_cap"] == b"1000"
