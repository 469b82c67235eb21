"""Keys and relationships (AgentNLQ metadata step): declared keys, inferred primary and foreign keys,
cardinality, bridge tables, and the join graph built from them.

A foreign key is inferred from three signals, cheapest first: the column name points at a table and its key
(`CountryCode` → `country.Code`, `home_team_id` → `team.id`), the physical types are compatible, and the
distinct values of the column (a bounded sample) are included in the referenced key's values.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from groundsql.catalog import sql as q
from groundsql.catalog import types as T
from groundsql.catalog.joins import MANY_TO_ONE, ONE_TO_ONE, JoinGraph, Relationship
from groundsql.catalog.profiles import ColumnProfile, TableProfile
from groundsql.catalog.schema import ForeignKey
from groundsql.db import Database
from groundsql.errors import DatabaseError

log = logging.getLogger("groundsql")

GENERIC_KEYS = frozenset({"id", "code", "key", "no", "num", "number", "name", "uuid", "guid", "pk"})


@dataclass(frozen=True)
class KeyOptions:
    """Thresholds of key inference."""

    min_name_score: float = 0.7
    min_inclusion: float = 0.9  # share of sampled distinct values found in the referenced key
    probe_values: int = 1000  # distinct values of a candidate column tested for inclusion
    use_declared: bool = True  # False: ignore declared foreign keys (the inference benchmark)


def build_join_graph(db: Database, tables: list[TableProfile], options: KeyOptions | None = None) -> JoinGraph:
    """Infer missing primary keys and foreign keys, mark bridges, and return the join graph.

    The table profiles are updated in place: inferred keys are added with `inferred=True`, and columns that
    take part in a key become identifiers.
    """
    options = options or KeyOptions()
    if not options.use_declared:
        for table in tables:
            table.foreign_keys = [fk for fk in table.foreign_keys if fk.inferred]
    for table in tables:
        if not table.primary_key and not table.is_view:
            _infer_primary_key(table)
    _normalise_declared(tables)
    relationships = [_relationship(table, fk, tables) for table in tables for fk in table.foreign_keys]
    relationships += _infer_foreign_keys(db, tables, options)
    for rel in relationships:
        if rel.inferred:
            owner = _find(tables, rel.table)
            if owner is not None:
                owner.foreign_keys.append(ForeignKey(list(rel.columns), rel.ref_table, list(rel.ref_columns), True))
    bridges = [t.name for t in tables if _mark_bridge(t)]
    _mark_identifiers(tables)
    return JoinGraph(relationships=relationships, bridges=bridges)


# -- primary keys ------------------------------------------------------------------------------------


def _infer_primary_key(table: TableProfile) -> None:
    """A column with every value present and distinct, preferring identifier-like names and early columns."""
    if not table.row_count or table.sampled:
        return
    best: tuple[float, int, ColumnProfile] | None = None
    for position, column in enumerate(table.columns):
        if column.physical_type not in (T.INTEGER, T.STRING) or column.null_count:
            continue
        if column.distinct_count != table.row_count:
            continue
        score = (2.0 if T.has_id_token(column.name) else 0.0) + (1.0 if position == 0 else 0.0)
        if table.row_count == 1 and score == 0:
            continue
        if best is None or (score, -position) > (best[0], -best[1]):
            best = (score, position, column)
    if best is not None and (best[0] > 0 or table.row_count >= 2):
        table.primary_key = [best[2].name]
        table.primary_key_inferred = True
        best[2].primary_key = True


# -- foreign keys ------------------------------------------------------------------------------------


def _normalise_declared(tables: list[TableProfile]) -> None:
    """Declared keys that omit the referenced columns point at the referenced table's primary key."""
    for table in tables:
        for fk in table.foreign_keys:
            if not fk.ref_columns:
                ref = _find(tables, fk.ref_table)
                if ref is not None and len(ref.primary_key) == len(fk.columns):
                    fk.ref_columns = list(ref.primary_key)


def _relationship(table: TableProfile, fk: ForeignKey, tables: list[TableProfile]) -> Relationship:
    ref = _find(tables, fk.ref_table)
    return Relationship(table.name, list(fk.columns), ref.name if ref else fk.ref_table, list(fk.ref_columns),
                        _cardinality(table, fk.columns), inferred=fk.inferred, confidence=1.0)


def _infer_foreign_keys(db: Database, tables: list[TableProfile], options: KeyOptions) -> list[Relationship]:
    declared = {(t.name.lower(), tuple(c.lower() for c in fk.columns)) for t in tables for fk in t.foreign_keys}
    targets = _key_targets(tables)
    found: list[Relationship] = []
    for table in tables:
        if table.is_view:
            continue  # a view's keys are its base tables' keys
        for column in table.columns:
            if (table.name.lower(), (column.name.lower(),)) in declared:
                continue
            if column.physical_type not in (T.INTEGER, T.STRING, T.FLOAT) or column.semantic_type == T.TIME:
                continue
            candidates = []
            for ref_table, ref_column in targets:
                if ref_table is table and ref_column is column:
                    continue
                score = name_score(column.name, table.name, ref_table.name, ref_column.name)
                if ref_table is table:
                    score *= 0.8  # self references need a clearly pointing name
                if score < options.min_name_score or not _compatible(column, ref_column):
                    continue
                if column.primary_key and len(table.primary_key) == 1 and not _owns_name(ref_table, column):
                    continue  # a table's own key refers elsewhere only when the name names that table
                candidates.append((score, ref_table, ref_column))
            best = _choose(db, table, column, candidates, options)
            if best is None and not candidates and _role_key(table, column):
                best = _choose_by_values(db, table, column, targets, options)
            if best is not None:
                found.append(best)
    return _drop_mirrors(found)


def _role_key(table: TableProfile, column: ColumnProfile) -> bool:
    """An id-named column that is not its table's own key: `winner_id`, `home_team_id`, `ReportsTo_id`."""
    own = len(table.primary_key) == 1 and table.primary_key[0].lower() == column.name.lower()
    return not own and T.name_tokens(column.name)[-1:] == ["id"] and (column.distinct_count or 0) >= 5


def _choose_by_values(db: Database, table: TableProfile, column: ColumnProfile,
                      targets: list[tuple[TableProfile, ColumnProfile]], options: KeyOptions) -> Relationship | None:
    """A role-named key (`loser_id` → `players.player_id`) found by its values alone.

    Accepted only when exactly one key in the database contains all sampled values: small integer ranges
    such as 1..5 fit many keys and are rejected as ambiguous.
    """
    fitting = []
    for ref_table, ref_column in targets:
        if ref_table is table or not _compatible(column, ref_column) or not _within(column, ref_column):
            continue
        if not T.has_id_token(ref_column.name):
            continue
        inclusion = _inclusion(db, table, column, ref_table, ref_column, options)
        if inclusion is not None and inclusion >= 0.999:
            fitting.append((ref_table, ref_column))
            if len(fitting) > 1:
                return None
    if len(fitting) != 1:
        return None
    ref_table, ref_column = fitting[0]
    return Relationship(table.name, [column.name], ref_table.name, [ref_column.name],
                        _cardinality(table, [column.name]), inferred=True, confidence=0.6)


def _within(column: ColumnProfile, ref: ColumnProfile) -> bool:
    """The column's MIN..MAX lies inside the referenced key's MIN..MAX (cheap pre-filter from the profiles)."""
    try:
        return column.min is not None and ref.min is not None and ref.min <= column.min and column.max <= ref.max
    except TypeError:
        return True


def name_score(column: str, table: str, ref_table: str, ref_column: str) -> float:
    """How strongly the name `table.column` points at `ref_table.ref_column` (0–1)."""
    c, k = _norm(column), _norm(ref_column)
    stems = _stems(ref_table)
    generic = k in GENERIC_KEYS
    if any(c == s + k or c == s for s in stems):
        return 0.95
    if c == k and not generic:
        return 0.9
    if any(c.endswith(s + k) for s in stems):
        return 0.9
    if not generic and len(k) >= 4 and c.endswith(k):
        return 0.8
    key_like = T.has_id_token(ref_column) or generic
    if key_like and any(len(s) >= 4 and (c.endswith(s) or c.startswith(s)) and T.has_id_token(column) for s in stems):
        return 0.75
    if key_like and any(len(s) >= 4 and c.endswith(s) for s in stems):
        return 0.7
    if not generic and len(k) >= 3 and c.startswith(k) and T.has_id_token(column):
        return 0.7
    return 0.0


def _choose(db: Database, table: TableProfile, column: ColumnProfile,
            candidates: list[tuple[float, TableProfile, ColumnProfile]], options: KeyOptions) -> Relationship | None:
    """Test candidates best name first; keep the first whose values are included in the referenced key."""
    candidates.sort(key=lambda c: (-c[0], not c[2].primary_key, c[1].name))
    for score, ref_table, ref_column in candidates[:4]:
        inclusion = _inclusion(db, table, column, ref_table, ref_column, options)
        if inclusion is None:
            continue
        if inclusion < options.min_inclusion:
            continue
        if column.distinct_count == 0 and score < 0.9:
            continue  # an empty column: only trust strong names
        return Relationship(table.name, [column.name], ref_table.name, [ref_column.name],
                            _cardinality(table, [column.name]), inferred=True, confidence=round(score * inclusion, 3))
    return None


def _inclusion(db: Database, table: TableProfile, column: ColumnProfile, ref_table: TableProfile,
               ref_column: ColumnProfile, options: KeyOptions) -> float | None:
    """Share of the column's sampled distinct values present in the referenced column (1.0 when empty)."""
    value: exp.Expression = exp.column("v")
    ref: exp.Expression = q.col(ref_column.name)
    if column.physical_type == T.STRING and ref_column.physical_type == T.STRING:
        # Stored codes often carry stray spaces (Spider's flight_2); compare them trimmed.
        value, ref = exp.Trim(this=value), exp.Trim(this=ref)
    elif column.physical_type != ref_column.physical_type:
        # Mixed storage (numbers in a text column): compare as text so strict engines accept it.
        value, ref = q.cast(value, "text"), q.cast(ref, "text")
    distinct = (exp.select(q.col(column.name).as_("v")).distinct().from_(q.table_ref(table.name))
                .where(q.not_null(column.name)).limit(options.probe_values))
    lookup = exp.select(ref).from_(q.table_ref(ref_table.name))
    hit = exp.case().when(exp.In(this=value.copy(), query=lookup.subquery()), exp.Literal.number(1)).else_(
        exp.Literal.number(0))
    query = exp.select(exp.Count(this=exp.Star()).as_("n"), exp.Sum(this=hit).as_("hits")).from_(
        distinct.subquery("s"))
    try:
        row = db.execute(query.sql(dialect=db.dialect), max_rows=1).rows[0]
    except DatabaseError as exc:
        log.debug("inclusion %s.%s → %s.%s failed: %s", table.name, column.name, ref_table.name,
                  ref_column.name, exc)
        return None
    total, hits = int(row[0] or 0), int(row[1] or 0)
    return 1.0 if total == 0 else hits / total


def _key_targets(tables: list[TableProfile]) -> list[tuple[TableProfile, ColumnProfile]]:
    """Columns a foreign key may point at: single-column primary keys and unique, complete id-like columns."""
    targets = []
    for table in tables:
        if table.is_view:
            continue
        for column in table.columns:
            single_pk = len(table.primary_key) == 1 and table.primary_key[0].lower() == column.name.lower()
            unique = (not table.sampled and table.row_count and column.distinct_count == table.row_count
                      and not column.null_count and T.has_id_token(column.name))
            if single_pk or unique:
                targets.append((table, column))
    return targets


def _drop_mirrors(found: list[Relationship]) -> list[Relationship]:
    """When a.x → b.y and b.y → a.x were both inferred (equal key sets), keep the better-named direction."""
    kept: list[Relationship] = []
    for rel in sorted(found, key=lambda r: -r.confidence):
        mirror = any(k.table == rel.ref_table and k.ref_table == rel.table and k.columns == rel.ref_columns
                     and k.ref_columns == rel.columns for k in kept)
        if not mirror:
            kept.append(rel)
    return kept


def _owns_name(ref_table: TableProfile, column: ColumnProfile) -> bool:
    c = _norm(column.name)
    return any(c.startswith(s) for s in _stems(ref_table.name) if len(s) >= 3)


def _compatible(a: ColumnProfile, b: ColumnProfile) -> bool:
    numeric = (T.INTEGER, T.FLOAT)
    if a.physical_type in numeric and b.physical_type in numeric:
        return a.physical_type == b.physical_type or T.INTEGER in (a.physical_type, b.physical_type)
    if a.physical_type == T.STRING and b.physical_type == T.STRING:
        return True
    # SQLite stores numbers in text columns and vice versa; let the value test decide.
    return {a.physical_type, b.physical_type} <= {T.STRING, T.INTEGER}


def _cardinality(table: TableProfile, columns: list[str]) -> str:
    if len(columns) == 1:
        column = table.column(columns[0])
        if column is not None and not table.sampled and table.row_count and \
                column.distinct_count == table.row_count - column.null_count and column.distinct_count:
            return ONE_TO_ONE
    return MANY_TO_ONE


def _mark_bridge(table: TableProfile) -> bool:
    """Two or more foreign keys to different tables whose columns make up the table's key or most columns."""
    referenced = {fk.ref_table.lower() for fk in table.foreign_keys}
    if len(referenced) < 2:
        return False
    fk_columns = {c.lower() for fk in table.foreign_keys for c in fk.columns}
    pk = {c.lower() for c in table.primary_key}
    others = [c for c in table.columns if c.name.lower() not in fk_columns and c.name.lower() not in pk]
    table.is_bridge = (bool(pk) and pk <= fk_columns) or len(others) <= 2
    return table.is_bridge


def _mark_identifiers(tables: list[TableProfile]) -> None:
    for table in tables:
        keyed = {c.lower() for fk in table.foreign_keys for c in fk.columns}
        if len(table.primary_key) == 1:
            keyed.add(table.primary_key[0].lower())
        for column in table.columns:
            if column.name.lower() in keyed and column.semantic_type in (T.METRIC, T.DIMENSION, T.OTHER):
                column.semantic_type = T.IDENTIFIER
                column.top_values = []
                column.avg = column.stddev = None


def _norm(name: str) -> str:
    return "".join(T.name_tokens(name))


def _stems(table: str) -> set[str]:
    base = _norm(table)
    stems = {base, _singular(base)}
    tokens = T.name_tokens(table)
    if len(tokens) > 1:
        stems.add(_singular(tokens[-1]))
        stems.add(tokens[-1])
    return {s for s in stems if s}


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def _find(tables: list[TableProfile], name: str) -> TableProfile | None:
    lowered = name.lower()
    return next((t for t in tables if t.name.lower() == lowered), None)


def relationship_keys(relationships: list[Any]) -> set[tuple[str, tuple[str, ...], str, tuple[str, ...]]]:
    """Case-folded (table, columns, ref_table, ref_columns) tuples, for comparing key sets."""
    keys = set()
    for rel in relationships:
        table = getattr(rel, "table", "")
        keys.add((table.lower(), tuple(c.lower() for c in rel.columns), rel.ref_table.lower(),
                  tuple(c.lower() for c in rel.ref_columns)))
    return keys
