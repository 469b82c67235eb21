"""Connectivity repair: bridge tables and join keys so that the linked tables form one joinable set.

Uses the catalog's join graph (declared plus inferred keys) when a catalog is available, else the declared
foreign keys of the schema.
"""

from __future__ import annotations

from collections import deque

from groundsql.catalog.joins import JoinGraph, Relationship
from groundsql.catalog.schema import Schema
from groundsql.context import Context
from groundsql.linking.common import catalog_of
from groundsql.linking.subset import SchemaSubset


def join_graph(ctx: Context) -> JoinGraph:
    """The catalog's join graph, or one built from the schema's declared foreign keys."""
    catalog = catalog_of(ctx)
    graph = getattr(catalog, "join_graph", None)
    if isinstance(graph, JoinGraph):
        return graph
    cache = ctx.options.setdefault("_cache", {})
    if "declared_join_graph" not in cache:
        cache["declared_join_graph"] = declared_graph(ctx.schema)
    return cache["declared_join_graph"]


def declared_graph(schema: Schema) -> JoinGraph:
    relationships = []
    for table in schema.tables:
        for fk in table.foreign_keys:
            target = schema.table(fk.ref_table)
            if target is None:
                continue
            ref_columns = fk.ref_columns or target.primary_key
            relationships.append(Relationship(table.name, list(fk.columns), target.name, list(ref_columns),
                                              inferred=fk.inferred))
    return JoinGraph(relationships)


def connect_subset(ctx: Context, subset: SchemaSubset, graph: JoinGraph | None = None) -> SchemaSubset:
    """Add the fewest bridge tables that join the subset's tables, and the key columns of the joins used.

    Disabled with `ctx.options['link_connect'] = False`. Tables the graph cannot reach are left as they are.
    """
    if not ctx.options.get("link_connect", True) or len(subset.tables) < 2:
        return subset
    graph = graph or join_graph(ctx)
    before = list(subset.tables)
    connected = graph.connect(before)
    for name in connected:
        if not subset.has(name):
            subset.add(name, role="bridge", reason="joins linked tables (connectivity repair)")
            subset.notes.append(f"added bridge table {name}")
    for rel in _spanning_edges(graph, [name for name in subset.tables]):
        for table, columns in ((rel.table, rel.columns), (rel.ref_table, rel.ref_columns)):
            entry = subset.get(table)
            if entry is None:
                continue
            for column in columns:
                if not subset.has(entry.name, column):
                    subset.add(entry.name, column, reason=f"join key {rel.on_clause()}")
    return subset


def _spanning_edges(graph: JoinGraph, tables: list[str]) -> list[Relationship]:
    """Edges of a breadth-first spanning forest of the graph induced by `tables` (declared edges first)."""
    inside = {t.lower() for t in tables}
    seen: set[str] = set()
    edges: list[Relationship] = []
    for root in tables:
        if root.lower() in seen:
            continue
        seen.add(root.lower())
        queue = deque([root])
        while queue:
            node = queue.popleft()
            for rel in sorted(graph.edges(node), key=lambda r: (r.inferred, -r.confidence)):
                other = rel.other(node)
                if other.lower() in inside and other.lower() not in seen:
                    seen.add(other.lower())
                    edges.append(rel)
                    queue.append(other)
    return edges
