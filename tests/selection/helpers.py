"""What the shape-check tests share: one query run and checked as a preset would."""

from __future__ import annotations

from pathlib import Path

from groundsql.context import Context
from groundsql.db import Database
from groundsql.generation.refinement import execute_candidate
from groundsql.models import ScriptedModel
from groundsql.selection.shape import shape_findings


def checked(path: Path, catalog, question: str, sql: str, check: str):
    """The context, the executed candidate and its findings of `check` for one question and query."""
    ctx = Context(question=question, db=Database(str(path)), models={"default": ScriptedModel([])}, catalog=catalog)
    candidate = execute_candidate(ctx, sql, source="test")
    assert candidate.ok, candidate.error
    return ctx, candidate, [f for f in shape_findings(ctx, candidate) if f.check == check]
