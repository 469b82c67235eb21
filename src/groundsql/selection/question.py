"""What a question asks for, read from its words alone (no model): a number or a list, one row or several, a
stated count of rows, a superlative, distinct values, and the entity it names after 'which' / 'what'.

The reading is deliberately conservative: each field is set only on wording that leaves little doubt, because
the shape checks (`selection.shape`) turn a mismatch between this reading and a query into a warning and, for a
few shapes, into an exact rewrite. English only; questions in other languages read as 'nothing asserted'.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                 "nine": 9, "ten": 10, "twenty": 20}
#: Wording that asks for one number.
_COUNT = re.compile(r"\b(how many|how much|(?:the|total|a)\s+number of|^\s*count\b|(?:the|a) count of|"
                    r"total (?:number|count|amount)|"
                    r"what is the (?:total|sum|average|mean|maximum|minimum|max|min)|"
                    r"(?:average|mean|sum|total|maximum|minimum)\b)", re.IGNORECASE)
_HOW_MANY = re.compile(r"\b(how many|(?:the|total|a)\s+number of)\b|^\s*count\b|\b(?:the|a) count of\b",
                       re.IGNORECASE)
#: Wording that splits the answer into groups: the answer is a list even when it counts.
_GROUPING = re.compile(r"\b(each|every|per|for all|respectively|grouped|group(?:ed)? by|breakdown|"
                       r"distribution|by (?:each|every|type|year|month|country|category|status|region))\b",
                       re.IGNORECASE)
#: Superlatives and rank words: an answer restricted to the top (or bottom) rows.
_SUPERLATIVE = re.compile(
    r"\b(most|least|fewest|highest|lowest|largest|smallest|biggest|greatest|maximum|minimum|max|min|top|bottom|"
    r"best|worst|oldest|youngest|newest|latest|earliest|first|last|longest|shortest|cheapest|predominant(?:ly)?|"
    r"(?!(?:best|interest|latest|earliest|honest|forest|request|contest|protest|modest|harvest|digest|arrest|"
    r"invest|suggest|manifest|priest)\b)"
    r"[a-z]{3,}est)\b", re.IGNORECASE)
#: A stated number of rows: 'top 5', 'the 3 most', 'first ten', 'five highest'.
_ROW_COUNT = re.compile(
    r"\b(?:top|first|last|bottom)\s+(\d+|" + "|".join(_NUMBER_WORDS) + r")\b|"
    r"\b(\d+|" + "|".join(_NUMBER_WORDS) + r")\s+(?:most|least|highest|lowest|largest|smallest|best|worst|"
    r"oldest|youngest|newest|latest|earliest|biggest|cheapest|longest|shortest|[a-z]+est)\b", re.IGNORECASE)
#: Column-like phrases that read as superlatives but name a field.
_NOT_RANKING = re.compile(r"\b(first|last|middle|full)\s+names?\b|\blast\s+(?:update|login|modified)\w*|"
                          r"\bat\s+(?:least|most)\b",
                          re.IGNORECASE)
#: 'which 3 genres', 'the five customers', 'list 10 tracks' (small numbers only: 'the 2010 season' is a year).
_COUNTED_NOUN = re.compile(r"\b(?:which|what|the|list|show|find|give|return|name)\s+(\d{1,2}|"
                           + "|".join(_NUMBER_WORDS) + r")\s+[a-z]", re.IGNORECASE)
_DISTINCT = re.compile(r"\b(different|distinct|unique)\b", re.IGNORECASE)
_ALL = re.compile(r"\b(all|every)\b", re.IGNORECASE)
_ORDER = re.compile(r"\b(order(?:ed)?|sort(?:ed)?|rank(?:ed)?|ascending|descending|alphabetical(?:ly)?)\b",
                    re.IGNORECASE)
#: 'which genre …', 'what media type …', 'which 3 customers' → the entity the rows are about.
_ENTITY = re.compile(r"\b(?:which|what)\s+(?:\d+\s+)?((?:[a-z_]+\s){0,2}?[a-z_]+?)\s+"
                     r"(?:is|are|was|were|has|have|had|do|does|did|brings?|sells?|makes?|gets?|earns?|holds?|"
                     r"contains?|generates?|spends?|buys?|owns?|appears?|plays?|with|of|in|that|who|by|from|for)\b",
                     re.IGNORECASE)
_LIST_OPENERS = re.compile(r"^\s*(list|show|give|find|return|display|what are|which|who are|name)\b", re.IGNORECASE)
_ENTITY_STOP = {"the", "a", "an", "is", "are", "kind", "kinds", "type of", "number", "total", "average", "sum",
                "percentage", "share", "name", "names", "id", "ids", "year", "years", "time", "date", "value",
                "amount", "count", "many", "much"}


@dataclass(frozen=True)
class QuestionShape:
    """What the question's wording asks for (fields stay at their 'unknown' defaults on unclear wording)."""

    text: str
    one_number: bool = False  # 'how many …' with no grouping words: one row, one number
    counts: bool = False  # asks how many / the number of (grouped or not)
    grouped: bool = False  # 'each', 'per', 'for every': one row per group
    superlative: bool = False  # 'most', 'highest', 'top', '-est': a restriction to the top rows is expected
    row_count: int | None = None  # 'top 5', 'the three oldest'
    distinct: bool = False  # 'different', 'distinct', 'unique'
    all_rows: bool = False  # 'all', 'every'
    ordered: bool = False  # 'order by', 'sorted', 'ascending', 'descending'
    entity: str | None = None  # the noun after 'which' / 'what', lower case, singular
    words: frozenset[str] = field(default_factory=frozenset)  # the question's lower-case words (singular too)

    @property
    def restricts_rows(self) -> bool:
        """Whether a LIMIT (or TOP) can belong to the answer: a superlative or a stated number of rows."""
        return self.superlative or self.row_count is not None


@lru_cache(maxsize=1024)
def read_question(question: str) -> QuestionShape:
    """The shape `question` asks for, from its wording."""
    text = " ".join(question.split())
    grouped = bool(_GROUPING.search(text))
    counts = bool(_HOW_MANY.search(text))
    one_number = bool(_COUNT.search(text)) and not grouped and not _LIST_OPENERS.match(text)
    if counts and not grouped:
        one_number = True
    row_count = None
    plain = _NOT_RANKING.sub(" ", text)
    match = _ROW_COUNT.search(plain) or (_COUNTED_NOUN.search(plain) if _SUPERLATIVE.search(plain) else None)
    if match:
        token = next((g for g in match.groups() if g), "").lower()
        row_count = int(token) if token.isdigit() else _NUMBER_WORDS.get(token)
    words = frozenset(_words(text))
    return QuestionShape(
        text=text, one_number=one_number, counts=counts, grouped=grouped,
        superlative=bool(_SUPERLATIVE.search(_NOT_RANKING.sub(" ", text))), row_count=row_count, distinct=bool(_DISTINCT.search(text)),
        all_rows=bool(_ALL.search(text)), ordered=bool(_ORDER.search(text)), entity=_entity(text), words=words)


def singular(word: str) -> str:
    """A plain English singular of a lower-case word ('countries' → 'country', 'genres' → 'genre')."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ses", "xes", "ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _words(text: str) -> list[str]:
    plain = re.findall(r"[a-z0-9]+", text.lower())
    return plain + [singular(w) for w in plain]


def _entity(text: str) -> str | None:
    match = _ENTITY.search(text)
    if not match:
        return None
    phrase = match.group(1).lower().strip()
    if phrase in _ENTITY_STOP or phrase.split()[-1] in _ENTITY_STOP:
        return None
    return " ".join(singular(w) for w in phrase.split())
