"""Examples that teach structure (DAIL-SQL's selection): question → SQL pairs from other databases whose question
*skeleton* matches this one's. A skeleton is the question with its domain masked — words naming a table or column
of its own database become `NAME`, numbers and quoted or capitalised values become `VALUE` — so 'How many singers
are from France?' and 'How many ships are from Norway?' look alike while 'Which singers are not from France?'
does not. The pairs are shown under the schema (after the cached prefix), so only their tokens are new.

The bank is a Spider-format question file (`question`, `query`, `db_id`) whose databases sit beside it
(`<db>/<db>.sqlite` or `database/<db>/<db>.sqlite`), such as Spider's training split; its masks use each bank
database's own names. Examples from the database being asked about are never shown.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from pydantic import Field

from groundsql.context import Context
from groundsql.errors import ConfigError
from groundsql.generation.fewshot import cosine
from groundsql.options import Options
from groundsql.selection.question import singular

_TOKEN = re.compile(r"\"[^\"]*\"|'[^']*'|[A-Za-z]+|\d+(?:\.\d+)?")
#: Skeleton tokens that keep their word: they carry structure, never domain ('how many', 'not', 'each', 'most').
_KEEP = frozenset(["a", "an", "the", "of", "in", "on", "at", "to", "for", "from", "by", "with", "and", "or", "not", "no", "never", "without", "is", "are", "was", "were", "be", "been", "what", "which", "who", "whom", "whose", "when", "where", "how", "many", "much", "list", "show", "give", "find", "return", "all", "each", "every", "per", "that", "this", "these", "those", "than", "more", "less", "most", "least", "fewest", "greatest", "highest", "lowest", "largest", "smallest", "top", "first", "last", "average", "total", "sum", "number", "count", "maximum", "minimum", "both", "either", "any", "some", "only", "also", "other", "different", "distinct", "unique", "order", "sorted", "ascending", "descending", "alphabetical", "do", "does", "did", "have", "has", "had", "their", "its", "there", "before", "after", "between", "over", "under", "above", "below", "same", "name", "names"])


class StructureExampleOptions(Options):
    """Few-shot examples chosen by question skeleton (off by default: it needs a bank of question → SQL pairs)."""

    structure_examples: int = Field(0, ge=0, le=8, description="examples whose question skeleton matches, shown "
                                                                "under the schema in the first prompt (0: none)")
    examples_bank: str | None = Field(None, description="their bank: a Spider-format question file (question, "
                                                        "query, db_id) with its databases beside it")


@dataclass(frozen=True)
class BankExample:
    question: str
    sql: str
    db_id: str
    vector: Counter[str]


def skeleton(question: str, names: frozenset[str]) -> list[str]:
    """The question's words with its domain masked: schema words → NAME, values → VALUE (runs collapsed)."""
    out: list[str] = []
    for position, token in enumerate(_TOKEN.findall(question)):
        lower = token.lower()
        if token[0] in "'\"" or token[0].isdigit():
            word = "VALUE"
        elif lower in _KEEP:
            word = lower
        elif lower in names or singular(lower) in names:
            word = "NAME"
        elif token[0].isupper() and position > 0:
            word = "VALUE"
        else:
            word = lower
        if not (out and word in ("NAME", "VALUE") and out[-1] == word):
            out.append(word)
    return out


def vector(words: list[str]) -> Counter[str]:
    """Unigrams, bigrams and trigrams of a skeleton (order matters: 'not from' differs from 'from … not')."""
    grams: Counter[str] = Counter(f"1:{w}" for w in words)
    grams.update(f"2:{a}_{b}" for a, b in zip(words, words[1:]))
    grams.update(f"3:{a}_{b}_{c}" for a, b, c in zip(words, words[1:], words[2:]))
    return grams


def schema_words(tables: dict[str, list[str]]) -> frozenset[str]:
    """Every word of every table and column name, singular forms too ('MediaTypeId' → media, type, id)."""
    words: set[str] = set()
    for table, columns in tables.items():
        for name in (table, *columns):
            spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
            for word in re.findall(r"[a-z]+", spaced.lower()):
                if len(word) > 2 and word not in _KEEP:
                    words.update({word, singular(word)})
    return frozenset(words)


@cache
def load_bank(path: str) -> tuple[BankExample, ...]:
    """The bank's examples with their skeleton vectors (read once per process)."""
    file = Path(path).expanduser()
    if not file.is_file():
        raise ConfigError(f"examples bank not found: {file}")
    try:
        records = json.loads(file.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ConfigError(f"examples bank {file} is not JSON: {exc}") from None
    names: dict[str, frozenset[str]] = {}
    examples = []
    for record in records:
        db_id, question = record.get("db_id", ""), record.get("question")
        sql = record.get("query") or record.get("SQL")
        if not question or not isinstance(sql, str):
            continue
        if db_id not in names:
            names[db_id] = schema_words(_bank_tables(file.parent, db_id))
        examples.append(BankExample(question, sql.strip(), db_id, vector(skeleton(question, names[db_id]))))
    if not examples:
        raise ConfigError(f"examples bank {file} holds no question with its query")
    return tuple(examples)


def _bank_tables(root: Path, db_id: str) -> dict[str, list[str]]:
    for candidate in (root / db_id / f"{db_id}.sqlite", root / "database" / db_id / f"{db_id}.sqlite"):
        if candidate.is_file():
            conn = sqlite3.connect(f"file:{candidate}?mode=ro", uri=True)
            try:
                tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
                return {t: [r[1] for r in conn.execute(f'PRAGMA table_info("{t}")')] for t in tables}
            finally:
                conn.close()
    return {}


def similar_structure(question: str, names: frozenset[str], bank: tuple[BankExample, ...], k: int, *,
                      exclude_db: str | None = None) -> list[BankExample]:
    """The `k` bank examples whose skeleton is nearest to the question's; ties keep bank order."""
    query = vector(skeleton(question, names))
    scored = [(cosine(query, e.vector), -index, e) for index, e in enumerate(bank)
              if not (exclude_db and e.db_id == exclude_db)]
    scored.sort(key=lambda item: (item[0], item[1]), reverse=True)
    return [e for _, _, e in scored[:k]]


def structure_examples_block(ctx: Context) -> str:
    """The examples block for the first prompt ('' when the switch is off)."""
    options = ctx.settings(StructureExampleOptions)
    if not options.structure_examples or not options.examples_bank:
        return ""
    bank = load_bank(str(options.examples_bank))
    names = schema_words({t.name: [c.name for c in t.columns] for t in ctx.schema.tables})
    chosen = similar_structure(ctx.question, names, bank, options.structure_examples,
                               exclude_db=ctx.db_id or None)
    ctx.trace.note("structure_examples", questions=[e.question for e in chosen])
    body = "\n\n".join(f"Question: {e.question}\nSQL: {' '.join(e.sql.split())}" for e in chosen)
    return f"Questions of the same shape on other databases, with their SQL:\n\n{body}\n"
