"""Knowledge retriever (runs before planning): the snippets of the user's knowledge that bear on the question.

Until the shared knowledge package lands, the only source is the run's evidence, split into snippets and ranked
by the words they share with the question; the body of `retrieve_knowledge` is then switched to its retriever.
"""

from __future__ import annotations

import re

from groundsql.context import Context

_SPLIT = re.compile(r"(?<=[.;\n])\s+")  # sentence-ish boundaries of free text, not SQL
_WORD = re.compile(r"\w+")


def retrieve_knowledge(ctx: Context, top_k: int = 3) -> list[str]:
    """At most `top_k` snippets for the planner's prompt, most relevant first (empty without knowledge)."""
    if top_k <= 0 or not ctx.evidence or not ctx.evidence.strip():
        return []
    snippets = [s.strip() for s in _SPLIT.split(ctx.evidence.strip()) if s.strip()]
    words = {w.lower() for w in _WORD.findall(ctx.question)}
    ranked = sorted(enumerate(snippets), key=lambda item: (-len(words & {w.lower() for w in _WORD.findall(item[1])}),
                                                           item[0]))
    return [snippet for _, snippet in ranked[:top_k]]
