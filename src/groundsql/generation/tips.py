"""The tip library (APEX-SQL §3.3.1): SQL practice notes kept as data, retrieved by deterministic rules.

Rules look at the question, the evidence, the plan, the realization keywords, the schema's names and the
dialect (see the header of `tips.yaml` for the clause language). Deterministic keyword rules, not embeddings:
SQL operations form a small closed set, and exact rules add no noise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

import yaml

from groundsql.errors import ConfigError

FIELDS = {"question", "evidence", "plan", "keywords", "text", "schema", "dialect"}
TESTS = {"any", "all", "none", "starts", "pattern", "count", "steps", "is"}
DEFAULT_LIMIT = 10


@dataclass(frozen=True)
class Tip:
    id: str
    category: str
    title: str
    text: str
    universal: bool = False
    rules: tuple[dict[str, dict[str, Any]], ...] = ()


@dataclass
class TipQuery:
    """What retrieval looks at for one question."""

    question: str
    evidence: str = ""
    plan: str = ""
    keywords: list[str] = field(default_factory=list)
    schema_names: list[str] = field(default_factory=list)
    dialect: str = "sqlite"

    def field_text(self, name: str) -> str:
        if name == "keywords":
            return " ; ".join(self.keywords)
        if name == "text":
            return f"{self.question}\n{self.evidence}"
        if name == "schema":
            return " ".join(self.schema_names)
        return str(getattr(self, name) or "")


@cache
def library() -> tuple[Tip, ...]:
    """All tips of `tips.yaml`, validated."""
    text = resources.files(__package__).joinpath("tips.yaml").read_text(encoding="utf-8")
    return load_tips(yaml.safe_load(text))


def load_tips(data: dict[str, Any]) -> tuple[Tip, ...]:
    """Build and check tips from the YAML structure; unknown fields or tests raise `ConfigError`."""
    categories = set(data.get("categories") or {})
    tips = []
    seen: set[str] = set()
    for raw in data.get("tips") or []:
        tip_id = raw.get("id", "?")
        if tip_id in seen:
            raise ConfigError(f"tip {tip_id}: duplicate id")
        seen.add(tip_id)
        if raw.get("category") not in categories:
            raise ConfigError(f"tip {tip_id}: unknown category {raw.get('category')!r}")
        rules = tuple(raw.get("when") or ())
        if not rules and not raw.get("universal"):
            raise ConfigError(f"tip {tip_id}: needs `when` rules or `universal: true`")
        for rule in rules:
            for name, tests in rule.items():
                if name not in FIELDS:
                    raise ConfigError(f"tip {tip_id}: unknown field {name!r}")
                unknown = set(tests or {}) - TESTS
                if unknown:
                    raise ConfigError(f"tip {tip_id}: unknown test(s) {sorted(unknown)}")
                if "pattern" in tests:
                    re.compile(tests["pattern"])
        tips.append(Tip(id=tip_id, category=raw["category"], title=raw["title"], text=raw["text"],
                        universal=bool(raw.get("universal")), rules=rules))
    return tuple(tips)


def matching_rules(tip: Tip, query: TipQuery) -> list[int]:
    """Indexes of the tip's rules that hold for `query`."""
    return [index for index, rule in enumerate(tip.rules)
            if all(_clause(query.field_text(name), tests or {}) for name, tests in rule.items())]


def retrieve(query: TipQuery, *, limit: int = DEFAULT_LIMIT, tips: tuple[Tip, ...] | None = None) -> list[Tip]:
    """Universal tips, then the matched tips taken round-robin over categories, at most `limit` in all.

    The round-robin keeps a long prompt from filling up with one category when many rules fire; within a
    category, library order decides.
    """
    pool = tips if tips is not None else library()
    chosen = [t for t in pool if t.universal]
    by_category: dict[str, list[Tip]] = {}
    for tip in pool:
        if not tip.universal and matching_rules(tip, query):
            by_category.setdefault(tip.category, []).append(tip)
    queues = list(by_category.values())
    while queues and len(chosen) < limit:
        for queue in queues:
            if queue and len(chosen) < limit:
                chosen.append(queue.pop(0))
        queues = [q for q in queues if q]
    return chosen


def render_tips(tips: list[Tip]) -> str:
    """Tips as a compact bullet list for a prompt."""
    return "\n".join(f"- {tip.text}" for tip in tips)


def _clause(text: str, tests: dict[str, Any]) -> bool:
    lowered = " ".join(text.lower().split())
    checks = {
        "any": lambda v: any(_has(lowered, p) for p in v),
        "all": lambda v: all(_has(lowered, p) for p in v),
        "none": lambda v: not any(_has(lowered, p) for p in v),
        "starts": lambda v: any(re.match(rf"{re.escape(p.strip().lower())}(?!\w)", lowered) for p in v),
        "pattern": lambda v: re.search(v, text, re.I) is not None,
        "count": lambda v: all(len(re.findall(rf"(?<!\w){re.escape(w.lower())}(?!\w)", lowered)) >= n
                               for w, n in v.items()),
        "steps": lambda v: _steps(text) >= int(v),
        "is": lambda v: lowered in {str(x).lower() for x in v},
    }
    if not text.strip() and set(tests) - {"none"}:
        return False
    return all(checks[name](value) for name, value in tests.items())


def _has(text: str, phrase: str) -> bool:
    phrase = " ".join(phrase.lower().split())
    if not phrase:
        return False
    return re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", text) is not None


def _steps(plan: str) -> int:
    """Numbered or bulleted lines of a plan ('1.', 'Step 2', '- …')."""
    return sum(1 for line in plan.splitlines() if re.match(r"\s*(step\s*\d+|\d+[.):]|[-*•])\s*\S", line, re.I))
