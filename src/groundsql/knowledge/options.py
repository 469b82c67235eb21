"""`KnowledgeOptions`: what the one renderer puts in front of the model (the ablation switches)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, ValidationError

from groundsql.errors import ConfigError
from groundsql.options import Options, register


class KnowledgeOptions(Options):
    """How much catalog and knowledge reaches generation prompts. Every preset accepts these options
    (`pipelines.registry.options_model` mixes them in), since every preset's prompts go through the renderer."""

    catalog_context: bool = Field(True, description="render the schema from the profiled catalog (descriptions, "
                                  "semantic types, values, ranges, inferred keys); false: plain DDL with rows")
    knowledge: bool = Field(True, description="retrieve rules, glossary terms, verified examples and document "
                            "chunks from the knowledge folder into the prompt")
    dialect_notes: bool = Field(True, description="add the shipped syntax notes of the database's dialect that "
                                "the question (or a draft query) needs")
    model_dialect: Literal["engine", "sqlite"] = Field(
        "sqlite", description="the SQL the model is asked to write its first queries in: SQLite's, which groundsql "
        "transpiles to the engine keeping SQLite's meaning (the same prompt on every engine: the schema as SQLite "
        "reads it), or the engine's own dialect; repairs are asked in the engine's dialect. No difference on "
        "SQLite databases")
    schema_budget_tokens: int = Field(6000, ge=200, description="most tokens the schema block may take; detail, "
                                      "then the least relevant tables, are cut beyond it")
    knowledge_budget_tokens: int = Field(900, ge=0, description="most tokens for retrieved knowledge items, value "
                                         "matches and dialect notes together")
    sample_rows: int = Field(3, ge=0, description="example rows shown under each table (dropped first when the "
                             "schema block is over budget)")
    max_items: int = Field(8, ge=0, description="most knowledge items (rules, terms, examples, chunks) retrieved")
    max_dialect_notes: int = Field(3, ge=0, description="most dialect notes shown for one prompt")
    knowledge_retriever: Literal["bm25", "embeddings", "hybrid"] = Field(
        "bm25", description="how knowledge items are found: BM25 over words (offline, no model), embedding "
        "similarity, or both combined; embeddings need the `vector` extra or an API embedding_model")
    embedding_model: str | None = Field(
        None, description="embedder for knowledge_retriever=embeddings or hybrid and for the vector linker: a local "
        "sentence-transformers name or path (default all-MiniLM-L6-v2), or openai:MODEL[@BASE_URL]")

    @classmethod
    def from_options(cls, options: dict[str, Any] | None) -> KnowledgeOptions:
        """The fields of this model found in a context's options dict (other keys are ignored)."""
        values = {k: v for k, v in (options or {}).items() if k in cls.model_fields}
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            problem = exc.errors()[0]
            name = ".".join(str(p) for p in problem["loc"])
            raise ConfigError(f"option {name}={values.get(name)!r}: {problem['msg']}") from None

    @property
    def plain(self) -> bool:
        """True when nothing beyond today's plain DDL is wanted (the 'no knowledge' ablation)."""
        return not (self.catalog_context or self.knowledge or self.dialect_notes)


register(KnowledgeOptions, "the knowledge renderer")
