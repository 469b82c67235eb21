"""Recursive profiling of JSON values: every leaf path becomes a sub-column profile.

Array positions are written `[]`, so `$.items[0].sku` and `$.items[7].sku` merge into `$.items[].sku`.
Non-leaf paths are labelled by their structure (dict, list[str], list[dict], …).
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from groundsql.catalog import types as T
from groundsql.catalog.profiles import VALUE_CHAR_LIMIT, ColumnProfile, ValueCount

MAX_PATHS = 50
MAX_DEPTH = 6


def flatten(value: Any, path: str = "$", depth: int = 0) -> list[tuple[str, Any]]:
    """(path, leaf value) pairs of one JSON value, plus (path, structure label) for containers."""
    if depth > MAX_DEPTH:
        return [(path, "…")]
    if isinstance(value, dict):
        pairs: list[tuple[str, Any]] = [(path, _Structure("dict"))]
        for key, item in value.items():
            pairs += flatten(item, f"{path}.{key}", depth + 1)
        return pairs
    if isinstance(value, list):
        kinds = sorted({_kind(v) for v in value}) or ["empty"]
        pairs = [(path, _Structure(f"list[{'|'.join(kinds)}]"))]
        for item in value:
            pairs += flatten(item, f"{path}[]", depth + 1)
        return pairs
    return [(path, value)]


def profile_json_values(values: list[Any], *, top_k: int = 10) -> list[ColumnProfile]:
    """Profiles of the paths found in sampled JSON values (texts or already-decoded objects)."""
    documents = []
    for value in values:
        if isinstance(value, (dict, list)):
            documents.append(value)
        elif isinstance(value, str):
            try:
                documents.append(json.loads(value))
            except ValueError:
                continue
    if not documents:
        return []
    leaves: dict[str, list[Any]] = {}
    structures: dict[str, Counter] = {}
    present: Counter = Counter()
    for document in documents:
        seen_here: set[str] = set()
        for path, leaf in flatten(document):
            if path == "$":
                continue
            if isinstance(leaf, _Structure):
                structures.setdefault(path, Counter())[leaf.label] += 1
            else:
                leaves.setdefault(path, []).append(leaf)
            seen_here.add(path)
        present.update(seen_here)
    profiles = []
    for path in list(dict.fromkeys(list(structures) + list(leaves)))[:MAX_PATHS]:
        total = len(documents)
        if path in structures:
            label = structures[path].most_common(1)[0][0]
            profiles.append(ColumnProfile(name=path, declared_type=label, physical_type=T.SEMI_STRUCTURED,
                                          semantic_type=T.OTHER, null_ratio=round(1 - present[path] / total, 4)))
            continue
        profiles.append(_leaf_profile(path, leaves[path], total, present[path], top_k))
    return profiles


def _leaf_profile(path: str, values: list[Any], documents: int, present: int, top_k: int) -> ColumnProfile:
    non_null = [v for v in values if v is not None]
    families = Counter(T.family_of_value(v) for v in non_null)
    family = families.most_common(1)[0][0] if families else T.STRING
    profile = ColumnProfile(name=path, declared_type=f"json:{family}", physical_type=family or T.STRING,
                            null_ratio=round(1 - min(present, len(non_null)) / documents, 4) if documents else 0.0)
    profile.null_count = max(0, documents - len(non_null))
    counts = Counter(map(_hashable, non_null))
    profile.distinct_count = len(counts)
    profile.unique_ratio = round(len(counts) / len(non_null), 4) if non_null else None
    last = path.rsplit(".", 1)[-1].rstrip("[]")
    if family in (T.INTEGER, T.FLOAT):
        numbers = [float(v) for v in non_null if not isinstance(v, bool)]
        profile.min, profile.max = min(numbers, default=None), max(numbers, default=None)
        profile.avg = sum(numbers) / len(numbers) if numbers else None
        profile.semantic_type = T.IDENTIFIER if T.has_id_token(last) else T.METRIC
    elif family == T.STRING and T.detect_text_datetime(non_null, last):
        profile.semantic_type = T.TIME
        profile.earliest, profile.latest = min(non_null), max(non_null)
    elif T.has_id_token(last) and (profile.unique_ratio or 0) >= 0.9:
        profile.semantic_type = T.IDENTIFIER
    elif family in (T.STRING, T.BOOLEAN) and (profile.unique_ratio or 1) <= 0.5:
        profile.semantic_type = T.DIMENSION
    else:
        profile.semantic_type = T.OTHER
    if profile.semantic_type == T.DIMENSION:
        total = len(non_null)
        profile.top_values = [ValueCount(_cut(v), n, round(n / total, 4)) for v, n in counts.most_common(top_k)]
    profile.sample_values = [_cut(v) for v, _ in counts.most_common(3)]
    return profile


class _Structure:
    def __init__(self, label: str):
        self.label = label


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "dict"
    if isinstance(value, list):
        return "list"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if value is None:
        return "null"
    return "str"


def _hashable(value: Any) -> Any:
    return json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else value


def _cut(value: Any) -> Any:
    if isinstance(value, str) and len(value) > VALUE_CHAR_LIMIT:
        return value[: VALUE_CHAR_LIMIT - 1] + "…"
    return value
