"""Rule 2, spelling: a table or column name that is a stored name up to case, quoting, spaces, underscores or a
plural."""

from __future__ import annotations

from sqlglot import exp

from groundsql.catalog.schema import Table
from groundsql.sql.repairs.base import RepairFacts, RuleOutcome, set_qualifier
from groundsql.sql.resolve import resolve


def respell_tables(tree: exp.Expression, facts: RepairFacts) -> RuleOutcome:
    """A table name the schema lacks that matches exactly one table after case, quotes, spaces, underscores or
    a plural → the stored name (keeping the old name as its alias, so qualifiers still resolve)."""
    outcome = RuleOutcome()
    ctes = {c.alias.lower() for c in tree.find_all(exp.CTE)}
    for node in list(tree.find_all(exp.Table)):
        if not node.name or node.args.get("db") or node.name.lower() in ctes or facts.schema.table(node.name):
            continue
        matches = [t for t in facts.schema.tables if name_key(t.name) == name_key(node.name)]
        if len(matches) != 1:
            if len(matches) > 1:
                outcome.hints.append(f"{node.name} is not a table; did you mean {', '.join(t.name for t in matches)}?")
            continue
        old = node.name
        node.set("this", exp.to_identifier(matches[0].name))
        if not node.alias and any(c.table.lower() == old.lower() for c in tree.find_all(exp.Column)):
            node.set("alias", exp.TableAlias(this=exp.to_identifier(old)))
        outcome.changes.append(f"table {old} → {matches[0].name}")
    return outcome


def respell_columns(tree: exp.Expression, facts: RepairFacts) -> RuleOutcome:
    """A column its table(s) lack that matches exactly one of their columns after case, quotes, spaces,
    underscores or a plural → the stored name; never when another table of the scope has the exact name."""
    outcome = RuleOutcome()
    resolution = resolve(tree, facts.schema, facts.dialect)
    if resolution is None:
        return outcome
    for use in resolution.columns:
        if use.status == "missing" and use.source is not None and use.source.table is not None:
            if any(s.table.column(use.name) for s in use.scope.tables() if s is not use.source):
                continue  # rule 1's case
            found = [(use.source, c) for c in spellings(use.source.table, use.name)]
        elif use.status == "unknown":
            found = [(s, c) for s in use.scope.tables() for c in spellings(s.table, use.name)]
        else:
            continue
        if len(found) == 1:
            source, stored = found[0]
            old = use.node.sql(dialect=facts.dialect)
            use.node.set("this", exp.to_identifier(stored))
            if not use.node.table and len(use.scope.sources) > 1:
                set_qualifier(use.node, source.alias)
            outcome.changes.append(f"{old} → {use.node.sql(dialect=facts.dialect)}")
        elif len(found) > 1:
            names = ", ".join(f"{s.table.name}.{c}" for s, c in found)
            outcome.hints.append(f"{use.name} does not exist; close names: {names}.")
    return outcome


def name_key(name: str) -> str:
    """A name with case, quoting, spaces, underscores and a plural ending removed."""
    key = "".join(ch for ch in name.casefold() if ch.isalnum())
    if key.endswith("ies") and len(key) > 4:
        return key[:-3] + "y"
    if key.endswith("s") and not key.endswith("ss") and len(key) > 3:
        return key[:-1]
    return key


def spellings(table: Table, name: str) -> list[str]:
    key = name_key(name)
    return [c.name for c in table.columns if c.name.lower() != name.lower() and name_key(c.name) == key]
