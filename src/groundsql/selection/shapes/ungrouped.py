"""A column shown beside GROUP BY that is neither grouped nor aggregated and that the grouped columns do not
determine (SQLite shows an arbitrary row's value; other engines refuse it). No rewrite."""

from __future__ import annotations

from groundsql.selection.query_view import Finding, QueryView
from groundsql.sql.repairs.grouping import undetermined_columns


def check(q: QueryView) -> list[Finding]:
    """A column beside GROUP BY that is neither grouped nor aggregated and not determined by the grouped columns
    (through a join condition or the table's primary key): each group shows an arbitrary row's value for it."""
    columns = undetermined_columns(q.tree, q.ctx.schema, q.ctx.db.dialect)
    if not columns:
        return []
    names = ", ".join(columns[:3])
    return [Finding(
        "ungrouped", f"{names} is shown beside GROUP BY without being grouped or aggregated: each group shows an "
                     "arbitrary row's value",
        f"{names} is neither in GROUP BY nor aggregated, and the grouped columns do not determine it, so each group "
        f"shows the value of an arbitrary row. Group by the column the answer is about, or aggregate {names}.")]
