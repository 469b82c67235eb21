"""Retrieval of knowledge items (and ranking of tables) for one question: BM25 over words, offline (the default),
or embedding similarity, or both (`knowledge_retriever`).

Words are lower-cased, snake_case and camelCase are split, a plural 's' is dropped and common question words are
ignored, so "active customers" finds a rule about "an active customer" and a column named ``customerStatus``.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from groundsql.errors import ConfigError
from groundsql.knowledge import embeddings
from groundsql.knowledge.embeddings import EmbeddingRetriever
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
#: The least cosine similarity (or hybrid score) that counts when embeddings retrieve.
MIN_COSINE = 0.3


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
    """BM25 over the text and keywords of knowledge items (the offline default)."""

    backend = "bm25"
    #: An item is kept when its score reaches `min_score` and `min_ratio` of the best item's score.
    min_score, min_ratio = MIN_SCORE, MIN_RATIO

    def __init__(self, items: Sequence[Item]):
        self.items = list(items)
        self.index = BM25([words(document(i)) for i in self.items])

    def raw_scores(self, query: str) -> list[float]:
        """One score per item, in item order."""
        return self.index.scores(words(query))

    def search(self, query: str, *, limit: int = 8, tables: Iterable[str] | None = None) -> list[Retrieved]:
        """The items that match `query`, best first: `always` items, then those scoring at least `min_score` and
        `min_ratio` of the best. An item scoped to tables none of which is in `tables` counts half."""
        if not self.items or limit <= 0:
            return []
        shown = {t.lower() for t in tables} if tables is not None else None
        raw = self.raw_scores(query)
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
            if score >= self.min_score and score >= self.min_ratio * top:
                chosen.append(Retrieved(item, round(score, 3)))
        return chosen[:limit]


class EmbeddingKnowledgeRetriever(KnowledgeRetriever):
    """Cosine similarity of embeddings (`knowledge.embeddings`): finds a rule about "clients who left" for
    "churned customers", which share no word."""

    backend = "embeddings"
    # all-MiniLM-L6-v2 gives related question/passage pairs about 0.4-0.7 and unrelated ones below 0.2
    min_score, min_ratio = MIN_COSINE, 0.7

    def __init__(self, items: Sequence[Item], embedder: Any):
        super().__init__(items)
        self.embedded = EmbeddingRetriever([document(i) for i in self.items], embedder)

    def raw_scores(self, query: str) -> list[float]:
        return self.embedded.scores(query)


class HybridKnowledgeRetriever(EmbeddingKnowledgeRetriever):
    """BM25 (scaled to the best item) and cosine similarity, averaged: exact words and meaning both count."""

    backend = "hybrid"
    min_score, min_ratio = MIN_COSINE, MIN_RATIO

    def raw_scores(self, query: str) -> list[float]:
        lexical = self.index.scores(words(query))
        top = max(lexical, default=0.0) or 1.0
        return [0.5 * b / top + 0.5 * max(c, 0.0) for b, c in zip(lexical, self.embedded.scores(query))]


def document(item: Item) -> str:
    """The text an item is found by: its text and keywords."""
    return f"{item.text} {item.keywords}"


_RETRIEVERS: dict[tuple[int, str, str], tuple[Any, KnowledgeRetriever]] = {}
_RETRIEVERS_LOCK = threading.Lock()
#: Retrievers kept at once (each holds its items' index, embeddings included).
MAX_RETRIEVERS = 32


def retriever_for(knowledge: Any, kind: str = "bm25", embedding_model: str | None = None) -> KnowledgeRetriever:
    """The `kind` retriever (bm25, embeddings, hybrid) over `knowledge`'s items, built once per loaded knowledge
    (embedding every item is the costly part).

    Raises:
        ConfigError: embeddings are asked for but no embedder is usable here (see `knowledge.embeddings`).
    """
    key = (id(knowledge), kind, embedding_model or "")
    with _RETRIEVERS_LOCK:
        found = _RETRIEVERS.get(key)
        if found is not None and found[0] is knowledge:
            return found[1]
    items = knowledge.items()
    if kind == "bm25":
        retriever: KnowledgeRetriever = KnowledgeRetriever(items)
    elif kind in ("embeddings", "hybrid"):
        model = embeddings.embedder(embedding_model)
        cls = EmbeddingKnowledgeRetriever if kind == "embeddings" else HybridKnowledgeRetriever
        retriever = cls(items, model)
    else:
        raise ConfigError(f"unknown knowledge_retriever {kind!r}; use bm25, embeddings or hybrid")
    with _RETRIEVERS_LOCK:
        while len(_RETRIEVERS) >= MAX_RETRIEVERS:  # a reloaded folder's old retrievers go first
            del _RETRIEVERS[next(iter(_RETRIEVERS))]
        _RETRIEVERS[key] = (knowledge, retriever)
    return retriever


def rank_tables(tables: Sequence[tuple[str, str]], query: str, boost: Iterable[str] = ()) -> list[str]:
    """Table names ordered by relevance to `query`: BM25 over (name, text of names and descriptions), with the
    `boost` tables (e.g. those holding a value the question mentions) first among equals; ties keep the order."""
    index = BM25([words(f"{name} {text}") for name, text in tables])
    scores = index.scores(words(query))
    boosted = {b.lower() for b in boost}
    order = sorted(range(len(tables)), key=lambda i: (-(scores[i] + (2.0 if tables[i][0].lower() in boosted else 0)),
                                                      i))
    return [tables[i][0] for i in order]
