"""Lenient reading of view definitions written by small models: common key spellings mapped to the DSL's own,
unknown keys dropped (and reported), missing aliases made up. Validation proper stays in `dsl`."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Any

_VIEW_KEYS = {"view_name": "name", "view": "name", "id": "name", "from": "source", "table": "source",
              "source_table": "source", "base": "source", "base_table": "source", "select": "dimensions",
              "columns": "dimensions", "fields": "dimensions", "group_by": "dimensions", "groupby": "dimensions",
              "dimension": "dimensions", "aggregates": "metrics", "measures": "metrics", "aggregations": "metrics",
              "metric": "metrics", "where": "conditions", "filters": "conditions", "filter": "conditions",
              "condition": "conditions", "order_by": "order", "orderby": "order", "sort": "order",
              "sort_by": "order", "join": "joins", "top": "limit", "alias": "source_alias"}
_DIMENSION_KEYS = {"column": "expr", "field": "expr", "expression": "expr", "name": "expr", "as": "alias"}
_METRIC_KEYS = {"function": "agg", "aggregate": "agg", "agg_func": "agg", "func": "agg", "aggregation": "agg",
                "type": "agg", "column": "expr", "field": "expr", "expression": "expr", "as": "alias",
                "name": "alias", "where": "filter", "condition": "filter"}
_CONDITION_KEYS = {"operator": "op", "comparison": "op", "field": "column", "expr": "column", "left": "column",
                   "values": "value", "right": "value"}
_JOIN_KEYS = {"with": "table", "join": "table", "name": "table", "kind": "type", "join_type": "type", "keys": "on",
              "condition": "on", "using": "on"}
_METRIC_CALL = re.compile(r"^\s*(count|sum|avg|min|max|average|mean|total)\s*\(\s*(distinct\s+)?(.+?)\s*\)\s*$", re.I)

VIEW_FIELDS = {"name", "source", "source_alias", "joins", "dimensions", "metrics", "conditions", "having", "order",
               "limit", "distinct"}


def repair_view(raw: Any, index: int = 0) -> tuple[Any, list[str]]:
    """A best-effort DSL-shaped copy of `raw` and notes on what was dropped; non-dicts are returned as they are."""
    notes: list[str] = []
    if not isinstance(raw, dict):
        return raw, notes
    view = _rename(raw, _VIEW_KEYS)
    for key in list(view):
        if key not in VIEW_FIELDS:
            notes.append(f"ignored unknown field {key!r}")
            del view[key]
    name = view.get("name")
    if isinstance(name, str) and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,62}", name):
        view["name"] = slug(name) or f"view_{index + 1}"
    elif not name:
        view["name"] = f"view_{index + 1}"
    if isinstance(view.get("source"), dict):
        source = _rename(view["source"], {"table": "name", "view": "name"})
        if source.get("alias"):
            view.setdefault("source_alias", source["alias"])
        view["source"] = source.get("name")
    for key in ("dimensions", "metrics", "conditions", "having", "joins", "order"):
        if view.get(key) is None and key in view:
            view[key] = []
        if isinstance(view.get(key), (str, dict)) and key in ("dimensions", "metrics", "joins"):
            view[key] = [view[key]]
    if isinstance(view.get("dimensions"), list):
        view["dimensions"] = [_rename(d, _DIMENSION_KEYS) if isinstance(d, dict) else d for d in view["dimensions"]]
        _aggregates_to_metrics(view)
    if isinstance(view.get("metrics"), list):
        view["metrics"] = [_metric(m) for m in view["metrics"]]
    for key in ("conditions", "having"):
        if isinstance(view.get(key), list):
            view[key] = [_condition(c) for c in view[key]]
        elif isinstance(view.get(key), dict):
            view[key] = [_condition(view[key])]
    if isinstance(view.get("joins"), list):
        view["joins"] = [_rename(j, _JOIN_KEYS) if isinstance(j, dict) else j for j in view["joins"]]
    if view.get("limit") in (0, "", "null"):
        view["limit"] = None
    return _strip_artifacts(view), notes


def promote_known_source(view: dict, known: Callable[[str], bool]) -> dict:
    """When the source names nothing real but a join names a real table, that table becomes the source (small
    models often invent a name for the view they are writing and put it in `source`)."""
    source, joins = view.get("source"), view.get("joins")
    if not isinstance(source, str) or known(source):
        return view
    for index, join in enumerate(joins if isinstance(joins, list) else []):
        if isinstance(join, dict) and isinstance(join.get("table"), str) and known(join["table"]):
            rest = joins[:index] + joins[index + 1:]
            return {**view, "source": join["table"], "source_alias": join.get("alias"), "joins": rest}
    named = Counter(name for name in _qualifiers(view) if known(name))
    if named:  # no real table named anywhere but in the columns: the one they name most
        return {**view, "source": named.most_common(1)[0][0], "source_alias": None, "joins": []}
    return view


def rename_if_table(view: dict, is_table: Callable[[str], bool], is_known: Callable[[str], bool]
                    ) -> tuple[dict, list[str]]:
    """A view named like a table (small models name a view after the table it reads) gets the first free name
    `NAME_view`, `NAME_view2`, …; the note tells the model, which sees the new name from the next round on."""
    name = view.get("name")
    if not isinstance(name, str) or not is_table(name):
        return view, []
    number, new = 1, f"{name}_view"
    while is_known(new):
        number += 1
        new = f"{name}_view{number}"
    return {**view, "name": new}, [f"renamed view {name!r} to {new!r}: a table has that name"]


def _qualifiers(value: Any) -> list[str]:
    """The `table` part of every `table.column` written in a view."""
    if isinstance(value, dict):
        return [q for k, v in value.items() if k not in ("value", "name", "alias", "source") for q in _qualifiers(v)]
    if isinstance(value, list):
        return [q for v in value for q in _qualifiers(v)]
    if isinstance(value, str):
        return re.findall(r"\b([A-Za-z_]\w*)\.[A-Za-z_]\w*", value)
    return []


_ARTIFACT = re.compile(r"^([A-Za-z_][\w.]*?)(?:\[[^\]]*\]|:[A-Z][A-Z0-9_()]*)+$")


def _strip_artifacts(value: Any) -> Any:
    """Drop what a model copied from the schema text along with a name: `t.c[1,3,4]`, `c:INTEGER`."""
    if isinstance(value, dict):
        return {k: (v if k in ("value", "name", "alias") else _strip_artifacts(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_strip_artifacts(v) for v in value]
    if isinstance(value, str):
        match = _ARTIFACT.match(value.strip())
        return match.group(1) if match else value
    return value


def _aggregates_to_metrics(view: dict) -> None:
    """A dimension written as `sum(x)` is a metric."""
    kept, moved = [], []
    for item in view["dimensions"]:
        expr = item.get("expr") if isinstance(item, dict) else item
        match = _METRIC_CALL.match(expr) if isinstance(expr, str) else None
        if match is None:
            kept.append(item)
            continue
        agg, distinct, inner = match.groups()
        agg = "count_distinct" if distinct and agg.lower() == "count" else agg.lower()
        alias = item.get("alias") if isinstance(item, dict) else None
        moved.append({"agg": agg, "expr": inner, "alias": alias or slug(f"{agg}_{inner}") or "value"})
    if moved:
        view["dimensions"] = kept
        metrics = view.get("metrics")
        view["metrics"] = (metrics if isinstance(metrics, list) else []) + moved


def salvage(view: dict, where: str) -> dict | None:
    """`view` without the optional part an error points at (`dimensions[2].expr`, `joins[0].on[1].left`, …), or
    None when the error is in a part the view cannot do without (its source, name or last column)."""
    match = re.match(r"^(dimensions|metrics|conditions|having|order|joins)\[(\d+)\]", where)
    if not match:
        return None
    key, index = match.group(1), int(match.group(2))
    items = view.get(key)
    if not isinstance(items, list) or index >= len(items):
        return None
    rest = items[:index] + items[index + 1:]
    remaining = [view.get(k) or [] for k in ("dimensions", "metrics") if k != key] + [rest if key in (
        "dimensions", "metrics") else []]
    if key in ("dimensions", "metrics") and not any(remaining):
        return None
    return {**view, key: rest}


def slug(text: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_]+", "_", text.strip()).strip("_").lower()
    if cleaned and cleaned[0].isdigit():
        cleaned = f"v_{cleaned}"
    return cleaned[:63]


def _rename(item: dict, names: dict[str, str]) -> dict:
    out: dict = {}
    for key, value in item.items():
        key = str(key).strip().lower()
        target = names.get(key, key)
        if target not in out:
            out[target] = value
    return out


def _metric(raw: Any) -> Any:
    if isinstance(raw, str):
        match = _METRIC_CALL.match(raw)
        if not match:
            return raw
        agg, distinct, expr = match.groups()
        agg = "count_distinct" if distinct and agg.lower() == "count" else agg.lower()
        return {"agg": agg, "expr": expr, "alias": slug(f"{agg}_{expr}") or "value"}
    if not isinstance(raw, dict):
        return raw
    metric = _rename(raw, _METRIC_KEYS)
    expr = metric.get("expr")
    if isinstance(expr, str) and "agg" not in metric:
        match = _METRIC_CALL.match(expr)
        if match:
            agg, distinct, inner = match.groups()
            metric["agg"] = "count_distinct" if distinct and agg.lower() == "count" else agg.lower()
            metric["expr"] = inner
    elif isinstance(expr, str) and isinstance(metric.get("agg"), str):
        match = _METRIC_CALL.match(expr)
        if match and match.group(1).lower() in (metric["agg"].lower(), "average", "mean", "total"):
            metric["expr"] = match.group(3)
    if not metric.get("alias"):
        metric["alias"] = slug(f"{metric.get('agg', 'value')}_{metric.get('expr', '')}") or "value"
    if isinstance(metric.get("filter"), dict):
        metric["filter"] = _condition(metric["filter"])
    for key in list(metric):
        if key not in ("agg", "expr", "alias", "filter"):
            del metric[key]
    return metric


def _condition(raw: Any) -> Any:
    if not isinstance(raw, dict):
        return raw
    condition = _rename(raw, _CONDITION_KEYS)
    if isinstance(condition.get("conditions"), list):
        condition["conditions"] = [_condition(c) for c in condition["conditions"]]
    elif isinstance(condition.get("conditions"), dict):
        condition["conditions"] = [_condition(condition["conditions"])]
    if condition.get("op") in ("and", "or", "not") and not condition.get("conditions"):
        for key in ("value", "column"):
            if isinstance(condition.get(key), list):
                condition["conditions"] = [_condition(c) for c in condition.pop(key)]
    for key in list(condition):
        if key not in ("op", "column", "value", "view", "view_column", "conditions"):
            del condition[key]
    return condition
