"""Prompt templates, one file per step, filled with `$name` placeholders (string.Template)."""

from __future__ import annotations

from functools import cache
from importlib import resources
from string import Template


@cache
def template(name: str) -> Template:
    text = resources.files(__package__).joinpath(f"{name}.txt").read_text(encoding="utf-8")
    return Template(text)


def render(name: str, **values: object) -> str:
    """Fill template `name` (prompts/NAME.txt). Every placeholder must be given."""
    return template(name).substitute({k: "" if v is None else str(v) for k, v in values.items()}).strip()


def evidence_block(evidence: str | None) -> str:
    """A question's evidence as one prompt line ('' when there is none); every stage's prompts use it."""
    return f"Additional knowledge: {evidence.strip()}\n" if evidence and evidence.strip() else ""


DIALECT_NAMES = {"sqlite": "SQLite", "duckdb": "DuckDB", "postgres": "PostgreSQL", "mysql": "MySQL", "spark": "Spark SQL"}


def dialect_name(dialect: str) -> str:
    return DIALECT_NAMES.get(dialect, dialect)
