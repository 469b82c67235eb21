"""Knowledge retriever (runs before planning): the snippets of the user's knowledge that bear on the question.

Two sources: the knowledge folder's rules, glossary, examples and documents through the shared BM25 retriever of
`groundsql.knowledge` (recorded on the trace), then the run's evidence, split into snippets and ranked by the
words they share with the question.
"""

from __future__ import annotations

import re

from groundsql.context import Context
from groundsql.knowledge.render import retrieve

_SPLIT = re.compile(r"(?<=[.;\n])\s+")  # sentence-ish boundaries of free text, not SQL
_WORD = re.compile(r"\w+")


def retrieve_knowledge(ctx: Context, top_k: int = 3) -> list[str]:
    """At most `top_k` snippets for the planner's prompt, most relevant first (empty without knowledge)."""
    if top_k <= 0:
        return []
    found = [r.item.text for r in retrieve(ctx, ctx.question, limit=top_k)]
    return (found + _evidence_snippets(ctx))[:top_k]


def _evidence_snippets(ctx: Context) -> list[str]:
    if not ctx.evidence or not ctx.evidence.strip():
        return []
    snippets = [s.strip() for s in _SPLIT.split(ctx.evidence.strip()) if s.strip()]
    words = {w.lower() for w in _WORD.findall(ctx.question)}
    ranked = sorted(enumerate(snippets), key=lambda item: (-len(words & {w.lower() for w in _WORD.findall(item[1])}),
                                                           item[0]))
    return [snippet for _, snippet in ranked]
