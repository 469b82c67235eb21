"""The join graph: tables as nodes, foreign keys (declared or inferred) as edges, shortest join paths."""

from __future__ import annotations

from collections import deque
from dataclasses import asdict, dataclass, field
from typing import Any

MANY_TO_ONE = "many-to-one"
ONE_TO_ONE = "one-to-one"


@dataclass
class Relationship:
    """`table.columns` refers to `ref_table.ref_columns` (a foreign key), with its cardinality.

    `confidence` is 1.0 for declared keys and the inference score otherwise.
    """

    table: str
    columns: list[str]
    ref_table: str
    ref_columns: list[str]
    cardinality: str = MANY_TO_ONE
    inferred: bool = False
    confidence: float = 1.0

    def other(self, table: str) -> str:
        """The table on the other side of this edge from `table`."""
        return self.ref_table if table.lower() == self.table.lower() else self.table

    def on_clause(self, left_alias: str | None = None, right_alias: str | None = None) -> str:
        """`a.x = b.y [AND …]`, with table names (or the given aliases) as qualifiers."""
        left = left_alias or self.table
        right = right_alias or self.ref_table
        return " AND ".join(f"{left}.{c} = {right}.{r}" for c, r in zip(self.columns, self.ref_columns))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class JoinGraph:
    """Undirected view of the relationships between tables, for join paths and keeping subsets connected."""

    relationships: list[Relationship] = field(default_factory=list)
    bridges: list[str] = field(default_factory=list)  # tables that link others many-to-many
    # lower-cased table → its edges, declared before inferred; rebuilt when `relationships` changes length
    _index: dict[str, list[Relationship]] = field(default_factory=dict, init=False, repr=False, compare=False)
    _indexed: int = field(default=-1, init=False, repr=False, compare=False)

    def edges(self, table: str) -> list[Relationship]:
        """Relationships touching `table` (either side), declared ones first, then by confidence."""
        if self._indexed != len(self.relationships):
            index: dict[str, list[Relationship]] = {}
            for rel in sorted(self.relationships, key=lambda r: (r.inferred, -r.confidence)):
                index.setdefault(rel.table.lower(), []).append(rel)
                if rel.ref_table.lower() != rel.table.lower():
                    index.setdefault(rel.ref_table.lower(), []).append(rel)
            self._index, self._indexed = index, len(self.relationships)
        return list(self._index.get(table.lower(), []))

    def adjacent(self, table: str) -> list[tuple[str, Relationship]]:
        """(neighbouring table, edge) pairs of `table`, in the order of `edges`; self-references left out."""
        return [(rel.other(table), rel) for rel in self.edges(table) if rel.table.lower() != rel.ref_table.lower()]

    def neighbours(self, table: str) -> list[str]:
        seen: list[str] = []
        for rel in self.edges(table):
            other = rel.other(table)
            if other.lower() != table.lower() and other not in seen:
                seen.append(other)
        return seen

    def shortest_join_path(self, start: str, end: str) -> list[Relationship] | None:
        """The fewest relationships that connect `start` to `end` (breadth-first; declared edges are preferred).

        Returns [] when start and end are the same table and None when they are not connected.
        """
        if start.lower() == end.lower():
            return []
        previous: dict[str, tuple[str, Relationship]] = {}
        queue = deque([start.lower()])
        names = {start.lower(): start}
        while queue:
            node = queue.popleft()
            for other, rel in self.adjacent(names[node]):
                key = other.lower()
                if key in names:
                    continue
                names[key] = other
                previous[key] = (node, rel)
                if key == end.lower():
                    return _unwind(previous, start.lower(), key)
                queue.append(key)
        return None

    def path_tables(self, start: str, end: str) -> list[str] | None:
        """The tables along the shortest join path, `start` and `end` included."""
        path = self.shortest_join_path(start, end)
        if path is None:
            return None
        tables = [start]
        for rel in path:
            tables.append(rel.other(tables[-1]))
        return tables

    def connect(self, tables: list[str]) -> list[str]:
        """`tables` plus the fewest intermediate tables that join them into one connected set.

        A greedy Steiner-tree approximation: repeatedly attach the nearest unconnected table by its shortest
        path to the tables already kept. Tables that cannot be reached are kept as they are.
        """
        if not tables:
            return []
        kept = [tables[0]]
        pending = [t for t in tables[1:] if t.lower() != tables[0].lower()]
        while pending:
            best: tuple[int, str, list[str]] | None = None
            for target in pending:
                for source in kept:
                    path = self.path_tables(source, target)
                    if path is not None and (best is None or len(path) < best[0]):
                        best = (len(path), target, path)
            if best is None:
                kept.extend(pending)
                break
            _, target, path = best
            for table in path:
                if table.lower() not in {k.lower() for k in kept}:
                    kept.append(table)
            pending = [t for t in pending if t.lower() not in {k.lower() for k in kept}]
        return kept

    def to_dict(self) -> dict[str, Any]:
        return {"relationships": [r.to_dict() for r in self.relationships], "bridges": list(self.bridges)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> JoinGraph:
        return cls([Relationship(**r) for r in data.get("relationships") or []], list(data.get("bridges") or []))


def _unwind(previous: dict[str, tuple[str, Relationship]], start: str, end: str) -> list[Relationship]:
    path: list[Relationship] = []
    node = end
    while node != start:
        node, rel = previous[node]
        path.append(rel)
    return list(reversed(path))
