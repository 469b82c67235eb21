"""The example notebook, executed by a real Jupyter kernel (nbclient) against the demo database with the real
embedded model: it shows the SQL, the table and the chart, and its DataFrame has the engine's types."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from tests.conftest import REPO, TEST_MODEL

NOTEBOOK = REPO / "docs" / "examples" / "notebook.ipynb"
#: What executing the notebook needs beyond the embedded model, and the extra that brings it.
NEEDS = {"nbclient": "notebook", "ipykernel": "notebook", "pandas": "dataframes", "openpyxl": "dataframes",
         "vl_convert": "server"}
MISSING = [f"{module} is not installed (pip install 'groundsql[{extra}]')" for module, extra in NEEDS.items()
           if importlib.util.find_spec(module) is None]


def _runner():
    spec = importlib.util.spec_from_file_location("run_example_notebook", REPO / "scripts" / "run_example_notebook.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _joined(value) -> str:
    return "".join(value) if isinstance(value, list) else value  # a notebook file stores text as lines


def _html(cell) -> str:
    return "".join(_joined(o.get("data", {}).get("text/html", "")) for o in cell.get("outputs", []))


def _text(cell) -> str:
    parts = [_joined(o.get("data", {}).get("text/plain", "")) for o in cell.get("outputs", [])]
    return "".join(parts + [_joined(o.get("text", "")) for o in cell.get("outputs", [])])


def _check_answer(html: str) -> None:
    for part in ("question", "sql", "table", "row-count", "chart", "meta"):
        assert f"data-part='{part}'" in html, f"the answer's display has no {part}"
    assert "<svg" in html and "sql-keyword" in html


@pytest.mark.e2e
@pytest.mark.skipif(bool(MISSING), reason="; ".join(MISSING))
def test_the_example_notebook_runs_top_to_bottom_with_the_embedded_model(local_model, tmp_path: Path) -> None:
    assert TEST_MODEL == "local:qwen2.5-coder-0.5b"  # the model the notebook names
    notebook = _runner().execute(NOTEBOOK, tmp_path)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    errors = [o for c in code for o in c.outputs if o.output_type == "error"]
    assert errors == [], errors
    answer_cell = next(c for c in code if c.source.startswith("answer = groundsql.ask"))
    _check_answer(_html(answer_cell))
    dtypes = _text(next(c for c in code if c.source.startswith("df = answer.to_pandas()")))
    assert "Int64" in dtypes  # the count column: an engine integer, nullable
    magic_cell = next(c for c in code if c.source.startswith("%%ask"))
    _check_answer(_html(magic_cell))
    assert (tmp_path / "customers_by_region.xlsx").is_file() and (tmp_path / "shop.sqlite").is_file()
    assert not (NOTEBOOK.parent / "shop.sqlite").exists()


@pytest.mark.unit
def test_the_committed_notebook_carries_its_outputs() -> None:
    """What a reader sees on the page without running it: every code cell run once, in order, with the SQL,
    table and chart of both answers (refresh with scripts/run_example_notebook.py)."""
    notebook = json.loads(NOTEBOOK.read_text())
    code = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    assert [c["execution_count"] for c in code] == list(range(1, len(code) + 1))
    answers = [c for c in code if "".join(c["source"]).startswith(("answer = groundsql.ask", "%%ask"))]
    assert len(answers) == 2
    for cell in answers:
        _check_answer(_html(cell))
    assert not any(o.get("output_type") == "error" for c in code for o in c.get("outputs", []))
