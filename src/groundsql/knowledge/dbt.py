"""A dbt project as knowledge: model and column descriptions, `accepted_values` tests as known values, and
`relationships` tests as keys of the join graph. Reads ``target/manifest.json`` when the project was compiled,
else its ``schema.yml`` files."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

import yaml

from groundsql.catalog.descriptions import ColumnNote
from groundsql.errors import KnowledgeError
from groundsql.knowledge.items import Knowledge

log = logging.getLogger("groundsql")

_REF = re.compile(r"""(?:ref|source)\(\s*(?:['"][^'"]+['"]\s*,\s*)?['"]([^'"]+)['"]\s*\)""")
_SKIP_DIRS = {"target", "dbt_packages", "dbt_modules", "logs", ".venv", "node_modules"}


def apply_dbt_project(found: Knowledge, project: Path) -> None:
    """Add what the dbt project at `project` knows to `found` (descriptions, known values, relationships)."""
    if not project.is_dir():
        raise KnowledgeError(f"knowledge.yaml: the dbt project {project} is not a folder")
    manifest = project / "target" / "manifest.json"
    if manifest.is_file():
        _from_manifest(found, manifest)
        return
    files = [p for p in sorted(project.rglob("*.y*ml")) if p.suffix in (".yml", ".yaml")
             and not _SKIP_DIRS & set(p.relative_to(project).parts) and p.name != "dbt_project.yml"]
    for path in files:
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
            raise KnowledgeError(f"{where}: broken YAML in the dbt project") from None
        if not isinstance(data, dict):
            continue
        for model in data.get("models") or []:
            _model(found, model)
        for source in data.get("sources") or []:
            for table in (source or {}).get("tables") or []:
                _model(found, table)


def _model(found: Knowledge, model: dict[str, Any]) -> None:
    if not isinstance(model, dict) or not model.get("name"):
        return
    name = str(model.get("identifier") or model.get("alias") or model["name"])
    if model.get("description"):
        found.descriptions.tables[name] = " ".join(str(model["description"]).split())
    for column in model.get("columns") or []:
        if not isinstance(column, dict) or not column.get("name"):
            continue
        if column.get("description"):
            found.descriptions.columns.setdefault(name, {})[str(column["name"])] = ColumnNote(
                description=" ".join(str(column["description"]).split()))
        for test in (column.get("data_tests") or []) + (column.get("tests") or []):
            if isinstance(test, dict):
                for kind, args in test.items():
                    _test(found, name, str(column["name"]), kind, args or {})


def _test(found: Knowledge, table: str, column: str, kind: str, args: dict[str, Any]) -> None:
    args = args.get("arguments", args) if isinstance(args, dict) else {}
    if kind.endswith("accepted_values") and isinstance(args.get("values"), list):
        found.known_values[(table, column)] = [str(v) for v in args["values"]]
    elif kind.endswith("relationships") and args.get("to") and args.get("field"):
        match = _REF.search(str(args["to"]))
        if match:
            found.relationships.append((table, column, match.group(1), str(args["field"])))


def _from_manifest(found: Knowledge, path: Path) -> None:
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise KnowledgeError(f"{path}: not readable JSON ({exc})") from None
    names: dict[str, str] = {}
    for unique_id, node in list((manifest.get("nodes") or {}).items()) + list((manifest.get("sources") or {}).items()):
        if node.get("resource_type") in ("model", "seed", "snapshot", "source"):
            name = str(node.get("identifier") or node.get("alias") or node.get("name"))
            names[unique_id] = name
            _model(found, {"name": name, "description": node.get("description"),
                           "columns": list((node.get("columns") or {}).values())})
    for node in (manifest.get("nodes") or {}).values():
        meta = node.get("test_metadata") or {}
        if node.get("resource_type") != "test" or not meta.get("name"):
            continue
        kwargs = dict(meta.get("kwargs") or {})
        owner = names.get(str(node.get("attached_node") or ""))
        if owner is None:
            depends = [names[n] for n in (node.get("depends_on") or {}).get("nodes") or [] if n in names]
            owner = depends[0] if depends else None
        column = kwargs.get("column_name") or node.get("column_name")
        if owner and column:
            _test(found, owner, str(column), str(meta["name"]), kwargs)
