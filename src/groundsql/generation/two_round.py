"""Two-round prompting (PET-SQL, SSEV §3.1.1): PreSQL on the full schema, link from it, PostSQL on the rest.

PreSQL sees the whole schema with sample rows, an instruction to keep the query cheap, and similar examples.
The tables and columns its queries touch (read with sqlglot) become the linked schema; PostSQL is the same
prompt over that pruned schema.
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from groundsql.catalog.schema import Schema
from groundsql.context import Context
from groundsql.generation.direct import MAX_SQL_TOKENS, evidence_block
from groundsql.generation.extract import extract_sql
from groundsql.generation.fewshot import example_pool, render_examples
from groundsql.linking.subset import SchemaSubset
from groundsql.prompts import dialect_name, render

FULL_INTRO = "Here is the schema of a $dialect database, with a few example rows for each table:"
PRUNED_INTRO = "Here are the tables and columns of a $dialect database that matter for the question, with example rows:"
DEFAULT_SHOTS = 3
MISPLACED_LIMIT = 2


def fewshot_block(ctx: Context) -> str:
    """Similar examples from the configured pool (never from `ctx.options['db_id']`), as prompt text."""
    pool = example_pool(ctx.options)
    k = int(ctx.options.get("fewshot", DEFAULT_SHOTS))
    if pool is None or k <= 0:
        return ""
    examples = pool.similar(ctx.question, k, exclude_db=ctx.options.get("db_id"))
    ctx.trace.note("fewshot", questions=[e.question for e in examples])
    return render_examples(examples)


def two_round_sql(ctx: Context, schema_text: str, *, step: str, pruned: bool, role: str = "generator",
                  n: int = 1, temperature: float = 0.0) -> list[str]:
    """One PreSQL (`pruned=False`) or PostSQL (`pruned=True`) call returning `n` extracted queries."""
    dialect = dialect_name(ctx.db.dialect)
    intro = (PRUNED_INTRO if pruned else FULL_INTRO).replace("$dialect", dialect)
    messages = [
        {"role": "system", "content": render("sql_system", dialect=dialect)},
        {"role": "user", "content": render(
            "two_round_sql", examples_block=fewshot_block(ctx), schema_intro=intro, schema=schema_text,
            evidence_block=evidence_block(ctx), question=ctx.question, dialect=dialect)},
    ]
    completion = ctx.chat(step, messages, role=role, n=n, temperature=temperature, max_tokens=MAX_SQL_TOKENS)
    return [extract_sql(text, ctx.db.dialect) for text in completion.texts]


def subset_from_sql(schema: Schema, sqls: list[str], dialect: str) -> SchemaSubset:
    """The union of the schema's tables and columns that the queries reference (SSEV PreSQL linking).

    Aliases are resolved, unqualified columns are given to every referenced table that has them, `*` keeps
    a table whole, and names that are not in the schema are dropped. Unparseable queries contribute nothing.
    """
    subset = SchemaSubset(linker="presql-sql")
    for sql in sqls:
        if not sql:
            continue
        try:
            tree = sqlglot.parse_one(sql, read=dialect)
        except (SqlglotError, ValueError):
            continue
        if tree is None:
            continue
        _link_tree(schema, tree, subset)
    return subset


def _link_tree(schema: Schema, tree: exp.Expression, subset: SchemaSubset) -> None:
    aliases: dict[str, str] = {}
    tables = []
    for node in tree.find_all(exp.Table):
        table = schema.table(node.name)
        if table is None:
            continue
        tables.append(table)
        aliases[(node.alias_or_name or node.name).lower()] = table.name
        aliases[table.name.lower()] = table.name
        subset.add(table.name, reason="referenced by the first-round query")
    whole: set[str] = set()
    for star in tree.find_all(exp.Star):
        parent = star.parent
        if isinstance(parent, exp.Column) and parent.table:
            owner = aliases.get(parent.table.lower())
            if owner:
                whole.add(owner)
        elif isinstance(parent, exp.Select):
            whole.update(t.name for t in tables)
    outputs = {a.alias.lower() for a in tree.find_all(exp.Alias) if a.alias}
    for column in tree.find_all(exp.Column):
        name = column.name
        if not name or name == "*":
            continue
        owners = [aliases[column.table.lower()]] if column.table and column.table.lower() in aliases else \
            [t.name for t in tables if t.column(name) is not None]
        found_any = False
        for owner in owners:
            found = schema.table(owner).column(name)
            if found is not None:
                subset.add(owner, found.name, reason="referenced by the first-round query")
                found_any = True
        if not found_any and name.lower() not in outputs:
            # The query put the column on the wrong table (a frequent PreSQL error): keep the tables that
            # really have it, so PostSQL can join them.
            for table in [t for t in schema.tables if t.column(name) is not None][:MISPLACED_LIMIT]:
                subset.add(table.name, table.column(name).name, reason="column misplaced by the first-round query")
    for name in whole:
        table = schema.table(name)
        for col in table.columns:
            subset.add(table.name, col.name, reason="selected with *")
