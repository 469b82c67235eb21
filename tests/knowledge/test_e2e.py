"""End to end with the real 0.5B model: a question only the glossary can answer, on the demo shop."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundsql.api import ask
from groundsql.knowledge.store import write_demo_knowledge
from groundsql.trace import ModelCall

pytestmark = [pytest.mark.e2e, pytest.mark.slow]  # one cold prompt of about 1,700 tokens


def test_the_glossary_reaches_the_small_model_and_it_answers(tmp_path: Path, local_model) -> None:
    from groundsql.demo import generate_demo_database

    db = tmp_path / "demo.sqlite"
    generate_demo_database(db, seed=7)
    write_demo_knowledge(db)
    answer = ask("How many customers have churned?", str(db), model=local_model, preset="baseline")
    prompt = "\n".join(m["content"] for e in answer.trace.events if isinstance(e, ModelCall) for m in e.messages)
    assert "'churned customers', 'lost customers', 'closed accounts' means customers.status = 'C'" in prompt
    assert answer.result is not None and answer.result.rows == [(58,)], answer.sql
