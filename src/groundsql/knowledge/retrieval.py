"""Retrieval of knowledge items (and ranking of tables) for one question: BM25 over words, offline.

Words are lower-cased, snake_case and camelCase are split, a plural 's' is dropped and common question words are
ignored, so "active customers" finds a rule about "an active customer" and a column named ``customerStatus``.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from groundsql.knowledge.items import Item

_WORD = re.compile(r"[A-Za-z]+|\d+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_STOPWORD_TEXT = (
    "a an the of in on at to for from by with and or not no is are was were be been what which who whom whose how "
    "many much list show give find all each every that this these those than then there their its it as do does "
    "did have has had i me my we our you your they them he she his her per any some please return display tell "
    "get select where"
)
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
#: An item is kept only when its score reaches this share of the best item's score.
MIN_RATIO = 0.5
#: ... and at least this absolute BM25 score (one rare shared word scores about 1).
MIN_SCORE = 0.5


def words(text: str, stopwords: frozenset[str] = STOPWORDS) -> list[str]:
    """Lower-case word stems of `text` without `stopwords`."""
    spaced = _CAMEL.sub(" ", text.replace("_", " "))
    found = []
    for word in _WORD.findall(spaced):
        lowered = word.lower()
        if lowered in stopwords:
            continue
        if len(lowered) > 3 and lowered.endswith("s") and not lowered.endswith("ss"):
            lowered = lowered[:-1]
        found.append(lowered)
    return found


class BM25:
    """Okapi BM25 over tokenised documents."""

    def __init__(self, documents: Sequence[Sequence[str]], k1: float = 1.2, b: float = 0.75):
        self.documents = [Counter(d) for d in documents]
        self.lengths = [len(d) for d in documents]
        self.average = (sum(self.lengths) / len(self.lengths)) if self.lengths else 0.0
        self.k1, self.b = k1, b
        frequency: Counter[str] = Counter()
        for doc in self.documents:
            frequency.update(doc.keys())
        n = len(self.documents)
        self.idf = {term: math.log(1 + (n - df + 0.5) / (df + 0.5)) for term, df in frequency.items()}

    def scores(self, query: Iterable[str], *, unique: bool = True) -> list[float]:
        """One score per document; with `unique`, a word repeated in the query counts once."""
        terms = list(dict.fromkeys(query)) if unique else list(query)
        result = []
        for doc, length in zip(self.documents, self.lengths):
            score = 0.0
            norm = self.k1 * (1 - self.b + self.b * length / self.average) if self.average else self.k1
            for term in terms:
                tf = doc.get(term)
                if tf:
                    score += self.idf[term] * tf * (self.k1 + 1) / (tf + norm)
            result.append(score)
        return result


@dataclass(frozen=True)
class Retrieved:
    """An item with the score that chose it."""

    item: Item
    score: float


class KnowledgeRetriever:
    """BM25 over the text and keywords of knowledge items."""

    backend = "bm25"

    def __init__(self, items: Sequence[Item]):
        self.items = list(items)
        self.index = BM25([words(f"{i.text} {i.keywords}") for i in self.items])

    def search(self, query: str, *, limit: int = 8, tables: Iterable[str] | None = None) -> list[Retrieved]:
        """The items that match `query`, best first: `always` items, then those scoring at least `MIN_SCORE` and
        `MIN_RATIO` of the best. An item scoped to tables none of which is in `tables` counts half."""
        if not self.items or limit <= 0:
            return []
        shown = {t.lower() for t in tables} if tables is not None else None
        raw = self.index.scores(words(query))
        scored = []
        for item, score in zip(self.items, raw):
            if shown is not None and item.tables and not any(t.lower() in shown for t in item.tables):
                score *= 0.5
            scored.append((score, item))
        top = max((s for s, _ in scored), default=0.0)
        chosen = [Retrieved(i, round(s, 3)) for s, i in scored if i.always]
        ranked = sorted(((s, n, i) for n, (s, i) in enumerate(scored) if not i.always),
                        key=lambda p: (-p[0], p[1]))
        for score, _, item in ranked:
            if score >= MIN_SCORE and score >= MIN_RATIO * top:
                chosen.append(Retrieved(item, round(score, 3)))
        return chosen[:limit]


def rank_tables(tables: Sequence[tuple[str, str]], query: str, boost: Iterable[str] = ()) -> list[str]:
    """Table names ordered by relevance to `query`: BM25 over (name, text of names and descriptions), with the
    `boost` tables (e.g. those holding a value the question mentions) first among equals; ties keep the order."""
    index = BM25([words(f"{name} {text}") for name, text in tables])
    scores = index.scores(words(query))
    boosted = {b.lower() for b in boost}
    order = sorted(range(len(tables)), key=lambda i: (-(scores[i] + (2.0 if tables[i][0].lower() in boosted else 0)),
                                                      i))
    return [tables[i][0] for i in order]
