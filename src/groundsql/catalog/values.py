"""The value index: stored values of text and categorical columns, with fuzzy lookup of question literals."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz import fuzz, process

#: Distinct values kept per column; longer tails are cut (the index stays small on large databases).
MAX_VALUES_PER_COLUMN = 2000
#: Values longer than this are free text, not literals a question would name.
MAX_VALUE_LENGTH = 80

_STOPWORD_TEXT = (
    "a an the of in on at to for from by with and or not no is are was were be been what which who whom whose "
    "how many much list show give find all each every that this these those than then there their its it as "
    "do does did have has had i me my we our you your they them he she his her per any some most least more "
    "less number count total average avg sum max min name names"
)
_STOPWORDS = frozenset(_STOPWORD_TEXT.split(" "))


@dataclass
class ValueMatch:
    """A stored value that a piece of text may refer to.

    `value` is the value exactly as stored (trailing spaces and codes included); `score` is 0–100 and `exact`
    says whether it equals the text after case folding and whitespace trimming.
    """

    table: str
    column: str
    value: str
    score: float
    exact: bool = False
    text: str = ""  # the text that was looked up


@dataclass
class ValueIndex:
    """Distinct stored values per (table, column); `lookup` maps a literal to the values and columns holding it."""

    values: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # table → column → values
    _norms: list[str] | None = field(default=None, repr=False, compare=False)
    _owners: dict[str, list[tuple[str, str, str]]] | None = field(default=None, repr=False, compare=False)

    def add(self, table: str, column: str, values: list[Any]) -> None:
        kept = [v for v in (str(x) for x in values if x is not None) if v.strip() and len(v) <= MAX_VALUE_LENGTH]
        if kept:
            self.values.setdefault(table, {})[column] = kept[:MAX_VALUES_PER_COLUMN]
            self._norms = self._owners = None

    def columns(self) -> list[tuple[str, str]]:
        return [(t, c) for t, cols in self.values.items() for c in cols]

    def __len__(self) -> int:
        return sum(len(v) for cols in self.values.values() for v in cols.values())

    def lookup(self, text: str, *, limit: int = 10, min_score: float = 75.0,
               tables: list[str] | None = None) -> list[ValueMatch]:
        """Stored values that `text` names, best first.

        Args:
            text: a literal from a question ("France", "heavy metal", a misspelling).
            limit: most matches returned.
            min_score: 0–100 similarity floor (case-folded, whitespace-trimmed edit similarity).
            tables: only look in these tables.

        Returns:
            Matches with table, column, the stored value, and its score; exact matches first.
        """
        query = normalise(text)
        if not query:
            return []
        norms, owners = self._prepared()
        wanted = {t.lower() for t in tables} if tables else None
        found = process.extract(query, norms, scorer=_score, limit=max(limit * 4, 20), score_cutoff=min_score)
        matches: list[ValueMatch] = []
        for norm, score, _ in found:
            for table, column, value in owners[norm]:
                if wanted is not None and table.lower() not in wanted:
                    continue
                matches.append(ValueMatch(table, column, value, round(float(score), 1), norm == query, text))
        matches.sort(key=lambda m: (not m.exact, -m.score, m.value != m.value.strip(), m.table, m.column))
        return matches[:limit]

    def lookup_question(self, question: str, *, limit: int = 20, min_score: float = 88.0,
                        max_words: int = 4) -> list[ValueMatch]:
        """Look up every quoted string and every 1–`max_words`-word span of `question` that is not a stopword.

        Returns the best match per stored (table, column, value), best first: the literal spans a question
        mentions and the columns that store them.
        """
        spans = _candidate_spans(question, max_words)
        best: dict[tuple[str, str, str], ValueMatch] = {}
        for span in spans:
            for match in self.lookup(span, limit=5, min_score=min_score):
                key = (match.table, match.column, match.value)
                if key not in best or (match.score, len(span)) > (best[key].score, len(best[key].text)):
                    best[key] = match
        ranked = sorted(best.values(), key=lambda m: (not m.exact, -m.score, -len(m.text)))
        return ranked[:limit]

    def to_dict(self) -> dict[str, Any]:
        return {"values": self.values}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ValueIndex:
        return cls(values={t: dict(cols) for t, cols in (data.get("values") or {}).items()})

    def _prepared(self) -> tuple[list[str], dict[str, list[tuple[str, str, str]]]]:
        if self._norms is None or self._owners is None:
            owners: dict[str, list[tuple[str, str, str]]] = {}
            for table, cols in self.values.items():
                for column, values in cols.items():
                    for value in values:
                        owners.setdefault(normalise(value), []).append((table, column, value))
            owners.pop("", None)
            self._owners = owners
            self._norms = list(owners)
        return self._norms, self._owners


def normalise(text: str) -> str:
    """Case-folded, trimmed, inner whitespace collapsed: the form values are compared in."""
    return " ".join(str(text).casefold().split())


def _score(a: str, b: str, **kwargs: Any) -> float:
    # Plain edit similarity catches misspellings; token order similarity catches "Metal, Heavy".
    cutoff = kwargs.get("score_cutoff") or 0
    score = max(fuzz.ratio(a, b), 0.95 * fuzz.token_sort_ratio(a, b))
    return score if score >= cutoff else 0.0


def _candidate_spans(question: str, max_words: int) -> list[str]:
    spans = [m.group(1) or m.group(2) for m in re.finditer(r"'([^']+)'|\"([^\"]+)\"", question)]
    words = re.findall(r"[\w][\w.\-&/]*", question)
    for size in range(max_words, 0, -1):
        for start in range(len(words) - size + 1):
            chunk = words[start:start + size]
            if chunk[0].lower() in _STOPWORDS or chunk[-1].lower() in _STOPWORDS:
                continue
            if size == 1 and (len(chunk[0]) < 2 or chunk[0].isdigit() and len(chunk[0]) < 3):
                continue
            spans.append(" ".join(chunk))
    seen: set[str] = set()
    return [s for s in spans if not (s.lower() in seen or seen.add(s.lower()))]
