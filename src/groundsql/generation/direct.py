"""Single-prompt generation: schema text + question → SQL (the baseline's one step, and PreSQL's)."""

from __future__ import annotations

from groundsql.context import Context
from groundsql.knowledge import render_text
from groundsql.knowledge.grounding import written_dialect
from groundsql.prompts import dialect_name, evidence_block, render
from groundsql.sql.catalog_case import case_sensitive, in_catalog_case
from groundsql.sql.extract import extract_sql
from groundsql.sql.sqlite_flavour import from_sqlite

MAX_SQL_TOKENS = 400


def schema_prompt_text(ctx: Context, tables: list[str] | None = None, sample_limit: int | None = None) -> str:
    """What the model sees about the schema (or `tables`) for this question, from the one renderer
    (`knowledge.render_context`): the stable schema block, then the question's knowledge; cached per context."""
    return render_text(ctx, tables=tables, sample_limit=sample_limit)


def generate_sql(ctx: Context, schema_text: str, *, step: str = "generate", n: int = 1, temperature: float = 0.0,
                 hints: str = "", role: str = "generator") -> list[str]:
    """Ask the generator for `n` queries; returns the extracted SQL of each reply ('' where none was found)."""
    written = written_dialect(ctx)
    dialect = dialect_name(written)
    messages = [
        {"role": "system", "content": render("sql_system", dialect=dialect)},
        {"role": "user", "content": render(
            "generate_sql", dialect=dialect, schema=schema_text, evidence_block=evidence_block(ctx.evidence),
            hints_block=f"{hints}\n" if hints else "", question=ctx.question,
        )},
    ]
    completion = ctx.chat(step, messages, role=role, n=n, temperature=temperature, max_tokens=MAX_SQL_TOKENS)
    return [to_engine(ctx, extract_sql(text, written)) for text in completion.texts]


def to_engine(ctx: Context, sql: str) -> str:
    """A query the model wrote in `written_dialect(ctx)`, for the engine: SQLite-flavoured SQL is transpiled with
    SQLite's meaning kept (`sql.sqlite_flavour`); the engine's own gets only the names it would miss for their case
    in the catalog's case (`sql.catalog_case`), so a query that resolves is returned as it is."""
    if not sql:
        return sql
    if written_dialect(ctx) == ctx.db.dialect:
        if not case_sensitive(ctx.db.dialect):
            return sql
        respelled = in_catalog_case(sql, ctx.schema, ctx.db.dialect)
        if respelled != sql:
            ctx.trace.note("name_case", written=sql, engine=respelled)
        return respelled
    engine_sql = from_sqlite(sql, ctx.db.dialect, ctx.schema)
    if engine_sql != sql:
        ctx.trace.note("model_dialect", written=sql, engine=engine_sql)
    return engine_sql
