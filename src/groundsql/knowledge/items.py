"""What a knowledge folder holds: rules, glossary terms, verified examples, document chunks."""

from __future__ import annotations

from dataclasses import dataclass, field

from groundsql.catalog.descriptions import Descriptions

#: Kinds of retrievable items, in the order the prompt shows them.
KINDS = ("rule", "term", "example", "doc", "dialect")


@dataclass(frozen=True)
class Item:
    """One retrievable piece of knowledge, as the model sees it.

    Attributes:
        kind: rule | term | example | doc | dialect.
        text: the prompt text.
        source: where it came from, as ``file:line`` (or ``dialect:sqlite/dates``).
        keywords: extra words that make it findable (synonyms, scoped table and column names).
        tables: tables it is scoped to (empty: the whole database).
        always: shown for every question, whatever the retrieval score.
    """

    kind: str
    text: str
    source: str
    keywords: str = ""
    tables: tuple[str, ...] = ()
    always: bool = False


@dataclass(frozen=True)
class Rule:
    """A business rule in plain language, optionally scoped to tables and columns."""

    text: str
    source: str
    tables: tuple[str, ...] = ()
    columns: tuple[str, ...] = ()
    always: bool = False
    keywords: tuple[str, ...] = ()  # words of questions the rule should be found for

    def item(self) -> Item:
        return Item("rule", self.text, self.source, " ".join(self.tables + self.columns + self.keywords), self.tables,
                    self.always)


@dataclass(frozen=True)
class Term:
    """A glossary entry: a term (and its synonyms) that means a column, a value or an expression."""

    term: str
    means: str
    source: str
    synonyms: tuple[str, ...] = ()
    note: str = ""

    def item(self) -> Item:
        names = ", ".join(repr(t) for t in (self.term, *self.synonyms))
        text = f"{names} means {self.means}" + (f" ({self.note})" if self.note else "")
        return Item("term", text, self.source, " ".join((self.term, *self.synonyms)))


@dataclass(frozen=True)
class VerifiedExample:
    """A question with SQL that is known to answer it on this database (checked to run when loaded)."""

    question: str
    sql: str
    source: str

    def item(self) -> Item:
        return Item("example", f"Question: {self.question}\nSQL: {self.sql.strip()}", self.source, self.sql)


@dataclass(frozen=True)
class DocChunk:
    """A section of a user document, cut at its headings."""

    title: str
    text: str
    source: str

    def item(self) -> Item:
        heading = f"{self.title}: " if self.title else ""
        return Item("doc", heading + self.text, self.source, self.title)


@dataclass
class Knowledge:
    """Everything loaded from one knowledge folder (all parts optional)."""

    folder: str | None = None
    rules: list[Rule] = field(default_factory=list)
    terms: list[Term] = field(default_factory=list)
    examples: list[VerifiedExample] = field(default_factory=list)
    chunks: list[DocChunk] = field(default_factory=list)
    descriptions: Descriptions = field(default_factory=Descriptions)
    #: accepted values from dbt tests: (table, column) → values
    known_values: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    #: relationships from dbt tests: (table, column, ref_table, ref_column)
    relationships: list[tuple[str, str, str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def items(self) -> list[Item]:
        """Every retrievable item: rules, terms, examples, document chunks."""
        return ([r.item() for r in self.rules] + [t.item() for t in self.terms]
                + [e.item() for e in self.examples] + [c.item() for c in self.chunks])

    @property
    def has_descriptions(self) -> bool:
        return bool(self.descriptions.tables or self.descriptions.columns or self.known_values)

    @property
    def empty(self) -> bool:
        return not (self.rules or self.terms or self.examples or self.chunks or self.has_descriptions
                    or self.relationships)

    def documents_text(self, limit_chars: int = 4000) -> str:
        """Rules, glossary entries and document chunks as plain text (for enrichment prompts), cut at `limit_chars`."""
        lines = [f"- {r.text}" for r in self.rules] + [f"- {t.item().text}" for t in self.terms]
        lines += [c.item().text for c in self.chunks]
        text = "\n".join(lines)
        return text if len(text) <= limit_chars else text[: limit_chars - 1] + "…"

    def counts(self) -> dict[str, int]:
        return {"rules": len(self.rules), "terms": len(self.terms), "examples": len(self.examples),
                "doc_chunks": len(self.chunks), "described_tables": len(self.descriptions.tables),
                "described_columns": sum(len(c) for c in self.descriptions.columns.values()),
                "known_value_columns": len(self.known_values), "relationships": len(self.relationships)}
