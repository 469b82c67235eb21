"""The library's verbs: `connect` and `ask`."""

from __future__ import annotations

from pathlib import Path

from groundsql.answer import Answer
from groundsql.catalog import Catalog
from groundsql.context import Context
from groundsql.db import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT_S, Database
from groundsql.knowledge import Knowledge, load_for
from groundsql.models import Model, load_model
from groundsql.options import Options
from groundsql.pipelines import DEFAULT_PRESET, preset_options, run


def connect(url: str, *, timeout_s: float = DEFAULT_TIMEOUT_S, max_rows: int = DEFAULT_MAX_ROWS) -> Database:
    """Open a database read-only.

    Args:
        url: a URL (sqlite:///, duckdb:///, postgresql://, mysql://) or a path to a .sqlite/.duckdb/.csv/.parquet file.
        timeout_s: statement time limit in seconds.
        max_rows: row cap per statement.

    Returns:
        A `Database` whose `execute` is guarded, read-only and limited.
    """
    return Database(url, timeout_s=timeout_s, max_rows=max_rows)


def ask(
    question: str,
    db: Database | str,
    *,
    model: Model | str | None = None,
    preset: str = DEFAULT_PRESET,
    evidence: str | None = None,
    samples: int = 1,
    options: dict | Options | None = None,
    catalog: Catalog | bool | None = None,
    models: dict[str, Model | str] | None = None,
    knowledge: str | Path | Knowledge | None = None,
) -> Answer:
    """Answer a natural-language question with SQL.

    Args:
        question: the question, in plain language.
        db: an open `Database` or a URL/path to open.
        model: a `Model`, a model spec (see `groundsql models`), or None for the embedded default.
        preset: the pipeline to run (see `groundsql.pipelines.PRESETS`).
        evidence: extra knowledge to use (definitions, formulas, business rules).
        samples: candidates to sample where the preset samples.
        options: the preset's options (e.g. ``{"refine_rounds": 3}``; `groundsql presets --options PRESET`
            lists them); an unknown key or a bad value raises `OptionsError` before anything runs.
        catalog: profiled metadata (inferred keys, value index, descriptions, statistics) for prompts and linkers:
            a `Catalog`; True or None: the one cached for this database when its structure is unchanged, else the
            database is profiled now (once; no model calls); False: none, prompts show the plain schema.
        models: a model (or spec) per role, e.g. ``{"judge": "openai:gpt-4o-mini"}``; roles not named use
            `model`.
        knowledge: a knowledge folder (rules, glossary, verified examples, documents, descriptions; see
            docs/knowledge.md) or a loaded `Knowledge`; None: the `<db file>.knowledge/` folder when there is one.

    Returns:
        The `Answer`: SQL, result, candidates, confidence and the trace of every call and query.
    """
    if not question or not question.strip():
        from groundsql.errors import ConfigError

        raise ConfigError("the question is empty")
    given = options.given() if isinstance(options, Options) else dict(options or {})
    if catalog is False:
        given.setdefault("catalog_context", False)
    validated = preset_options(preset, given)
    database = db if isinstance(db, Database) else connect(db)
    chosen = model if isinstance(model, Model) else load_model(model)
    if knowledge is not None and not isinstance(knowledge, Knowledge):
        knowledge = load_for(database, knowledge)
    roles = {role: m if isinstance(m, Model) else load_model(m) for role, m in (models or {}).items()}
    ctx = Context(question=question.strip(), db=database, models={"default": chosen, **roles}, evidence=evidence,
                  samples=samples, options=validated, catalog=catalog if isinstance(catalog, Catalog) else None,
                  knowledge=knowledge)
    return run(ctx, preset)
