"""Connectivity repair: bridge tables and join keys so that the linked tables form one joinable set.

Uses the catalog's join graph (declared plus inferred keys) when a catalog is available, else the declared
foreign keys of the schema. Paths are searched breadth-first over the graph's edge index (fast on ~1,000-table
schemas) and bounded to `link_max_hops` joins (default 3), since a bridge chain longer than that more likely
links unrelated parts of a large schema than answers the question.
"""

from __future__ import annotations

from collections import deque

from groundsql.catalog.joins import JoinGraph, Relationship
from groundsql.catalog.schema import Schema
from groundsql.context import Context
from groundsql.linking.common import catalog_of
from groundsql.linking.options import LinkOptions
from groundsql.linking.subset import SchemaSubset

Adjacency = dict[str, list[tuple[str, Relationship]]]  # lower-cased table → (neighbour, edge)


def join_graph(ctx: Context) -> JoinGraph:
    """The catalog's join graph, or one built from the schema's declared foreign keys."""
    graph = getattr(catalog_of(ctx), "join_graph", None)
    if isinstance(graph, JoinGraph):
        return graph
    if ctx.cache.declared_join_graph is None:
        ctx.cache.declared_join_graph = declared_graph(ctx.schema)
    return ctx.cache.declared_join_graph


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


def adjacency(graph: JoinGraph) -> Adjacency:
    """Neighbours of every table that has edges, declared edges before inferred ones (the graph's own index)."""
    tables = {t.lower(): t for rel in graph.relationships for t in (rel.table, rel.ref_table)}
    return {key: graph.adjacent(name) for key, name in tables.items()}


def connect_subset(ctx: Context, subset: SchemaSubset, graph: JoinGraph | None = None) -> SchemaSubset:
    """Add the fewest bridge tables that join the subset's tables, and the key columns of the joins used.

    Disabled with the option `link_connect=false`. Tables the graph cannot reach within `link_max_hops` joins
    are left as they are.
    """
    options = ctx.settings(LinkOptions)
    if not options.link_connect or len(subset.tables) < 2:
        return subset
    index = adjacency(graph or join_graph(ctx))
    max_hops = options.link_max_hops
    names = {name.lower(): name for name in subset.tables}
    for rel in connecting_edges(index, list(subset.tables), max_hops):
        for table, columns in ((rel.table, rel.columns), (rel.ref_table, rel.ref_columns)):
            if table.lower() not in names:
                subset.add(table, role="bridge", reason="joins linked tables (connectivity repair)")
                subset.notes.append(f"added bridge table {table}")
                names[table.lower()] = table
            for column in columns:
                if not subset.has(names[table.lower()], column):
                    subset.add(names[table.lower()], column, reason=f"join key {rel.on_clause()}")
    return subset


def connecting_edges(index: Adjacency, tables: list[str], max_hops: int) -> list[Relationship]:
    """Edges joining `tables` into as few groups as possible (greedy Steiner tree by nearest table first).

    Grows a connected group breadth-first from its tables to the nearest table still to connect (at most
    `max_hops` joins away) and adds the path; a table that no path reaches starts a new group.
    """
    pending = [t.lower() for t in tables]
    edges: list[Relationship] = []
    while pending:
        group = {pending.pop(0)}
        while pending:
            path = _nearest(index, group, set(pending), max_hops)
            if path is None:
                break
            for rel in path:
                edges.append(rel)
                group.update((rel.table.lower(), rel.ref_table.lower()))
            pending = [t for t in pending if t not in group]
        edges.extend(_inner_edges(index, group, edges))
    return edges


def _nearest(index: Adjacency, group: set[str], targets: set[str], max_hops: int) -> list[Relationship] | None:
    previous: dict[str, tuple[str, Relationship]] = {}
    depth = {node: 0 for node in group}
    queue = deque(group)
    while queue:
        node = queue.popleft()
        if depth[node] >= max_hops:
            continue
        for other, rel in index.get(node, []):
            key = other.lower()
            if key in depth:
                continue
            depth[key] = depth[node] + 1
            previous[key] = (node, rel)
            if key in targets:
                path = []
                while key not in group:
                    key, step = previous[key]
                    path.append(step)
                return list(reversed(path))
            queue.append(key)
    return None


def _inner_edges(index: Adjacency, group: set[str], chosen: list[Relationship]) -> list[Relationship]:
    """A join edge for every table of the group that is not yet touched by a chosen edge (already-connected
    tables still need their join keys)."""
    touched = {t for rel in chosen for t in (rel.table.lower(), rel.ref_table.lower())}
    extra: list[Relationship] = []
    for node in sorted(group):
        if node in touched or len(group) < 2:
            continue
        for other, rel in index.get(node, []):
            if other.lower() in group:
                extra.append(rel)
                touched.update((node, other.lower()))
                break
    return extra
