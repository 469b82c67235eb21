"""The user's knowledge about a database, the shipped dialect notes, retrieval, and the one prompt renderer.

Public API::

    from groundsql.knowledge import load_knowledge, render_context, KnowledgeOptions

    knowledge = load_knowledge("shop.sqlite.knowledge", db)   # rules, glossary, examples, docs, descriptions
    context = render_context(ctx, linked={"orders": ["status"]})
    context.schema      # stable per database: DDL + descriptions, semantic types, values, ranges, keys, rows
    context.knowledge   # this question's: value matches, retrieved rules/terms/examples/chunks, dialect notes
"""

from groundsql.knowledge.grounding import load_for, options_of, prepare, shared_catalog
from groundsql.knowledge.items import DocChunk, Item, Knowledge, Rule, Term, VerifiedExample
from groundsql.knowledge.loader import cached_knowledge, check_example, discover_folder, load_knowledge
from groundsql.knowledge.options import KnowledgeOptions
from groundsql.knowledge.render import (
    PromptContext,
    draft_notes,
    knowledge_text,
    pruned_table,
    render_context,
    render_text,
    retrieve,
)
from groundsql.knowledge.retrieval import KnowledgeRetriever, Retrieved, retriever_for

__all__ = [
    "DocChunk", "Item", "Knowledge", "KnowledgeOptions", "KnowledgeRetriever", "PromptContext", "Retrieved", "Rule",
    "Term", "VerifiedExample", "cached_knowledge", "check_example", "discover_folder", "draft_notes", "knowledge_text", "load_for",
    "load_knowledge",
    "options_of", "prepare", "pruned_table", "render_context", "render_text", "retrieve", "retriever_for", "shared_catalog",
]
