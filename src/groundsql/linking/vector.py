"""`vector` (AgentNLQ §3.3.2): question entities matched against column and table descriptions; top-k columns.

Each column is one document: its table's and its own name words, type, description and a few stored values.
With sentence-transformers installed the documents and entities are embedded (all-MiniLM-L6-v2); otherwise a
lexical retriever (BM25 plus fuzzy name matching) scores them. The kept tables get their key columns too.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field

from groundsql.catalog.schema import Schema
from groundsql.context import Context
from groundsql.errors import ConfigError
from groundsql.knowledge import embeddings
from groundsql.knowledge.options import KnowledgeOptions
from groundsql.linking.common import ask_json, candidate_schema
from groundsql.linking.grounding import value_index
from groundsql.linking.lexical import STOPWORDS, LexicalRetriever, words
from groundsql.linking.options import LinkOptions
from groundsql.linking.registry import linker
from groundsql.linking.subset import SchemaSubset
from groundsql.options import Options
from groundsql.prompts import evidence_block, render

log = logging.getLogger("groundsql")

DEFAULT_K = 10
VALUES_PER_DOCUMENT = 5
ENTITY_SCHEMA = {"type": "object", "properties": {"entities": {"type": "array", "items": {"type": "string"}}},
                 "required": ["entities"]}
TABLE_WEIGHT = 0.5
_RETRIEVERS: OrderedDict[tuple, _Index] = OrderedDict()
_RETRIEVER_CACHE_SIZE = 8


class VectorOptions(Options):
    vector_k: int = Field(DEFAULT_K, ge=1, description="columns kept by the vector search")
    vector_backend: Literal["auto", "embedding", "lexical"] = Field(
        "auto", description="embedding model, BM25 with fuzzy matching, or embeddings when installed")
    vector_entities: Literal["lexical", "model"] = Field(
        "lexical", description="question entities: spans of the question, or asked of the model")
    vector_values: bool = Field(True, description="add stored example values to the column documents")
    vector_groups: int = Field(0, ge=0, description="keep only this many best joinable groups of tables "
                                                    "(0: all)")
    vector_tables: int = Field(0, ge=0, description="also keep this many best-matching tables by their table "
                                                    "documents, each with its best columns (0: none)")


@linker("vector", "AgentNLQ vector search: question entities vs column descriptions (embeddings or BM25+fuzzy)",
        options=VectorOptions)
def vector(ctx: Context, previous: SchemaSubset | None) -> SchemaSubset:
    """Retrieve the `vector_k` columns nearest to the question's entities (see `VectorOptions`)."""
    schema = candidate_schema(ctx, previous)
    k = ctx.settings(VectorOptions).vector_k
    index = _retriever(ctx, schema)
    pairs, retriever = index.pairs, index.columns
    entities = extract_entities(ctx)
    queries = entities + [ctx.question]
    best = [0.0] * len(pairs)
    matched: list[str] = [""] * len(pairs)
    table_best = [0.0] * len(index.table_names)
    for query, tables, columns in zip(queries, index.tables.scores_many(queries), retriever.scores_many(queries)):
        table_best = [max(a, b) for a, b in zip(table_best, tables)]
        for position, score in enumerate(columns):
            # a column whose table matches the query too ranks higher: keeps the columns of one coherent
            # table together instead of same-named columns scattered over a large schema
            score += TABLE_WEIGHT * tables[index.table_of[position]]
            if score > best[position]:
                best[position], matched[position] = score, query
    ranked = sorted(range(len(pairs)), key=lambda i: -best[i])[:k]
    subset = SchemaSubset()
    for position in ranked:
        if best[position] <= 0:
            continue
        table, column = pairs[position]
        subset.add(table, role="target", reason="holds columns matching the question")
        subset.add(table, column, reason=f"matches {matched[position]!r} ({retriever.backend} score "
                                         f"{best[position]:.2f})")
    _add_best_tables(subset, index, table_best, best, ctx.settings(VectorOptions).vector_tables)
    groups = ctx.settings(VectorOptions).vector_groups
    if groups > 0:
        _keep_best_groups(ctx, subset, {pairs[i]: best[i] for i in ranked}, groups)
    for name in list(subset.tables):
        table = schema.table(name)
        keys = list(table.primary_key) + [c for fk in table.foreign_keys for c in fk.columns]
        for key in keys:
            if not subset.has(table.name, key):
                subset.add(table.name, key, reason="key of a retrieved table")
    subset.notes.append(f"{retriever.backend} retrieval; entities: {', '.join(entities)}")
    if not subset.tables:
        subset = SchemaSubset.from_schema(schema, reason="nothing retrieved")
    return subset


def _add_best_tables(subset: SchemaSubset, index: _Index, table_best: list[float], best: list[float],
                     count: int, columns: int = 3) -> None:
    """The `count` tables whose own documents match the question best, each with its `columns` best columns."""
    if count <= 0:
        return
    ranked = sorted(range(len(table_best)), key=lambda i: -table_best[i])[:count]
    for table_position in ranked:
        if table_best[table_position] <= 0:
            continue
        name = index.table_names[table_position]
        subset.add(name, role="target", reason=f"its table document matches the question "
                                               f"(score {table_best[table_position]:.2f})")
        own = [i for i, t in enumerate(index.table_of) if t == table_position]
        for position in sorted(own, key=lambda i: -best[i])[:columns]:
            if not subset.has(name, index.pairs[position][1]):
                subset.add(name, index.pairs[position][1], reason="a best column of a best-matching table")


def extract_entities(ctx: Context) -> list[str]:
    """Phrases of the question that may name tables, columns or values."""
    if ctx.settings(VectorOptions).vector_entities == "model":
        messages = [{"role": "user", "content": render("link_entities", question=ctx.question,
                                                       evidence_block=evidence_block(ctx.evidence))}]
        value = ask_json(ctx, "link.entities", messages, role="generator", max_tokens=200, schema=ENTITY_SCHEMA)[0]
        entities = value.get("entities") if isinstance(value, dict) else None
        found = [str(e) for e in entities or [] if str(e).strip()] if isinstance(entities, list) else []
        if found:
            return found
    return lexical_entities(ctx.question + (f" {ctx.evidence}" if ctx.evidence else ""))


def lexical_entities(text: str) -> list[str]:
    """Runs of consecutive non-stopwords, and each of their words."""
    chunks: list[list[str]] = [[]]
    for token in text.replace("?", " ").replace(",", " ").replace(".", " ").split():
        stripped = token.strip("'\"()")
        if not stripped or stripped.lower() in STOPWORDS or not words(stripped):
            chunks.append([])
        else:
            chunks[-1].append(stripped)
    entities: list[str] = []
    for chunk in chunks:
        for phrase in ([" ".join(chunk)] if len(chunk) > 1 else []) + chunk:
            if phrase and phrase.lower() not in (e.lower() for e in entities):
                entities.append(phrase)
    return entities


def column_documents(ctx: Context, schema: Schema) -> tuple[list[tuple[str, str]], list[str], list[str]]:
    """(table, column) pairs, their documents and their bare names, in schema order."""
    index = value_index(ctx) if ctx.settings(VectorOptions).vector_values else None
    values = getattr(index, "values", {}) or {}
    pairs, texts, names = [], [], []
    for table in schema.tables:
        stored = values.get(table.name, {})
        for column in table.columns:
            parts = [table.name.replace("_", " "), column.name.replace("_", " "), column.type or ""]
            if table.comment:
                parts.append(table.comment)
            if column.description or column.comment:
                parts.append(str(column.description or column.comment))
            sample = stored.get(column.name) or []
            if sample:
                parts.append("values: " + ", ".join(sample[:VALUES_PER_DOCUMENT]))
            pairs.append((table.name, column.name))
            texts.append(" ".join(parts))
            names.append(f"{table.name} {column.name}")
    return pairs, texts, names


@dataclass
class _Index:
    pairs: list[tuple[str, str]]  # (table, column) per column document
    columns: Any  # retriever over column documents
    tables: Any  # retriever over table documents
    table_of: list[int]  # column document → its table document
    table_names: list[str]  # the table of each table document


def table_documents(schema: Schema) -> tuple[list[str], list[str]]:
    """One document per table: its name words, comment and every column name."""
    texts, names = [], []
    for table in schema.tables:
        parts = [table.name.replace("_", " "), table.comment or ""]
        parts += [c.name.replace("_", " ") for c in table.columns]
        texts.append(" ".join(parts))
        names.append(table.name)
    return texts, names


def _retriever(ctx: Context, schema: Schema) -> _Index:
    backend = ctx.settings(VectorOptions).vector_backend
    spec = ctx.settings(KnowledgeOptions).embedding_model
    use_embeddings = backend == "embedding" or (backend == "auto" and (
        embeddings.available() or bool(spec and spec.startswith(embeddings.API_PREFIX))))
    pairs, texts, names = column_documents(ctx, schema)
    # the documents are part of the key: descriptions laid over the catalog (knowledge folders) change them
    key = (ctx.db.display, tuple(t.name for t in schema.tables), use_embeddings, spec, hash(tuple(texts)))
    if key in _RETRIEVERS:
        _RETRIEVERS.move_to_end(key)
        return _RETRIEVERS[key]
    table_texts, table_names = table_documents(schema)
    position = {name: i for i, name in enumerate(table_names)}
    table_of = [position[table] for table, _ in pairs]
    index: _Index | None = None
    if use_embeddings:
        try:
            model = embeddings.embedder(spec)
            index = _Index(pairs, embeddings.EmbeddingRetriever(texts, model),
                           embeddings.EmbeddingRetriever(table_texts, model), table_of, table_names)
        except Exception as exc:  # missing weights or a broken torch: fall back rather than fail the question
            if backend == "embedding":
                raise ConfigError(f"the embedding backend is not usable here: {exc}; install "
                                  "'groundsql[vector]' or use vector_backend='lexical'") from exc
            log.warning("embedding model unavailable (%s); using lexical retrieval", exc)
    if index is None:
        index = _Index(pairs, LexicalRetriever(texts, names), LexicalRetriever(table_texts, table_names), table_of,
                       table_names)
    _RETRIEVERS[key] = index
    while len(_RETRIEVERS) > _RETRIEVER_CACHE_SIZE:
        _RETRIEVERS.popitem(last=False)
    return index


def _keep_best_groups(ctx: Context, subset: SchemaSubset, scores: dict[tuple[str, str], float], keep: int) -> None:
    """Keep only the `keep` best-scoring groups of retrieved tables that the join graph connects (within
    `link_max_hops` joins): on a schema of many unrelated parts, a question's tables belong together."""
    from groundsql.linking.connectivity import adjacency, connecting_edges, join_graph

    index = adjacency(join_graph(ctx))
    hops = ctx.settings(LinkOptions).link_max_hops
    names = list(subset.tables)
    parent = {name.lower(): name.lower() for name in names}

    def root(node: str) -> str:
        while parent[node] != node:
            node = parent[node]
        return node

    for rel in connecting_edges(index, names, hops):
        a, b = rel.table.lower(), rel.ref_table.lower()
        if a in parent and b in parent:
            parent[root(a)] = root(b)
        else:  # a path through a bridge table: join both ends' groups
            for end in (a, b):
                parent.setdefault(end, end)
            parent[root(a)] = root(b)
    totals: dict[str, float] = {}
    for (table, _), score in scores.items():
        if table.lower() in parent:
            totals[root(table.lower())] = totals.get(root(table.lower()), 0.0) + score
    best = set(sorted(totals, key=lambda g: -totals[g])[:keep])
    for name in names:
        if root(name.lower()) not in best:
            subset.discard(name)
            subset.notes.append(f"dropped {name}: not joinable with the best-matching tables")
