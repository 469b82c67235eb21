"""What a model-written statement may read and call, per dialect: data tables, one module per dialect.

Adding a dialect is adding a module here that builds a `DialectPolicy` and registers it (see `sqlite.py`).
"""

from __future__ import annotations

from groundsql.db.policy.base import _POLICIES, DialectPolicy, register
from groundsql.db.policy.common import COMMON_FUNCTION_CLASSES, names


def policy_for(dialect: str) -> DialectPolicy:
    """The policy of a sqlglot dialect; an unknown dialect gets the strict common policy."""
    if not _POLICIES:
        from groundsql.db.policy import duckdb, mysql, postgres, spark, sqlite  # noqa: F401  (register themselves)
    return _POLICIES.get(dialect) or DialectPolicy(dialect=dialect, functions=frozenset())


__all__ = ["DialectPolicy", "policy_for", "register", "names", "COMMON_FUNCTION_CLASSES"]
