"""Rule 1, name case: a table, column or qualifier the engine misses only for its case (PostgreSQL folds unquoted
names, MariaDB compares table names and aliases exactly) → the catalog's spelling, quoted where needed."""

from __future__ import annotations

from sqlglot import exp

from groundsql.sql.catalog_case import to_catalog_case
from groundsql.sql.repairs.base import RepairFacts, RuleOutcome


def catalog_case_names(tree: exp.Expression, facts: RepairFacts) -> RuleOutcome:
    return RuleOutcome(changes=to_catalog_case(tree, facts.schema, facts.dialect))
