"""result.csv written as the code computed it: a group key pandas holds in the index is kept, several header levels
become one, row numbers stay out; other files and explicit headers are left alone. In the real sandbox and through
the `prospy` preset on a real SQLite file."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundsql.analysis import answer_frame
from groundsql.analysis.sandbox import run_python
from groundsql.api import ask
from groundsql.models.scripted import ScriptedModel
from tests.analysis.test_python_stage import SALES, batch

pd = pytest.importorskip("pandas", reason="the Python stage needs pandas (pip install 'groundsql[analysis]')")

SALES_FRAME = "import pandas as pd\ndf = pd.DataFrame({'k': ['a', 'a', 'b'], 'x': [1.0, 3.0, 5.0]})\n"


def _written(code: str, keep: bool = True, name: str = "result.csv") -> tuple[str, str]:
    run = run_python(SALES_FRAME + code, {}, outputs=(name,), prelude=answer_frame.prelude() if keep else "")
    assert run.ok, run.error
    return run.files[name].decode(), run.stdout


def test_a_group_key_in_the_index_is_written_as_a_column() -> None:
    code = "pd.DataFrame({'median': df.groupby('k')['x'].median()}).to_csv('result.csv', index=False)\n"
    text, stdout = _written(code)
    assert text.splitlines() == ["k,median", "a,2.0", "b,5.0"]
    assert "wrote the index (k) as columns" in stdout
    assert _written(code, keep=False)[0].splitlines() == ["median", "2.0", "5.0"]


def test_a_series_keeps_its_key_too() -> None:
    text, _ = _written("df.groupby('k')['x'].sum().to_csv('result.csv', index=False)\n")
    assert text.splitlines() == ["k,x", "a,4.0", "b,5.0"]


def test_several_header_levels_become_one() -> None:
    code = "df.groupby('k').agg({'x': ['sum']}).reset_index().to_csv('result.csv', index=False)\n"
    text, stdout = _written(code)
    assert text.splitlines() == ["k,x_sum", "a,4.0", "b,5.0"]
    assert "flattened" in stdout
    assert _written(code, keep=False)[0].splitlines()[:2] == ["k,x", ",sum"]  # the second header read as a row


def test_row_numbers_stay_out_and_a_key_already_shown_is_not_repeated() -> None:
    assert _written("df.to_csv('result.csv')\n")[0].splitlines()[0] == "k,x"
    shown = "s = df.groupby('k')['x'].sum()\npd.DataFrame({'K': s.index, 'X': s}).to_csv('result.csv', index=False)\n"
    assert _written(shown)[0].splitlines() == ["K,X", "a,4.0", "b,5.0"]


def test_other_files_and_explicit_headers_are_left_alone() -> None:
    grouped = "df.groupby('k')['x'].sum().to_frame()"
    assert _written(f"{grouped}.to_csv('other.csv', index=False)\n", name="other.csv")[0].splitlines()[0] == "x"
    text, _ = _written(f"{grouped}.to_csv('result.csv', index=False, header=['total'])\n")
    assert text.splitlines() == ["total", "4.0", "5.0"]


def test_the_prospy_answer_keeps_the_key_and_says_so(music_db: Path) -> None:
    lost_key = ("```python\nimport pandas as pd\ndf = pd.read_csv('singer_sales.csv')\n"
                "pd.DataFrame({'total': df.groupby('name')['total'].sum()}).to_csv('result.csv', index=False)\n```")
    answer = ask("What are the total sales of each singer?", str(music_db), model=ScriptedModel(
        ["plan", batch(SALES), lost_key]), preset="prospy", options={"python": "always"})
    assert answer.error is None and answer.result.columns == ["name", "total"]
    assert sorted(answer.result.rows) == [("Bo", 7.25), ("Cy", 1.0), ("Joe", 13.5)]
    assert any("wrote the index (name) as columns" in note for note in answer.notes)
    off = ask("What are the total sales of each singer?", str(music_db), model=ScriptedModel(
        ["plan", batch(SALES), lost_key]), preset="prospy", options={"python": "always", "python_keys": False})
    assert off.result.columns == ["total"]
