"""The Python example in docs/catalog.md runs, and says what it claims."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration
DOC = Path(__file__).resolve().parents[2] / "docs" / "catalog.md"


def test_python_example_in_docs(spider_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setenv("GROUNDSQL_CACHE_DIR", str(tmp_path))
    block = re.search(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S).group(1)
    code = block.replace('"world_1.sqlite"', repr(str(spider_dir / "database" / "world_1" / "world_1.sqlite")))
    lines = code.strip().splitlines()
    namespace: dict = {}
    for line in lines:
        statement, _, comment = line.partition("  #")
        statement = statement.strip()
        if not statement:
            continue
        if comment.strip().startswith(("'", "[")) and not statement.startswith(("import", "from", "print")):
            assert eval(statement, namespace) == eval(comment.strip(), {}), line
        else:
            exec(statement, namespace)
    assert "city(" in capsys.readouterr().out
