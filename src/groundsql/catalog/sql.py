"""Templated profiling queries, built as sqlglot expressions and rendered for the target dialect."""

from __future__ import annotations

from sqlglot import exp

#: Alias of the (possibly sampled) row source every profiling query reads from.
SOURCE_ALIAS = "src"


def ident(name: str) -> exp.Identifier:
    return exp.to_identifier(name, quoted=True)


def col(name: str, table: str | None = None) -> exp.Column:
    return exp.column(ident(name), table=ident(table) if table else None)


def table_ref(name: str) -> exp.Table:
    return exp.table_(ident(name))


def count_rows(table: str, dialect: str) -> str:
    return exp.select(exp.Count(this=exp.Star()).as_("n")).from_(table_ref(table)).sql(dialect=dialect)


def row_source(table: str, dialect: str, row_count: int | None, sample_size: int | None) -> exp.Expression:
    """The table itself, or — when `sample_size` is set and smaller than the table — a sampled subquery.

    Sampling is pushed down to the engine: DuckDB's SYSTEM sample and PostgreSQL's TABLESAMPLE read only a
    fraction of the pages; Spark's TABLESAMPLE (n PERCENT) samples rows inside each partition on the
    executors; SQLite keeps every k-th rowid; MySQL reads the first rows.
    """
    if not sample_size or row_count is None or row_count <= sample_size:
        return table_ref(table).as_(SOURCE_ALIAS)
    percent = max(0.01, min(100.0, 100.0 * sample_size / row_count))
    inner = exp.select(exp.Star())
    if dialect in ("duckdb", "postgres"):
        method = "SYSTEM"
        sample = exp.TableSample(method=exp.var(method), percent=exp.Literal.number(round(percent, 4)),
                                 seed=exp.Literal.number(7))
        source = table_ref(table)
        source.set("sample", sample)
        inner = inner.from_(source)
    elif dialect == "spark":
        source = table_ref(table)
        source.set("sample", exp.TableSample(percent=exp.Literal.number(round(percent, 4))))
        inner = inner.from_(source)
    elif dialect == "sqlite":
        step = max(2, row_count // sample_size)
        modulo = exp.Mod(this=exp.column("rowid"), expression=exp.Literal.number(step))
        inner = inner.from_(table_ref(table)).where(exp.EQ(this=modulo, expression=exp.Literal.number(0)))
    else:
        inner = inner.from_(table_ref(table)).limit(sample_size)
    return inner.subquery(SOURCE_ALIAS)


def cast(expression: exp.Expression, to: str) -> exp.Cast:
    return exp.Cast(this=expression, to=exp.DataType.build(to))


def select_from(source: exp.Expression, *projections: exp.Expression) -> exp.Select:
    return exp.select(*projections).from_(source.copy())


def not_null(name: str) -> exp.Expression:
    return exp.Not(this=exp.Is(this=col(name), expression=exp.Null()))
