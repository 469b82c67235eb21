"""A lexical retriever: BM25 over name, description and value words, plus fuzzy matching of names.

The default backend of the `vector` linker when no embedding model is installed; small and dependency-light
(rapidfuzz only).
"""

from __future__ import annotations

from rapidfuzz import fuzz

from groundsql.knowledge.retrieval import BM25
from groundsql.knowledge.retrieval import words as _words

_STOPWORD_TEXT = (
    "a an the of in on at to for from by with and or not no is are was were be been what which who whom whose "
    "how many much list show give find all each every that this these those than then there their its it as "
    "do does did have has had i me my we our you your they them he she his her per any some please return "
    "display tell get"
)
#: Linking keeps 'select' and 'where' (knowledge retrieval drops them): names of columns can hold them.
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def words(text: str) -> list[str]:
    """Lower-case word stems of `text`: snake_case and camelCase split, plural 's' dropped, stopwords removed."""
    return _words(text, STOPWORDS)


class LexicalRetriever:
    """Scores documents for a query: normalised BM25 plus fuzzy similarity to each document's name words."""

    backend = "lexical"

    def __init__(self, texts: list[str], names: list[str]):
        self.names = [" ".join(words(n)) for n in names]
        self.bm25 = BM25([words(t) for t in texts])

    def scores_many(self, queries: list[str]) -> list[list[float]]:
        """`scores` for each query."""
        return [self.scores(query) for query in queries]

    def scores(self, query: str) -> list[float]:
        """0..1 per document: BM25 relative to the best document, plus a bonus when the whole phrase is
        (nearly) the document's name (catches misspellings such as 'stadum capacity')."""
        terms = words(query)
        if not terms:
            return [0.0] * len(self.names)
        raw = self.bm25.scores(terms, unique=False)
        top = max(raw) or 1.0
        phrase = " ".join(terms)
        result = []
        for value, name in zip(raw, self.names):
            # plain edit similarity: a one-word phrase must not match every name that merely contains it
            fuzzy = fuzz.ratio(phrase, name) / 100 if name else 0.0
            result.append(0.7 * value / top + 0.3 * (fuzzy if fuzzy >= 0.8 else 0.0))
        return result
