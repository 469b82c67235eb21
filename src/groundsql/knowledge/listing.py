"""What a database's knowledge folder holds, and a search over it: the calls behind `knowledge show`, the server's
knowledge endpoints and the MCP `search_knowledge` tool."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from groundsql.db import Database
from groundsql.errors import KnowledgeError
from groundsql.knowledge.grounding import load_for
from groundsql.knowledge.retrieval import retriever_for
from groundsql.knowledge.store import default_folder


def knowledge_summary(db: Database, folder: str | Path | None = None) -> dict[str, Any]:
    """The knowledge of `db` as plain data: ``folder`` (where it is or would be; None for a server database with
    no folder named), ``found``, ``counts``, ``items`` (kind, source, text) and ``problems``.

    A folder that cannot be loaded (a malformed file, an example that no longer runs) is reported as a problem
    with nothing loaded, rather than raised.
    """
    problems: list[str] = []
    try:
        # a named folder that does not exist yet is empty, like a missing one beside the database file
        missing = folder is not None and not Path(folder).expanduser().exists()
        loaded = None if missing else load_for(db, folder)
    except KnowledgeError as exc:
        loaded, problems = None, [str(exc)]
    if loaded is not None:
        where: str | None = loaded.folder
    elif folder is not None:
        where = str(Path(folder).expanduser())
    else:
        try:
            where = str(default_folder(db))
        except KnowledgeError:
            where = None
    found = loaded is not None or bool(problems)
    return {"folder": where, "found": found,
            "counts": loaded.counts() if loaded is not None else {},
            "items": [{"kind": i.kind, "source": i.source, "text": i.text} for i in loaded.items()]
            if loaded is not None else [],
            "problems": (list(loaded.problems) if loaded is not None else []) + problems}


def search_knowledge(db: Database, query: str, *, limit: int = 5, folder: str | Path | None = None,
                     retriever: str = "bm25", embedding_model: str | None = None) -> list[dict[str, Any]]:
    """The knowledge items (rules, terms, examples, document chunks) the `retriever` (bm25, embeddings, hybrid)
    finds for `query`, best first, as ``{kind, text, score, source}``; empty when `db` has no knowledge folder.

    Raises:
        KnowledgeError: the folder cannot be loaded.
        ConfigError: embeddings are asked for but not available here.
    """
    if folder is not None and not Path(folder).expanduser().exists():
        return []
    loaded = load_for(db, folder)
    if loaded is None:
        return []
    found = retriever_for(loaded, retriever, embedding_model).search(query, limit=max(1, limit))
    return [{"kind": r.item.kind, "text": r.item.text, "score": r.score, "source": r.item.source} for r in found]
