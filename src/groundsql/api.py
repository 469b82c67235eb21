"""The library's verbs: `connect` and `ask`."""

from __future__ import annotations

from pathlib import Path

from groundsql.answer import Answer
from groundsql.catalog import Catalog
from groundsql.context import AnswerListener, Context
from groundsql.db import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT_S, Database
from groundsql.errors import ConfigError
from groundsql.inputs import check_evidence, check_question, check_samples
from groundsql.knowledge import Knowledge, load_for
from groundsql.models import Model, load_model
from groundsql.options import Options
from groundsql.pipelines import DEFAULT_PRESET, preset_options, run
from groundsql.trace import Trace


def connect(url: str, *, timeout_s: float = DEFAULT_TIMEOUT_S, max_rows: int = DEFAULT_MAX_ROWS,
            allow_system_catalogs: bool = False) -> Database:
    """Open a database read-only.

    Args:
        url: a URL (sqlite:///, duckdb:///, postgresql://, mysql://) or a path to a .sqlite/.duckdb/.csv/.parquet file.
        timeout_s: statement time limit in seconds.
        max_rows: row cap per statement.
        allow_system_catalogs: let statements read system catalogs and other databases (off by default).

    Returns:
        A `Database` whose `execute` is guarded, read-only and limited.
    """
    return Database(url, timeout_s=timeout_s, max_rows=max_rows, allow_system_catalogs=allow_system_catalogs)


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
    trace: Trace | None = None,
    knowledge: str | Path | Knowledge | None = None,
    on_provisional: AnswerListener | None = None,
) -> Answer:
    """Answer a natural-language question with SQL.

    Args:
        question: the question, in plain language (at most `groundsql.inputs.MAX_QUESTION_CHARS` characters).
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
        trace: the `Trace` to record the run on (a caller may watch it fill, or have recorded earlier steps).
        knowledge: a knowledge folder (rules, glossary, verified examples, documents, descriptions; see
            docs/knowledge.md) or a loaded `Knowledge`; None: the `<db file>.knowledge/` folder when there is one.
        on_provisional: called with {stage, sql, columns, rows, row_count, error} as soon as the preset has an
            answer that later steps may still replace (`auto`: its first candidate).

    Returns:
        The `Answer`: SQL, result, candidates, confidence and the trace of every call and query.
    """
    question = check_question(question)
    evidence = check_evidence(evidence)
    samples = check_samples(samples)
    given = options.given() if isinstance(options, Options) else dict(options or {})
    if catalog is False:
        given.setdefault("catalog_context", False)
    validated = preset_options(preset, given)
    chosen = model if isinstance(model, Model) else load_model(model)  # a bad model spec fails before any I/O
    database = db if isinstance(db, Database) else connect(db)
    if knowledge is not None and not isinstance(knowledge, Knowledge):
        knowledge = load_for(database, knowledge)
    roles = {role: m if isinstance(m, Model) else load_model(m) for role, m in (models or {}).items()}
    ctx = Context(question=question, db=database, models={"default": chosen, **roles}, evidence=evidence,
                  samples=samples, options=validated, catalog=catalog if isinstance(catalog, Catalog) else None,
                  knowledge=knowledge, trace=trace if trace is not None else Trace(), on_provisional=on_provisional)
    if not (ctx.catalog.table_names if ctx.catalog is not None else ctx.schema.tables):
        raise ConfigError(f"{database.display} has no tables: there is nothing to ask about")
    answer = run(ctx, preset)
    answer.dialect = database.dialect
    return answer
