"""A catalog (or part of it) as prompt text under a token budget.

Two styles:
  * ``ddl``: CREATE TABLE statements with descriptions and statistics as inline comments (AgentNLQ);
  * ``compact``: one line per table, ``table(col:TYPE[v1,v2], …)`` (ReCAPAgent-SQL), with a comment line under
    it per described column.

Linked tables come first, and within a table keys and linked columns come first. When the text would exceed
the budget, detail is shed in steps — statistics, then descriptions, then unlinked non-key columns — and
finally whole tables from the end, so the result always fits.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from groundsql.catalog import types as T
from groundsql.catalog.catalog import Catalog
from groundsql.catalog.groups import TableGroup, group_tables
from groundsql.catalog.profiles import ColumnProfile, TableProfile
from groundsql.catalog.render import quote_name

STYLES = ("ddl", "compact")
#: Characters per token assumed by `estimate_tokens` (conservative for code-heavy text).
CHARS_PER_TOKEN = 3.2
MAX_LEVEL = 3

Linked = Mapping[str, Iterable[str]] | Iterable[str] | None


#: A column with more distinct values than those shown plus this many is described by its count, not a sample.
MAX_HIDDEN_VALUES = 30


def estimate_tokens(text: str) -> int:
    """A conservative token estimate that needs no tokenizer."""
    return math.ceil(len(text) / CHARS_PER_TOKEN) if text else 0


def render(
    catalog: Catalog,
    tables: Iterable[str] | None = None,
    *,
    budget_tokens: int | None = None,
    style: str = "ddl",
    linked: Linked = None,
    group: bool = True,
    count_tokens: Callable[[str], int] = estimate_tokens,
    appendix: Mapping[str, str] | None = None,
) -> str:
    """Render `catalog` for a prompt.

    Args:
        catalog: the profiled database.
        tables: only these tables (default: all).
        budget_tokens: the most tokens the text may take (None: no limit, full detail).
        style: ``ddl`` or ``compact``.
        linked: tables already linked to the question — a list of names, or {table: [columns]}; they are
            rendered first and their columns survive budget cuts.
        group: show tables that share their columns and differ by a suffix once, with the list of names.
        count_tokens: token counter (default: `estimate_tokens`).
        appendix: text shown under a table's statement at full detail only (e.g. example rows), by table name;
            the first detail shed when the budget presses.

    Returns:
        The text; `count_tokens(text) <= budget_tokens` whenever a budget is given.
    """
    if style not in STYLES:
        from groundsql.errors import ConfigError

        raise ConfigError(f"unknown schema style {style!r}; use one of {', '.join(STYLES)}")
    links = _linked_map(linked)
    chosen = _ordered_tables(catalog, tables, links)
    groups = group_tables(chosen) if group else [TableGroup(t.name, [t.name]) for t in chosen]
    for level in range(MAX_LEVEL, -1, -1):
        blocks = [_render_group(catalog, g, style, level, links, appendix) for g in groups]
        text = _join(blocks, style)
        if budget_tokens is None or count_tokens(text) <= budget_tokens:
            return text
    kept: list[str] = []
    for block in blocks:
        candidate = _join(kept + [block], style)
        if count_tokens(candidate) > budget_tokens:
            break
        kept.append(block)
    text = _join(kept, style)
    if not kept:
        text = _cut_to_budget(blocks[0] if blocks else "", budget_tokens, count_tokens)
    return text


# -- selection and ordering -------------------------------------------------------------------------


def _linked_map(linked: Linked) -> dict[str, set[str]]:
    if linked is None:
        return {}
    if hasattr(linked, "as_mapping"):  # a linking.SchemaSubset
        linked = linked.as_mapping()  # type: ignore[union-attr]
    if isinstance(linked, Mapping):
        return {str(t).lower(): {str(c).lower() for c in (cols or [])} for t, cols in linked.items()}
    return {str(t).lower(): set() for t in linked}


def _ordered_tables(catalog: Catalog, tables: Iterable[str] | None, links: dict[str, set[str]]) -> list[TableProfile]:
    wanted = None if tables is None else [t.lower() for t in tables]
    pool = [t for t in catalog.tables if wanted is None or t.name.lower() in wanted]
    if wanted is not None:
        pool.sort(key=lambda t: wanted.index(t.name.lower()))
    order = list(links)
    return sorted(pool, key=lambda t: (t.name.lower() not in links,
                                       order.index(t.name.lower()) if t.name.lower() in links else 0))


def _columns(table: TableProfile, links: dict[str, set[str]], level: int, reorder: bool) -> tuple[list[ColumnProfile], int]:
    """Columns to show at `level`, and how many were left out."""
    keyed = _key_columns(table)
    linked = links.get(table.name.lower(), set())
    columns = list(table.columns)
    if reorder:
        columns.sort(key=lambda c: (c.name.lower() not in keyed, c.name.lower() not in linked))
    if level > 0:
        return columns, 0
    kept = [c for c in columns if c.name.lower() in keyed or c.name.lower() in linked]
    if not kept:
        kept = columns[:3]
    return kept, len(columns) - len(kept)


def _key_columns(table: TableProfile) -> set[str]:
    keyed = {c.lower() for c in table.primary_key}
    for fk in table.foreign_keys:
        keyed.update(c.lower() for c in fk.columns)
    return keyed


# -- styles ------------------------------------------------------------------------------------------


def _render_group(catalog: Catalog, group: TableGroup, style: str, level: int, links: dict[str, set[str]],
                  appendix: Mapping[str, str] | None = None) -> str:
    table = catalog.table(group.representative)
    assert table is not None
    if style == "compact":
        text = _compact(catalog, table, level, links)
        if len(group.members) > 1:
            text += f"  -- same columns: {', '.join(group.members[1:])}"
        return text
    rows = appendix.get(table.name, "") if appendix and level >= MAX_LEVEL else ""
    text = _ddl(catalog, table, level, links, with_rows=bool(rows))
    if rows:
        text += "\n" + rows
    if len(group.members) > 1:
        text = f"-- {len(group.members)} tables share these columns: {', '.join(group.members)}\n" + text
    return text


def _ddl(catalog: Catalog, table: TableProfile, level: int, links: dict[str, set[str]], with_rows: bool = False) -> str:
    dialect = catalog.dialect
    columns, hidden = _columns(table, links, level, reorder=False)
    single_pk = table.primary_key[0].lower() if len(table.primary_key) == 1 else None
    keyed = _key_columns(table)
    entries: list[tuple[str, str]] = []
    for column in columns:
        code = f"  {quote_name(column.name, dialect)} {column.declared_type or 'TEXT'}"
        if single_pk == column.name.lower():
            code += " PRIMARY KEY"
        entries.append((code, _column_note(column, level, keyed=column.name.lower() in keyed, with_rows=with_rows)))
    if len(table.primary_key) > 1:
        entries.append((f"  PRIMARY KEY ({', '.join(quote_name(c, dialect) for c in table.primary_key)})", ""))
    for fk in table.foreign_keys:
        cols = ", ".join(quote_name(c, dialect) for c in fk.columns)
        refs = ", ".join(quote_name(c, dialect) for c in fk.ref_columns)
        entries.append((f"  FOREIGN KEY ({cols}) REFERENCES {quote_name(fk.ref_table, dialect)}({refs})",
                        "inferred" if fk.inferred and level >= 2 else ""))
    lines = []
    for index, (code, note) in enumerate(entries):
        separator = "," if index < len(entries) - 1 else ""
        lines.append(code + separator + (f"  -- {note}" if note else ""))
    if hidden:
        lines.append(f"  -- … {hidden} more columns")
    kind = "VIEW" if table.is_view else "TABLE"
    text = f"CREATE {kind} {quote_name(table.name, dialect)} (\n" + "\n".join(lines) + "\n);"
    header = _table_note(table, level)
    return f"-- {header}\n{text}" if header else text


def _compact(catalog: Catalog, table: TableProfile, level: int, links: dict[str, set[str]]) -> str:
    columns, hidden = _columns(table, links, level, reorder=True)
    pk = {c.lower() for c in table.primary_key}
    refs = {c.lower(): f"{fk.ref_table}.{fk.ref_columns[i] if i < len(fk.ref_columns) else '?'}"
            for fk in table.foreign_keys for i, c in enumerate(fk.columns)}
    parts = []
    for column in columns:
        text = f"{column.name}:{_short_type(column)}"
        if column.name.lower() in pk:
            text += " PK"
        if column.name.lower() in refs:
            text += f"→{refs[column.name.lower()]}"
        values = _values(column, {3: 3, 2: 2}.get(level, 0))
        if values:
            text += f"[{values}]"
        parts.append(text)
    if hidden:
        parts.append(f"…+{hidden}")
    notes = []
    if level >= 1 and table.description:
        notes.append(table.description if level >= 2 else _cut(table.description, 80))
    if level >= 2 and table.row_count is not None:
        notes.append(f"{table.row_count} rows")
    line = f"{table.name}({', '.join(parts)})" + (f" -- {'; '.join(notes)}" if notes else "")
    # descriptions follow the line, one comment per described column (shed first when the budget presses)
    described = [f"  -- {c.name}: {_compact_note(c, level)}" for c in columns if level >= 1 and _compact_note(c, level)]
    return "\n".join([line, *described])


def _compact_note(column: ColumnProfile, level: int) -> str:
    parts = []
    if column.description:
        parts.append(column.description if level >= 3 else _cut(column.description, 60))
    if level >= 3 and column.value_description:
        parts.append(_cut(column.value_description, 120))
    return "; ".join(parts)


def _table_note(table: TableProfile, level: int) -> str:
    parts = []
    if level >= 1 and table.description:
        parts.append(table.description if level >= 2 else _cut(table.description, 80))
    if level >= 2 and table.row_count is not None:
        parts.append(f"{table.row_count} rows")
    if level >= 2 and table.is_bridge:
        parts.append("links its referenced tables many-to-many")
    return "; ".join(parts)


def _column_note(column: ColumnProfile, level: int, *, keyed: bool = False, with_rows: bool = False) -> str:
    """Description, semantic type and statistics of a column; with example rows shown under the table, sample
    values are left out, and so are the types that add nothing (a key's 'identifier', 'other')."""
    if level == 0:
        return ""
    parts = []
    if column.description:
        parts.append(column.description if level >= 3 else _cut(column.description, 60))
    if level >= 2:
        if not (with_rows and (column.semantic_type == T.OTHER or (keyed and column.semantic_type == T.IDENTIFIER))):
            parts.append(column.semantic_type)
        stats = _stats(column, 5 if level >= 3 else 2, samples=not with_rows)
        if stats:
            parts.append(stats)
        if level >= 3 and column.null_ratio >= 0.05:
            parts.append(f"{column.null_ratio:.0%} null")
        if level >= 3 and column.value_description:
            parts.append(_cut(column.value_description, 120))
    return "; ".join(parts)


def _stats(column: ColumnProfile, n_values: int, samples: bool = True) -> str:
    kind = column.semantic_type
    if kind == T.TIME and column.earliest:
        fmt = ""
        if column.time_formats and column.hidden_type:  # every stored format: mixed formats need rebuilding
            fmt = " stored as " + " or ".join(f"'{f}'" for f in column.time_formats[:3])
        return f"{_day(column.earliest)} to {_day(column.latest)}{fmt}"
    if kind == T.METRIC and column.min is not None:
        return f"range {_fmt(column.min)}..{_fmt(column.max)}"
    if column.top_values:
        hidden = column.distinct_count - n_values if column.distinct_count else 0
        if hidden > MAX_HIDDEN_VALUES:  # five of sixty addresses say little; the value index finds the asked ones
            return f"{column.distinct_count} distinct values"
        more = f" (+{hidden} more)" if hidden > 0 else ""
        return "values " + ", ".join(_literal(v.value) for v in column.top_values[:n_values]) + more
    if samples and column.sample_values and kind != T.IDENTIFIER:
        return "e.g. " + ", ".join(_literal(v) for v in column.sample_values[: min(2, n_values)])
    return ""


def _day(moment: str | None) -> str:
    """An ISO timestamp without a midnight time part ('2022-01-07T00:00:00' → '2022-01-07')."""
    text = str(moment)
    return text[:-9] if text.endswith("T00:00:00") else text


def _values(column: ColumnProfile, n: int) -> str:
    if n <= 0:
        return ""
    if column.top_values:
        return ",".join(_literal(v.value) for v in column.top_values[:n])
    if column.semantic_type == T.METRIC and column.min is not None:
        return f"{_fmt(column.min)}..{_fmt(column.max)}"
    if column.semantic_type == T.TIME and column.earliest:
        return f"{column.earliest}..{column.latest}"
    if column.sample_values:
        return ",".join(_literal(v) for v in column.sample_values[:n])
    return ""


def _short_type(column: ColumnProfile) -> str:
    declared = (column.declared_type or column.physical_type or "TEXT").split("(")[0].upper()
    return declared.replace(" ", "_")


def _literal(value: Any) -> str:
    return repr(_cut(value, 40)) if isinstance(value, str) else _fmt(value)


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return _cut(str(value), 40)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _join(blocks: list[str], style: str) -> str:
    return ("\n" if style == "compact" else "\n\n").join(blocks)


def _cut_to_budget(text: str, budget: int, count: Callable[[str], int]) -> str:
    if budget <= 0:
        return ""
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if count(text[:middle]) <= budget:
            low = middle
        else:
            high = middle - 1
    return text[:low]
