"""A lexical retriever: BM25 over name, description and value words, plus fuzzy matching of names.

The default backend of the `vector` linker when no embedding model is installed; small and dependency-light
(rapidfuzz only).
"""

from __future__ import annotations

import math
import re
from collections import Counter

from rapidfuzz import fuzz

_WORD = re.compile(r"[A-Za-z]+|\d+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_STOPWORD_TEXT = (
    "a an the of in on at to for from by with and or not no is are was were be been what which who whom whose "
    "how many much list show give find all each every that this these those than then there their its it as "
    "do does did have has had i me my we our you your they them he she his her per any some please return "
    "display tell get"
)
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def words(text: str) -> list[str]:
    """Lower-case word stems of `text`: snake_case and camelCase split, plural 's' dropped, stopwords removed."""
    spaced = _CAMEL.sub(" ", text.replace("_", " "))
    found = []
    for word in _WORD.findall(spaced):
        lowered = word.lower()
        if lowered in STOPWORDS:
            continue
        if len(lowered) > 3 and lowered.endswith("s") and not lowered.endswith("ss"):
            lowered = lowered[:-1]
        found.append(lowered)
    return found


class BM25:
    """Okapi BM25 over pre-tokenised documents."""

    def __init__(self, documents: list[list[str]], k1: float = 1.2, b: float = 0.75):
        self.documents = [Counter(d) for d in documents]
        self.lengths = [len(d) for d in documents]
        self.average = (sum(self.lengths) / len(self.lengths)) if self.lengths else 0.0
        self.k1, self.b = k1, b
        frequency: Counter[str] = Counter()
        for doc in self.documents:
            frequency.update(doc.keys())
        n = len(self.documents)
        self.idf = {term: math.log(1 + (n - df + 0.5) / (df + 0.5)) for term, df in frequency.items()}

    def scores(self, query: list[str]) -> list[float]:
        result = []
        for doc, length in zip(self.documents, self.lengths):
            score = 0.0
            norm = self.k1 * (1 - self.b + self.b * length / self.average) if self.average else self.k1
            for term in query:
                tf = doc.get(term)
                if tf:
                    score += self.idf[term] * tf * (self.k1 + 1) / (tf + norm)
            result.append(score)
        return result


class LexicalRetriever:
    """Scores documents for a query: normalised BM25 plus fuzzy similarity to each document's name words."""

    backend = "lexical"

    def __init__(self, texts: list[str], names: list[str]):
        self.names = [" ".join(words(n)) for n in names]
        self.bm25 = BM25([words(t) for t in texts])

    def scores(self, query: str) -> list[float]:
        """0..1 per document: BM25 relative to the best document, plus a bonus when the whole phrase is
        (nearly) the document's name (catches misspellings such as 'stadum capacity')."""
        terms = words(query)
        if not terms:
            return [0.0] * len(self.names)
        raw = self.bm25.scores(terms)
        top = max(raw) or 1.0
        phrase = " ".join(terms)
        result = []
        for value, name in zip(raw, self.names):
            # plain edit similarity: a one-word phrase must not match every name that merely contains it
            fuzzy = fuzz.ratio(phrase, name) / 100 if name else 0.0
            result.append(0.7 * value / top + 0.3 * (fuzzy if fuzzy >= 0.8 else 0.0))
        return result
