"""The IPython magic in a real (in-process) IPython shell: the scripted demo model for control flow, the real demo
database, conversation store and run store."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundsql.answer import Answer
from groundsql.errors import ConfigError

pytestmark = pytest.mark.integration
pytest.importorskip("IPython", reason="IPython is not installed (pip install 'groundsql[notebook]')")


@pytest.fixture()
def shell():
    from IPython.core.interactiveshell import InteractiveShell

    from groundsql.magic import session_for
    from groundsql.server.testing import demo_model

    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "groundsql")
    session = session_for(ip)
    session.__init__()  # a fresh session for each test (the shell is a process-wide singleton)
    session.models["scripted:demo"] = demo_model()
    session.model_spec = "scripted:demo"
    yield ip, session
    InteractiveShell.clear_instance()


def test_cell_and_line_magics_answer_and_follow_ups_continue_the_conversation(shell, demo_db: Path) -> None:
    ip, session = shell
    first = ip.run_cell_magic("ask", f"--db {demo_db}", "How many customers per region?\n")
    assert isinstance(first, Answer) and first.result.columns == ["region_name", "customers"]
    follow = ip.run_line_magic("ask", "and by country?")
    assert follow.question == "How many customers are there in each country?"  # rewritten from the turn before
    assert follow.result.columns[0] == "country"
    turns = session.store.get(session.conversation_id).turns
    assert [t.question for t in turns] == ["How many customers per region?", "and by country?"]
    assert all(t.run_id for t in turns)  # recorded in the run store
    conversation = session.conversation_id
    ip.run_line_magic("ask", "--new --no-record How many customers per region?")
    assert session.conversation_id != conversation
    assert session.store.get(session.conversation_id).turns[0].run_id is None


def test_the_answer_displays_as_html_in_the_shell(shell, demo_db: Path) -> None:
    ip, _ = shell
    ip.display_formatter.active_types = ["text/plain", "text/html"]  # what a Jupyter kernel's shell shows
    # no trailing "?" on a line magic typed in a cell: IPython reads it as a help request (docs/notebooks.md)
    ip.run_cell(f"%ask --db {demo_db} How many customers per region", store_history=True)
    shown, _ = ip.display_formatter.format(ip.user_ns["_"])
    assert "data-groundsql='answer'" in shown["text/html"] and "data-part='chart'" in shown["text/html"]
    assert shown["text/plain"].startswith("Q: How many customers per region\nSQL: SELECT")


def test_magic_errors_say_what_to_do(shell, demo_db: Path) -> None:
    ip, _ = shell
    with pytest.raises(ConfigError, match="no database yet: give one with --db URL"):
        ip.run_line_magic("ask", "How many customers?")
    with pytest.raises(ConfigError, match="unknown option --bogus"):
        ip.run_line_magic("ask", f"--bogus --db {demo_db} q?")
    with pytest.raises(ConfigError, match="no question"):
        ip.run_cell_magic("ask", f"--db {demo_db}", "  \n")
    with pytest.raises(ConfigError, match="--max-rows takes a positive whole number"):
        ip.run_line_magic("ask", f"--db {demo_db} --max-rows lots q?")
    answer = ip.run_line_magic("ask", f"--db {demo_db} --max-rows 2 What's the count of customers per region?")
    assert answer.result.row_count == 2 and answer.result.truncated  # an apostrophe is just text
