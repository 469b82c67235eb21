"""Few-shot examples by similarity (PET-SQL / SSEV §3.1.1): the question–SQL pairs nearest to the question.

Similarity is the cosine of sparse lexical embeddings (word unigrams and bigrams plus character trigrams,
with literal values masked so that structure, not entity names, drives the match). Examples from the
database being asked about are excluded when their `db_id` matches, as Spider evaluation requires.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import Field

from groundsql.errors import ConfigError
from groundsql.options import Options

_WORD = re.compile(r"[a-z]+|\d+")


@dataclass(frozen=True)
class Example:
    question: str
    sql: str
    db_id: str = ""


def embed(text: str) -> Counter[str]:
    """A sparse vector: masked words, word bigrams and character trigrams."""
    masked = re.sub(r"\"[^\"]*\"|'[^']*'", " value ", text.lower())
    words = ["num" if w.isdigit() else w for w in _WORD.findall(masked)]
    vector: Counter[str] = Counter(f"w:{w}" for w in words)
    vector.update(f"b:{a}_{b}" for a, b in zip(words, words[1:]))
    joined = " ".join(words)
    vector.update(f"c:{joined[i:i + 3]}" for i in range(max(len(joined) - 2, 0)))
    return vector


def cosine(a: Counter[str], b: Counter[str]) -> float:
    if not a or not b:
        return 0.0
    dot = sum(value * b.get(key, 0) for key, value in a.items())
    norm = math.sqrt(sum(v * v for v in a.values())) * math.sqrt(sum(v * v for v in b.values()))
    return dot / norm if norm else 0.0


class FewShotOptions(Options):
    fewshot: int = Field(3, ge=0, description="similar examples shown per prompt (0: none)")
    examples: list[Any] | None = Field(None, exclude=True, description="few-shot examples: records with "
                                                                       "question and sql (API only)")
    examples_path: str | None = Field(None, description="few-shot examples: a JSON file in Spider's format")


class ExamplePool:
    """Question–SQL pairs with their embeddings, searchable by similarity."""

    def __init__(self, examples: list[Example]):
        self.examples = list(examples)
        self._vectors = [embed(e.question) for e in self.examples]

    def similar(self, question: str, k: int = 3, *, exclude_db: str | None = None) -> list[Example]:
        """The `k` examples nearest to `question`, never from database `exclude_db`; ties keep pool order."""
        query = embed(question)
        scored = [(cosine(query, vector), -index, example)
                  for index, (example, vector) in enumerate(zip(self.examples, self._vectors))
                  if not (exclude_db and example.db_id == exclude_db)]
        scored.sort(reverse=True)
        return [example for _, _, example in scored[:k]]

    @classmethod
    def from_records(cls, records: list[Any]) -> ExamplePool:
        """From `Example`s or dicts with question and sql (or Spider's query) and an optional db_id."""
        examples = []
        for record in records:
            if isinstance(record, Example):
                examples.append(record)
                continue
            # Spider records carry the SQL text as `query` and a parsed tree as `sql`: take the first text.
            sql = next((v for v in (record.get("query"), record.get("sql"), record.get("SQL"))
                        if isinstance(v, str) and v.strip()), None)
            if not record.get("question") or not sql:
                raise ConfigError("every example needs a question and its sql")
            examples.append(Example(question=record["question"], sql=sql, db_id=record.get("db_id", "")))
        return cls(examples)

    @classmethod
    def from_file(cls, path: str | Path) -> ExamplePool:
        """A JSON list in Spider's format (question, query, db_id) or with sql instead of query."""
        file = Path(path)
        if not file.exists():
            raise ConfigError(f"examples file not found: {file}")
        return cls.from_records(json.loads(file.read_text(encoding="utf-8")))


def example_pool(options: FewShotOptions) -> ExamplePool | None:
    """The pool named by the options `examples` (records) or `examples_path` (a file; read once per process)."""
    if options.examples:
        return ExamplePool.from_records(list(options.examples))
    if options.examples_path:
        return _pool_from_file(str(options.examples_path))
    return None


@cache
def _pool_from_file(path: str) -> ExamplePool:
    return ExamplePool.from_file(path)


def render_examples(examples: list[Example]) -> str:
    if not examples:
        return ""
    body = "\n\n".join(f"Question: {e.question}\nSQL: {e.sql.strip()}" for e in examples)
    return f"Examples of questions and their SQL on other databases:\n\n{body}\n\n"
