"""The demo shop as a user's suite: its database, its knowledge folder with the 20 knowledge questions of
`benchmarks/knowledge_use/questions.json` as verified examples, and a model double that answers from a gold map."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path

from groundsql.demo import generate_demo_database
from groundsql.knowledge.store import write_demo_knowledge
from groundsql.models import ScriptedModel

REPO = Path(__file__).resolve().parents[2]
QUESTIONS = REPO / "benchmarks" / "knowledge_use" / "questions.json"


def knowledge_questions() -> list[dict[str, str]]:
    """The 20 demo-shop questions that need a rule or a glossary entry, with their hand-checked SQLite gold."""
    return json.loads(QUESTIONS.read_text(encoding="utf-8"))


def demo_shop(root: Path, *, examples: Iterable[tuple[str, str]] | None = None) -> Path:
    """`groundsql demo-db` into `root` (seed 7) with its knowledge folder; `examples` (question, SQL) replace the
    shipped verified examples when given. Returns the database file."""
    db = root / "demo.sqlite"
    generate_demo_database(db, seed=7)
    folder = write_demo_knowledge(db)
    if examples is not None:
        lines = ["examples:"]
        for question, sql in examples:
            lines += [f"  - question: {json.dumps(question)}", f"    sql: {json.dumps(sql)}"]
        (folder / "examples.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return db


def asked(messages: list[dict[str, str]]) -> str:
    """The question a generation prompt asks (its last "Question:" line; examples come before it)."""
    found = re.findall(r"Question: (.*)", messages[-1]["content"])
    return found[-1].strip() if found else ""


def oracle(gold: dict[str, str], wrong: Iterable[str] = (), name: str = "oracle") -> ScriptedModel:
    """A model double replying with each question's gold SQL, or a wrong query for the questions in `wrong`."""
    bad = set(wrong)

    def reply(messages: list[dict[str, str]]) -> str:
        question = asked(messages)
        sql = "SELECT 0 AS wrong" if question in bad or question not in gold else gold[question]
        return f"```sql\n{sql}\n```"

    return ScriptedModel(default=reply, name=name)
