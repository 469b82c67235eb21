"""`DialectPolicy` and the registry the dialect modules add themselves to."""

from __future__ import annotations

from dataclasses import dataclass, field

from groundsql.db.policy.common import COMMON_FUNCTION_CLASSES


@dataclass(frozen=True)
class DialectPolicy:
    """The reviewed allow-lists and system names of one sqlglot dialect."""

    dialect: str
    #: Function names sqlglot parses as `Anonymous` that analytics needs on this engine (lower case).
    functions: frozenset[str]
    #: Set-returning functions (row sources in FROM; PostgreSQL also allows them in the select list).
    table_functions: frozenset[str] = frozenset()
    #: sqlglot function classes refused on this engine even though `COMMON_FUNCTION_CLASSES` lists them.
    refused_classes: frozenset[str] = frozenset()
    #: Schemas (or MySQL databases) that hold the engine's own catalogs and settings (lower case).
    system_schemas: frozenset[str] = frozenset()
    #: Unqualified relation or function names with these prefixes belong to the engine (lower case).
    system_prefixes: tuple[str, ...] = ()
    #: Catalog functions and table functions allowed only when the connection opts in to system catalogs.
    catalog_functions: frozenset[str] = frozenset()
    #: Schemas the connected database's own relations may be qualified with besides the introspected ones.
    default_schemas: frozenset[str] = field(default_factory=frozenset)
    #: Names that read no relation (MySQL's DUAL).
    pseudo_tables: frozenset[str] = frozenset()
    #: MySQL family: user and system variables, `/*! … */` executable comments and optimizer hints exist.
    mysql_family: bool = False

    @property
    def function_classes(self) -> frozenset[str]:
        return COMMON_FUNCTION_CLASSES - self.refused_classes

    def allows_function(self, name: str, *, system_catalogs: bool) -> bool:
        name = name.lower()
        if system_catalogs and name in self.catalog_functions:
            return True
        return name in self.functions or name in self.table_functions


_POLICIES: dict[str, DialectPolicy] = {}


def register(policy: DialectPolicy) -> DialectPolicy:
    """Make `policy` the one used for its dialect."""
    _POLICIES[policy.dialect] = policy
    return policy
