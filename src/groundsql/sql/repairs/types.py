"""Rule 9, text against numbers: a comparison SQLite settles by type affinity, written out for a strict engine.

SQLite compares a text column with a number by reading the number as text, a number column with a string by
reading the string as a number when it is one, and never finds a number equal to other text. PostgreSQL and
DuckDB refuse such comparisons ("operator does not exist: text = integer", "invalid input syntax for type
bigint"), which is common after a load that kept a column's text type. Each rewrite states SQLite's reading:
`text_col = 5` → `text_col = '5'`; `int_col = '5'` → `int_col = 5`; `int_col = 'Bob'` → `CAST(int_col AS TEXT) =
'Bob'` (no row, as in SQLite); `text_col = int_col` → `text_col = CAST(int_col AS TEXT)` (exact when the text
holds numbers as SQLite writes them).
"""

from __future__ import annotations

from sqlglot import exp

from groundsql.catalog.schema import Schema
from groundsql.sql.repairs.base import RepairFacts, RuleOutcome, matches_error, type_kind
from groundsql.sql.resolve import ColumnUse, resolve

#: How engines word a comparison of mismatched types (lower case).
TYPE_ERROR_MARKERS = ("operator does not exist", "invalid input syntax for type", "could not convert string",
                      "cannot compare values of type", "cast_invalid_input", "datatype_mismatch",
                      "no operator matches", "conversion error")

_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)
_EQUALITIES = (exp.EQ, exp.NEQ)


def is_type_error(error: str | None) -> bool:
    return matches_error(error, TYPE_ERROR_MARKERS)


def compare_as_sqlite(tree: exp.Expression, facts: RepairFacts) -> RuleOutcome:
    """Rewrite each comparison of a text and a number the way SQLite's affinity reads it; only on a type error."""
    if facts.dialect == "sqlite" or not is_type_error(facts.error):  # SQLite is the reading stated here
        return RuleOutcome()
    return RuleOutcome(changes=sqlite_comparisons(tree, facts.schema, facts.dialect))


def sqlite_comparisons(tree: exp.Expression, schema: Schema, dialect: str) -> list[str]:
    """Each comparison of a text and a number (by the declared types of `schema`) rewritten in place as SQLite's
    affinity reads it; returns the changes in words (also `sql.sqlite_flavour`'s step, before any refusal)."""
    changes: list[str] = []
    resolution = resolve(tree, schema, dialect)
    if resolution is None:
        return changes
    kinds = {id(u.node): _kind(u) for u in resolution.columns}
    for node in list(tree.find_all(*_COMPARISONS, exp.In)):
        if isinstance(node, exp.In):
            column = node.this
            kind = kinds.get(id(column)) if isinstance(column, exp.Column) else None
            if kind is not None and not node.args.get("query"):
                change = _in_list(node, column, kind, dialect)
                if change:
                    changes.append(change)
            continue
        left, right = node.this, node.expression
        left_kind = kinds.get(id(left)) if isinstance(left, exp.Column) else None
        right_kind = kinds.get(id(right)) if isinstance(right, exp.Column) else None
        if left_kind and right_kind and left_kind != right_kind:
            number = left if left_kind == "number" else right
            number.replace(exp.cast(number.copy(), "text"))
            changes.append(f"{node.sql(dialect=dialect)} (the number column compared as text)")
        elif left_kind and right_kind is None:
            change = _literal_side(left, right, left_kind, type(node), dialect)
            if change:
                changes.append(change)
        elif right_kind and left_kind is None:
            change = _literal_side(right, left, right_kind, type(node), dialect)
            if change:
                changes.append(change)
    return changes


def _literal_side(column: exp.Column, literal: exp.Expression, kind: str, comparison: type,
                  dialect: str) -> str | None:
    """Rewrite `literal` (or `column`) for a column of `kind`; returns the change in words, or None."""
    if not isinstance(literal, exp.Literal):
        return None
    before = f"{column.sql(dialect=dialect)} vs {literal.sql(dialect=dialect)}"
    if kind == "text" and not literal.is_string:
        literal.replace(exp.Literal.string(_sqlite_text(literal.this)))
        return f"{before}: the number as text"
    if kind == "number" and literal.is_string:
        number = _number(literal.this)
        if number is not None:
            literal.replace(exp.Literal.number(number))
            return f"{before}: the string as a number"
        if comparison in _EQUALITIES:  # SQLite: a number never equals other text
            column.replace(exp.cast(column.copy(), "text"))
            return f"{before}: the column as text (no number equals it)"
    return None


def _in_list(node: exp.In, column: exp.Column, kind: str, dialect: str) -> str | None:
    """`col IN (…)`: each literal as SQLite reads it; a string that is no number leaves a number column's list
    (it matches nothing there), and a list of nothing else compares the column as text."""
    before = node.sql(dialect=dialect)
    kept: list[exp.Expression] = []
    for literal in node.expressions:
        if isinstance(literal, exp.Literal) and kind == "text" and not literal.is_string:
            kept.append(exp.Literal.string(_sqlite_text(literal.this)))
        elif isinstance(literal, exp.Literal) and kind == "number" and literal.is_string:
            number = _number(literal.this)
            if number is not None:
                kept.append(exp.Literal.number(number))
        else:
            kept.append(literal)
    if not kept:
        column.replace(exp.cast(column.copy(), "text"))
    elif all(a is b for a, b in zip(kept, node.expressions, strict=False)) and len(kept) == len(node.expressions):
        return None
    else:
        node.set("expressions", kept)
    return f"{before} → {node.sql(dialect=dialect)}"


def _kind(use: ColumnUse) -> str | None:
    if use.status != "ok" or use.source is None or use.source.table is None:
        return None
    for column in use.source.table.columns:
        if column.name.lower() == use.name.lower():
            return type_kind(column.type)
    return None


def _number(text: str) -> str | None:
    """The number SQLite reads from a string (surrounding spaces allowed), in canonical form; None if none."""
    stripped = text.strip()
    try:
        return str(int(stripped))
    except ValueError:
        pass
    try:
        value = float(stripped)
    except ValueError:
        return None
    return repr(value) if value == value and abs(value) != float("inf") else None


def _sqlite_text(number: str) -> str:
    """How SQLite writes a numeric literal as text (`5` → '5', `5.50` → '5.5')."""
    try:
        return str(int(number))
    except ValueError:
        return repr(float(number))
