"""Linking fixtures over the school database (see tests/conftest.py): an open handle and a scripted context."""

from __future__ import annotations

import pytest

from groundsql.context import Context
from groundsql.db import Database
from groundsql.models import ScriptedModel


@pytest.fixture()
def school(school_db):
    db = Database(str(school_db))
    yield db
    db.close()


def make_ctx(db: Database, question: str, replies=None, **options) -> Context:
    model = ScriptedModel(list(replies or []))
    return Context(question=question, db=db, models={"default": model}, options=dict(options))
