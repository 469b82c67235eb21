"""Results as DataFrames and Arrow tables: real SQLite and DuckDB files, the engine's column types kept."""

from __future__ import annotations

import datetime as dt
import sqlite3
from decimal import Decimal
from pathlib import Path

import pytest

from groundsql.answer import Answer
from groundsql.db import Database
from groundsql.db.frames import column_kinds
from groundsql.errors import ConfigError
from groundsql.trace import Trace

pytestmark = pytest.mark.integration
pd = pytest.importorskip("pandas", reason="pandas is not installed (pip install 'groundsql[dataframes]')")
pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install 'groundsql[dataframes]')")
pl = pytest.importorskip("polars", reason="polars is not installed (pip install 'groundsql[dataframes]')")


@pytest.fixture()
def ledger_sqlite(tmp_path: Path) -> Path:
    """A SQLite file whose dates are ISO text in columns declared DATE and TIMESTAMP."""
    path = tmp_path / "ledger.sqlite"
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE entries (id INTEGER PRIMARY KEY, booked DATE, memo TEXT, at TIMESTAMP, amount REAL);
        INSERT INTO entries VALUES (1, '2024-01-31', 'rent', '2024-01-31 09:30:00', 1234.5),
                                   (2, '2024-02-29', 'fee', '2024-02-29 23:59:59', -0.05),
                                   (3, NULL, NULL, NULL, NULL);
    """)
    con.commit()
    con.close()
    return path


def test_duckdb_types_reach_pandas_polars_and_arrow(ledger_duckdb: Path) -> None:
    result = Database(str(ledger_duckdb)).execute("SELECT * FROM entries ORDER BY id")
    assert result.types == ["BIGINT", "DATE", "DECIMAL(12,2)", "VARCHAR", "TIMESTAMP", "BOOLEAN", "DOUBLE"]
    table = result.to_arrow()
    assert table.schema.types == [pa.int64(), pa.date32(), pa.decimal128(12, 2), pa.string(), pa.timestamp("us"),
                                  pa.bool_(), pa.float64()]
    assert table.to_pylist()[0] == {"id": 1, "booked": dt.date(2024, 1, 31), "amount": Decimal("1234.50"),
                                    "memo": "rent", "posted": dt.datetime(2024, 1, 31, 9, 30), "ok": True, "rate": 0.25}
    assert table.to_pylist()[2] == dict.fromkeys(result.columns) | {"id": 3}

    frame = result.to_pandas()
    assert [str(t) for t in frame.dtypes] == ["Int64", "datetime64[s]", "object", "string", "datetime64[us]",
                                             "boolean", "Float64"]
    assert frame["amount"].tolist()[:2] == [Decimal("1234.50"), Decimal("-0.05")]  # exact, not floats
    assert frame["booked"].iloc[1] == pd.Timestamp("2024-02-29")
    assert frame.iloc[2].drop("id").isna().all()  # NULLs stay missing, in every column

    polars = result.to_polars()
    assert polars.schema == {"id": pl.Int64, "booked": pl.Date, "amount": pl.Decimal(12, 2), "memo": pl.String,
                             "posted": pl.Datetime("us"), "ok": pl.Boolean, "rate": pl.Float64}
    assert polars.row(0)[:3] == (1, dt.date(2024, 1, 31), Decimal("1234.50"))
    assert polars.null_count().row(0) == (0, 1, 1, 1, 1, 1, 1)


def test_sqlite_declared_dates_become_dates_and_expressions_keep_their_values(ledger_sqlite: Path) -> None:
    db = Database(str(ledger_sqlite))
    result = db.execute("SELECT e.id, e.booked AS day, max(at) AS last_at, memo || '!' AS loud, amount "
                        "FROM entries AS e GROUP BY e.id ORDER BY e.id")
    assert result.types == ["INTEGER", "DATE", "TIMESTAMP", None, "REAL"]
    assert [k.kind for k in column_kinds(result)] == ["int", "date", "datetime", "string", "float"]
    table = result.to_arrow()
    assert table.column("day").to_pylist() == [dt.date(2024, 1, 31), dt.date(2024, 2, 29), None]
    assert table.column("last_at").type == pa.timestamp("us")
    frame = result.to_pandas()
    assert frame["day"].dtype.kind == "M" and frame["loud"].tolist()[:2] == ["rent!", "fee!"]
    assert pd.isna(frame["loud"].iloc[2]) and pd.isna(frame["amount"].iloc[2])


def test_a_declared_date_with_other_text_stays_text(tmp_path: Path) -> None:
    """A column declared DATE holding 'DD/MM/YYYY' text (the demo shop's mixed formats) is not guessed at."""
    path = tmp_path / "mixed.sqlite"
    con = sqlite3.connect(path)
    con.executescript("CREATE TABLE t (d DATE); INSERT INTO t VALUES ('2024-01-31'), ('31/01/2024');")
    con.commit()
    con.close()
    result = Database(str(path)).execute("SELECT d FROM t")
    assert result.to_arrow().column("d").type == pa.string()
    assert result.to_pandas()["d"].tolist() == ["2024-01-31", "31/01/2024"]


def test_repeated_column_names(ledger_duckdb: Path) -> None:
    result = Database(str(ledger_duckdb)).execute("SELECT id, id FROM entries ORDER BY id")
    assert list(result.to_pandas().columns) == ["id", "id"]
    assert result.to_arrow().column_names == ["id", "id"]
    assert result.to_polars().columns == ["id", "id_2"]


def test_answer_delegates_and_says_when_there_is_no_table(ledger_duckdb: Path) -> None:
    result = Database(str(ledger_duckdb)).execute("SELECT memo FROM entries ORDER BY id")
    answer = Answer(question="memos?", sql=result.sql, result=result, preset="baseline", model="m", trace=Trace())
    assert answer.to_pandas()["memo"].tolist()[:2] == ["rent", "fee"]
    assert answer.to_arrow().num_rows == 3 and answer.to_polars().height == 3
    failed = Answer(question="q", sql="SELECT nope", result=None, preset="baseline", model="m", trace=Trace(),
                    error="no such column: nope")
    with pytest.raises(ConfigError, match="no result table .*no such column"):
        failed.to_pandas()


def test_a_missing_library_names_the_extra(ledger_duckdb: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    result = Database(str(ledger_duckdb)).execute("SELECT 1 AS one")
    monkeypatch.setitem(sys.modules, "polars", None)  # import polars now raises ImportError
    with pytest.raises(ConfigError, match=r"to_polars\(\) needs polars: pip install 'groundsql\[dataframes\]'"):
        result.to_polars()


SERVER_TABLE = ("CREATE TABLE entries (id BIGINT, booked DATE, amount NUMERIC(12, 2), memo VARCHAR(20), "
                "posted TIMESTAMP NULL, ok BOOLEAN, rate DOUBLE PRECISION)")
SERVER_ROWS = ("INSERT INTO entries VALUES (1, '2024-01-31', 1234.50, 'rent', '2024-01-31 09:30:00', true, 0.25), "
               "(2, NULL, NULL, NULL, NULL, NULL, NULL)")


@pytest.mark.parametrize("server", ["postgres_database", "mysql_database"])
def test_server_engines_report_their_types(server: str, request: pytest.FixtureRequest) -> None:
    """PostgreSQL's type OIDs and MySQL/MariaDB's field codes become the same names, hence the same columns."""
    import sqlalchemy as sa

    url = request.getfixturevalue(server)
    engine = sa.create_engine(url if server == "postgres_database" else url.replace("mysql://", "mysql+pymysql://"))
    with engine.begin() as conn:
        conn.execute(sa.text(SERVER_TABLE))
        conn.execute(sa.text(SERVER_ROWS))
    engine.dispose()
    result = Database(url).execute("SELECT * FROM entries ORDER BY id")
    table = result.to_arrow()
    assert str(table.schema.field("booked").type) == "date32[day]"
    amount = table.schema.field("amount").type
    assert amount.scale == 2 and amount.precision in (12, 13)  # MySQL's width counts the sign: 13 holds them all
    assert str(table.schema.field("posted").type) == "timestamp[us]"
    assert str(table.schema.field("id").type) == "int64" and str(table.schema.field("rate").type) == "double"
    assert table.to_pylist()[0]["amount"] == Decimal("1234.50")
    assert table.to_pylist()[0]["ok"] in (True, 1)  # MySQL's BOOLEAN is TINYINT(1)
    assert table.to_pylist()[1] == dict.fromkeys(result.columns) | {"id": 2}
