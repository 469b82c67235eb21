"""The house: every import of `src/groundsql` follows the layers of docs/architecture.md, and none closes a loop.

The imports are read with `ast` (module-level, function-level and `TYPE_CHECKING` ones alike), not by importing
anything, so the check takes a fraction of a second.
"""

from __future__ import annotations

import ast
import re
from collections import deque
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src"
PACKAGE = "groundsql"
DOC = REPO / "docs" / "architecture.md"


@dataclass(frozen=True)
class Import:
    source: str  # the importing module, dotted
    target: str  # the imported groundsql module, dotted
    path: Path
    line: int

    def where(self) -> str:
        path = self.path.relative_to(REPO) if self.path.is_relative_to(REPO) else self.path
        return f"{path}:{self.line}"


@cache
def modules(root: Path = SRC / PACKAGE) -> dict[str, tuple[Path, bool]]:
    """Dotted name → (file, is a package's __init__) for every module of the package at `root`."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def imports_of(name: str, path: Path, is_package: bool, known: dict[str, tuple[Path, bool]]) -> list[Import]:
    """The modules of `known` that `name` imports anywhere in its file. `from a import b` imports `a.b` when
    that is a module, else `a`; a relative import is resolved against the module's package."""
    package = name if is_package else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            targets = [f"{module}.{alias.name}" if f"{module}.{alias.name}" in known else module
                       for alias in node.names]
        else:
            continue
        for target in targets:
            if target in known and target != name:
                found.append(Import(name, target, path, node.lineno))
    return found


@cache
def all_imports(root: Path = SRC / PACKAGE) -> tuple[Import, ...]:
    known = modules(root)
    return tuple(i for name, (path, is_package) in known.items() for i in imports_of(name, path, is_package, known))


def import_graph(imports: tuple[Import, ...]) -> dict[str, dict[str, Import]]:
    """Module → the modules it imports, each with its first import."""
    edges: dict[str, dict[str, Import]] = {}
    for imp in imports:
        edges.setdefault(imp.source, {}).setdefault(imp.target, imp)
    return edges


def unit(module: str) -> str:
    """`groundsql.linking.apex` → `linking`; `groundsql.api` → `api`; `groundsql` → `groundsql`."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


@cache
def layers() -> dict[str, int]:
    """Unit → layer, read from the table under '## Layers' in docs/architecture.md."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    table = {}
    for row in re.finditer(r"^\|\s*(\d+)\s*\|([^|]*)\|", section, re.M):
        for name in re.findall(r"`([\w.]+)`", row.group(2)):
            table[name] = int(row.group(1))
    return table


def cycles(edges: dict[str, dict[str, Import]]) -> list[list[Import]]:
    """One shortest loop per strongly connected group of modules (Tarjan's algorithm, then a breadth-first
    search from the group's first module back to itself)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(root: str) -> None:  # iterative: no recursion limit to meet
        work = [(root, iter(edges.get(root, {})))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges.get(child, {}))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(group)

    for node in sorted(edges):
        if node not in index:
            visit(node)
    loops = []
    for group in groups:
        start = min(group)
        came: dict[str, Import] = {}
        queue = deque([start])
        while queue:
            node = queue.popleft()
            for target, imp in sorted(edges.get(node, {}).items()):
                if target not in group or target in came:
                    continue
                came[target] = imp
                if target == start:
                    queue.clear()
                    break
                queue.append(target)
        loop = [came[start]]
        while loop[-1].source != start:
            loop.append(came[loop[-1].source])
        loops.append(list(reversed(loop)))
    return loops


def describe(loop: list[Import]) -> str:
    return " -> ".join([loop[0].source] + [f"{i.target} ({i.where()})" for i in loop])


def test_the_layer_table_places_every_unit():
    units = {unit(name) for name in modules()}
    missing = sorted(units - set(layers()))
    assert not missing, f"place these in the layer table of docs/architecture.md: {', '.join(missing)}"
    stale = sorted(set(layers()) - units)
    assert not stale, f"the layer table of docs/architecture.md names units that do not exist: {', '.join(stale)}"


def test_no_import_against_the_layers():
    table = layers()
    wrong = []
    for imp in all_imports():
        source, target = unit(imp.source), unit(imp.target)
        if source == target or source not in table or target not in table:
            continue
        if table[target] >= table[source]:
            wrong.append(f"{imp.where()}: {imp.source} imports {imp.target} ({source} is layer {table[source]}, "
                         f"{target} layer {table[target]}; a unit imports lower layers only)")
    if wrong:
        pytest.fail("imports against the layers of docs/architecture.md:\n" + "\n".join(wrong), pytrace=False)


def test_no_import_cycle():
    loops = cycles(import_graph(all_imports()))
    if loops:
        pytest.fail("import cycles (one loop per group of modules that import each other):\n"
                    + "\n".join(describe(loop) for loop in loops), pytrace=False)


def test_the_check_sees_function_level_and_relative_imports_and_reports_the_loop(tmp_path):
    package = tmp_path / "demo"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from demo import b\n")
    (package / "b.py").write_text("def later():\n    from . import c\n")
    (package / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import demo.a\n")
    (package / "d.py").write_text("from demo.a import something\n")
    imports = all_imports(package)
    assert {(i.source, i.target) for i in imports} == {
        ("demo.a", "demo.b"), ("demo.b", "demo.c"), ("demo.c", "demo.a"), ("demo.d", "demo.a")}
    loops = cycles(import_graph(imports))
    assert [[i.source for i in loop] for loop in loops] == [["demo.a", "demo.b", "demo.c"]]
    assert describe(loops[0]).startswith("demo.a -> demo.b (") and "c.py:3)" in describe(loops[0])
