"""Realization paths (APEX-SQL F_kw): the plan refined into per-step needs, alternative paths and keywords.

The keywords feed tip retrieval. When the model's reply is unusable, keywords still come from the SQL
operation words found in the question and the plan, so retrieval never depends on the model's format.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

from groundsql.context import Context
from groundsql.errors import ModelError
from groundsql.prompts import evidence_block, render

log = logging.getLogger("groundsql")

PATH_TOKENS = 300

#: Operation words recognised in any text (the closed vocabulary of SQL operations).
OPERATIONS = (
    "join", "filter", "group by", "order by", "limit", "count", "sum", "average", "avg", "max", "min",
    "distinct", "subquery", "nested", "cte", "union", "intersect", "except", "having", "rank", "partition",
    "case when", "like", "between", "null", "ratio", "percentage", "difference", "compare", "exists", "not in",
)


@dataclass
class RealizationPaths:
    text: str = ""  # the refined plan as the model wrote it (or the incoming plan)
    steps: list[str] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)


def realization_paths(ctx: Context, plan: str, tables: list[str], *, role: str = "planner") -> RealizationPaths:
    """Ask the planner for per-step paths and keywords; fall back to operation words on any failure."""
    prompt = render("realization_paths", question=ctx.question, evidence_block=evidence_block(ctx.evidence),
                    tables=", ".join(tables) or "(all)", plan=plan.strip() or "(none yet)")
    text = ""
    try:
        text = ctx.chat("paths", [{"role": "user", "content": prompt}], role=role, temperature=0.0,
                        max_tokens=PATH_TOKENS).text
    except ModelError as exc:
        log.warning("realization paths skipped: %s", exc)
    paths = parse_paths(text)
    if not paths.steps and plan.strip():
        paths.text = plan.strip()
    paths.keywords = _merge(paths.keywords, operation_words(f"{ctx.question}\n{plan}\n{text}"))
    ctx.trace.note("paths", steps=paths.steps, keywords=paths.keywords)
    return paths


def parse_paths(text: str) -> RealizationPaths:
    """Steps ('Step N: …') and the comma-separated 'Keywords:' lines of a realization-path reply."""
    steps, keywords = [], []
    for line in (text or "").splitlines():
        stripped = line.strip().lstrip("-*• ").strip()
        head, _, rest = stripped.partition(":")
        label = head.strip().lower()
        if re.fullmatch(r"step\s*\d+", label) or re.fullmatch(r"\d+[.)]?", label):
            steps.append(rest.strip())
        elif label in ("keywords", "keyword") and rest.strip():
            keywords.extend(k.strip(" .'\"`").lower() for k in re.split(r"[,;]", rest) if k.strip(" .'\"`"))
    return RealizationPaths(text=(text or "").strip(), steps=steps, keywords=_merge(keywords, []))


def operation_words(text: str) -> list[str]:
    lowered = " ".join(text.lower().split())
    return [w for w in OPERATIONS if re.search(rf"(?<!\w){re.escape(w)}(?!\w)", lowered)]


def _merge(first: list[str], second: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for word in [*first, *second]:
        if word and len(word) <= 60:
            seen.setdefault(word, None)
    return list(seen)
