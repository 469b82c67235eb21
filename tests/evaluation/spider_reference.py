"""An independent oracle: Spider's hardness computed from the parsed `sql` field that dev.json carries.

It restates the published counting over Spider's own parse (not over sqlglot), so the sqlglot-based
`spider_hardness` can be checked against it question by question.
"""

from __future__ import annotations

LIKE_OP = 9  # index of 'like' in Spider's WHERE_OPS


def _has_agg(unit) -> bool:
    return unit[0] != 0


def _count_agg(units) -> int:
    return sum(1 for unit in units if _has_agg(unit))


def _nested(sql: dict) -> list:
    found = []
    for cond in sql["from"]["conds"][::2] + sql["where"][::2] + sql["having"][::2]:
        found += [v for v in (cond[3], cond[4]) if isinstance(v, dict)]
    found += [sql[k] for k in ("intersect", "except", "union") if sql[k] is not None]
    return found


def _component1(sql: dict) -> int:
    count = sum(1 for k in ("where", "groupBy", "orderBy") if len(sql[k]) > 0)
    count += 1 if sql["limit"] is not None else 0
    count += max(len(sql["from"]["table_units"]) - 1, 0)
    connectors = sql["from"]["conds"][1::2] + sql["where"][1::2] + sql["having"][1::2]
    count += sum(1 for t in connectors if t == "or")
    conds = sql["from"]["conds"][::2] + sql["where"][::2] + sql["having"][::2]
    count += sum(1 for c in conds if c[1] == LIKE_OP)
    return count


def _others(sql: dict) -> int:
    aggs = _count_agg(sql["select"][1]) + _count_agg(sql["where"][::2]) + _count_agg(sql["groupBy"])
    if sql["orderBy"]:
        units = [u[1] for u in sql["orderBy"][1] if u[1]] + [u[2] for u in sql["orderBy"][1] if u[2]]
        aggs += _count_agg(units)
    aggs += _count_agg(sql["having"])
    count = 1 if aggs > 1 else 0
    count += 1 if len(sql["select"][1]) > 1 else 0
    count += 1 if len(sql["where"]) > 1 else 0
    count += 1 if len(sql["groupBy"]) > 1 else 0
    return count


def reference_hardness(sql: dict) -> str:
    c1, c2, others = _component1(sql), len(_nested(sql)), _others(sql)
    if c1 <= 1 and others == 0 and c2 == 0:
        return "easy"
    if (others <= 2 and c1 <= 1 and c2 == 0) or (c1 <= 2 and others < 2 and c2 == 0):
        return "medium"
    if ((others > 2 and c1 <= 2 and c2 == 0) or (2 < c1 <= 3 and others <= 2 and c2 == 0)
            or (c1 <= 1 and others == 0 and c2 <= 1)):
        return "hard"
    return "extra"
