"""The question names a stored value, the query filters on a literal the question never says. No rewrite."""

from __future__ import annotations

from sqlglot import exp

from groundsql.selection.query_view import Finding, QueryView


def check(q: QueryView) -> list[Finding]:
    """Literals checked against the data: the question names a stored value but the query filters on a literal
    the question never says (a made-up code, a guessed spelling) that is not that value's code either; or a
    literal the question says is compared with a column that never stores it while another column does."""
    catalog = q.ctx.catalog
    if catalog is None or catalog.value_index is None:
        return []
    return _invented_literal(q) or _value_in_other_column(q)


def _string_filters(q: QueryView) -> list[tuple[exp.Column, str]]:
    pairs = []
    for node in q.tree.find_all(exp.EQ):
        column, literal = node.left, node.right
        if isinstance(literal, exp.Column) and isinstance(column, exp.Literal):
            column, literal = literal, column
        if isinstance(column, exp.Column) and isinstance(literal, exp.Literal) and literal.is_string \
                and literal.this.strip():
            pairs.append((column, literal.this))
    return pairs


def _invented_literal(q: QueryView) -> list[Finding]:
    text = q.ctx.question.lower()
    literals = [lit for lit in q.tree.find_all(exp.Literal) if lit.is_string and lit.this.strip()]
    invented = [lit.this for lit in literals if lit.this.strip().lower() not in text]
    if not invented:
        return []
    said = {lit.this.strip().lower() for lit in literals}
    named = [m for m in q.ctx.catalog.value_index.lookup_question(q.ctx.question, limit=10, min_score=100.0)
             if m.exact and len(m.value.strip()) >= 3 and not m.value.strip().isdigit()
             and m.value.strip().lower() not in said and m.value.strip().lower() in text]
    for match in named:
        table = q.ctx.schema.table(match.table)
        if table is None:
            continue
        unexplained = [lit for lit in invented if not _row_holds(q, table, match.column, match.value, lit)]
        if len(unexplained) < len(invented):
            return []  # the made-up literal is the named row's code: the query found its way from the value
        return [Finding(
            "question_value",
            f"the query compares with '{unexplained[0]}', which the question never says, while the question's "
            f"'{match.value.strip()}' is a stored value of {match.table}.{match.column}",
            f"The question names '{match.value.strip()}', stored in {match.table}.{match.column}; filter on that "
            f"value instead of '{unexplained[0]}', which the question does not mention.")]
    return []


def _row_holds(q: QueryView, table, column: str, value: str, literal: str) -> bool:
    """Whether a row of `table` with `column = value` stores `literal` in one of its columns (a probe)."""
    others = [exp.EQ(this=exp.column(c.name, quoted=True), expression=exp.Literal.string(literal))
              for c in table.columns if c.name != column]
    if not others:
        return False
    probe = exp.select(exp.Count(this=exp.Star())).from_(exp.to_table(table.name, quoted=True)).where(
        exp.and_(exp.EQ(this=exp.column(column, quoted=True), expression=exp.Literal.string(value)),
                 exp.or_(*others)))
    rows = q.probe(probe, "question_value")
    return bool(rows and rows[0][0])


def _value_in_other_column(q: QueryView) -> list[Finding]:
    text = q.ctx.question.lower()
    for column, literal in _string_filters(q):
        table = q.table_of(column)
        if table is None or literal.strip().lower() not in text:
            continue
        probe = exp.select(exp.Count(this=exp.Star())).from_(exp.to_table(table.name, quoted=True)).where(
            exp.EQ(this=exp.column(column.name, quoted=True), expression=exp.Literal.string(literal)))
        rows = q.probe(probe, "question_value")
        if not rows or rows[0][0]:
            continue
        exact = [m for m in q.ctx.catalog.value_index.lookup(literal, limit=5, min_score=100.0) if m.exact]
        if any(m.table.lower() == table.name.lower() and m.column.lower() == column.name.lower() for m in exact):
            continue  # stored there up to case or spacing: the `literal` sanity check says so
        holders = exact
        if not holders:
            continue
        where = f"{holders[0].table}.{holders[0].column}"
        return [Finding(
            "question_value",
            f"'{literal}' is compared with {table.name}.{column.name}, which never stores it; {where} does",
            f"No row of {table.name} has {column.name} = '{literal}'; the value is stored in {where}. Filter on "
            f"{where} (joining {holders[0].table} if needed).")]
    return []
