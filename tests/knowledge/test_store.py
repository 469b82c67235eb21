"""Growing a knowledge folder: add-example, add-rule, and `learn` from a run, deduplicated and verified."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundsql.api import ask
from groundsql.db import Database
from groundsql.errors import KnowledgeError
from groundsql.knowledge import load_knowledge
from groundsql.knowledge.store import add_example, add_rule, learn
from groundsql.models import ScriptedModel
from groundsql.runs import RunStore

pytestmark = pytest.mark.integration


def test_add_example_checks_appends_and_deduplicates(music_db: Path, tmp_path: Path) -> None:
    db, folder = Database(str(music_db)), tmp_path / "k"
    first = add_example(folder, "How many singers?", "SELECT count(*)\nFROM singer;", db)
    assert first.added and first.path == folder / "examples.yaml"
    again = add_example(folder, "how many singers", "SELECT COUNT(*) FROM singer", db)
    assert not again.added and "examples.yaml:2 already answers" in again.reason
    add_example(folder, "Names of French singers", "SELECT name FROM singer WHERE country = 'France'", db)
    loaded = load_knowledge(folder, db)
    assert [e.sql for e in loaded.examples] == ["SELECT count(*)\nFROM singer",
                                                "SELECT name FROM singer WHERE country = 'France'"]
    with pytest.raises(KnowledgeError, match="refused"):
        add_example(folder, "Drop it", "DROP TABLE singer", db)
    with pytest.raises(KnowledgeError, match="no longer runs"):
        add_example(folder, "Bad", "SELECT nope FROM singer", db)


def test_appending_keeps_comments_and_the_top_level_list_form(music_db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "k"
    folder.mkdir()
    (folder / "rules.yaml").write_text("# kept by hand\n- Sales are in thousands.\n")
    assert add_rule(folder, "A veteran is  older than 45", tables=["singer"]).added
    assert not add_rule(folder, "a veteran is older than 45").added
    text = (folder / "rules.yaml").read_text()
    assert text.startswith("# kept by hand\n") and "tables:\n  - singer" in text
    assert [r.text for r in load_knowledge(folder).rules] == ["Sales are in thousands.", "A veteran is older than 45"]


def test_learn_round_trip_from_a_run_to_an_example_in_the_next_prompt(music_db: Path) -> None:
    answer = ask("How many songs are there?", str(music_db), model=ScriptedModel(["SELECT count(*) FROM song"]),
                 preset="baseline")
    store = RunStore()
    run_id = store.record(answer, Database(str(music_db)).display)
    outcome = learn(run_id, store=store)
    assert outcome.added and outcome.path == music_db.with_name("music.sqlite.knowledge") / "examples.yaml"
    assert not learn(run_id, store=store).added  # deduplicated
    corrected = ask("Which song sold most?", str(music_db), model=ScriptedModel(["SELECT title FROM song"]),
                    preset="baseline")
    wrong_id = store.record(corrected, Database(str(music_db)).display)
    learn(wrong_id, store=store, sql="SELECT title FROM song ORDER BY sales DESC LIMIT 1")
    examples = load_knowledge(outcome.path.parent, Database(str(music_db))).examples
    assert [(e.question, e.sql) for e in examples] == [
        ("How many songs are there?", "SELECT count(*) FROM song"),
        ("Which song sold most?", "SELECT title FROM song ORDER BY sales DESC LIMIT 1")]
    model = ScriptedModel(["SELECT title FROM song ORDER BY sales DESC LIMIT 1"])
    ask("Which song sold the most copies?", str(music_db), model=model, preset="baseline")
    assert "SQL: SELECT title FROM song ORDER BY sales DESC LIMIT 1" in model.calls[0]["messages"][-1]["content"]
    with pytest.raises(KnowledgeError, match="no run #999"):
        learn(999, store=store)


def test_knowledge_cli_show_add_and_learn(music_db: Path) -> None:
    from click.testing import CliRunner

    from groundsql.cli import cli

    def run(*args: str, stdin: str | None = None):
        return CliRunner().invoke(cli, list(args), input=stdin)

    empty = run("knowledge", "show", "--db", str(music_db))
    assert empty.exit_code == 0 and "no knowledge folder" in empty.output
    added = run("knowledge", "add-rule", "A veteran singer is older than 45", "--db", str(music_db),
                "--table", "singer")
    assert added.exit_code == 0 and "added the rule" in added.output
    example = run("knowledge", "add-example", "How many singers?", "--sql", "SELECT count(*) FROM singer",
                  "--db", str(music_db))
    assert example.exit_code == 0, example.stderr
    bad = run("knowledge", "add-example", "Oops", "--sql", "DELETE FROM singer", "--db", str(music_db))
    assert bad.exit_code == 2 and bad.stderr.startswith("error: ") and "refused" in bad.stderr
    shown = run("knowledge", "show", "--db", str(music_db), "--question", "How many veteran singers?")
    assert "1 rules" in shown.output and "[example] examples.yaml:2" in shown.output
    assert "Rules and definitions" in shown.output and "older than 45" in shown.output.split("knowledge block")[1]
    answer = ask("Total sales?", str(music_db), model=ScriptedModel(["SELECT sum(sales) FROM song"]), preset="baseline")
    run_id = RunStore().record(answer, Database(str(music_db)).display)
    declined = run("knowledge", "learn", str(run_id), stdin="n\n")
    assert "not learned" in declined.output
    learned = run("knowledge", "learn", str(run_id), "--yes")
    assert learned.exit_code == 0 and "added the example" in learned.output
