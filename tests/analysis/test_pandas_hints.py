"""Hints for the pandas errors a small model repeats: each pattern matches the message the installed pandas
really raises, and the revision request of the Python stage carries the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundsql.analysis.pandas_hints import pandas_hint
from groundsql.api import ask
from groundsql.models.scripted import ScriptedModel
from tests.analysis.test_python_stage import SALES, SHARE_CODE, batch

pd = pytest.importorskip("pandas", reason="the Python stage needs pandas (pip install 'groundsql[analysis]')")


def _message(action) -> str:
    with pytest.raises(Exception) as raised:
        action()
    return f"{type(raised.value).__name__}: {raised.value}"


def _frame():
    return pd.DataFrame({"k": ["a", "a", "b"], "x": [1, 2, 3], "y": [4, 5, 6], "d": ["2023-01-05", "05/02/2023", "x"]})


@pytest.mark.parametrize(("action", "fix"), [
    (lambda: _frame().groupby("k")["x", "y"], "[['a', 'b']]"),
    (lambda: _frame()["d"].dt.year, "pd.to_datetime(df['d'], format='mixed')"),
    (lambda: pd.to_datetime(_frame()["d"].iloc[:2]), "format='mixed'"),
    (lambda: setattr(_frame(), "columns", ["a", "b"]), "df.rename(columns="),
    (lambda: _frame()["x"] > _frame()["x"].iloc[:2], "transform('mean')"),
    (lambda: _frame()["nope"], None),
], ids=["groupby-tuple", "dt-on-text", "mixed-formats", "columns-length", "unaligned-compare", "other"])
def test_each_hint_matches_what_pandas_raises(action, fix) -> None:
    message = _message(action)
    hint = pandas_hint(message)
    assert (fix in hint) if fix else hint == "", message


def test_the_sum_of_dates_hint_matches_pandas_own_message() -> None:
    dates = pd.DataFrame({"k": ["a", "a"], "d": pd.to_datetime(["2023-01-05", "2023-02-05"])})
    message = _message(lambda: dates.groupby("k")["d"].sum())
    assert "aggregate the number column" in pandas_hint(message), message


def test_the_revision_request_says_the_fix(music_db: Path) -> None:
    old_style = ("```python\nimport pandas as pd\ndf = pd.read_csv('singer_sales.csv')\n"
                 "df.groupby('name')['name', 'total'].sum().to_csv('result.csv')\n```")
    model = ScriptedModel(["plan", batch(SALES), old_style, SHARE_CODE])
    answer = ask("What share of sales does each singer have?", str(music_db), model=model, preset="prospy")
    fix = model.calls[3]["messages"][-1]["content"]
    assert "Cannot subset columns with a tuple" in fix and "df.groupby('k')[['a', 'b']]" in fix
    assert answer.error is None and answer.result.row_count == 3


def test_python_hints_false_says_no_fix(music_db: Path) -> None:
    old_style = ("```python\nimport pandas as pd\ndf = pd.read_csv('singer_sales.csv')\n"
                 "df.groupby('name')['name', 'total'].sum().to_csv('result.csv')\n```")
    model = ScriptedModel(["plan", batch(SALES), old_style, SHARE_CODE])
    ask("What share of sales does each singer have?", str(music_db), model=model, preset="prospy",
        options={"python_hints": False})
    assert "How to fix it in pandas" not in model.calls[3]["messages"][-1]["content"]
