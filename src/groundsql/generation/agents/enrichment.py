"""Metadata generation inside the `agentnlq` preset (AgentNLQ §3.1, the `enrich` option): the generator writes a
one-line description of every table and column that has none (`catalog.enrich`), and the run's catalog is the
described copy, so the schema context and every prompt after it show the descriptions.

The process's shared catalog is never changed (other presets in the same process keep reading it as it was):
the described copy is kept per catalog fingerprint and model, so a database is described once per process and
model, not once per question. The calls go through `Context.chat` (step `agentnlq:enrich`), so they are on the
trace and in the token counts of the question that paid for them.
"""

from __future__ import annotations

import copy
import logging
from typing import Any

from groundsql.catalog.catalog import Catalog
from groundsql.context import Context
from groundsql.models.base import Completion

log = logging.getLogger("groundsql")

#: (catalog fingerprint, model spec) → the described copy of the catalog.
_DESCRIBED: dict[tuple[str, str], Catalog] = {}


class _TracedModel:
    """The role's model as `enrich_catalog` calls it, each call recorded through `Context.chat`."""

    def __init__(self, ctx: Context, role: str) -> None:
        self.ctx, self.role = ctx, role

    def complete(self, messages: list[dict[str, Any]], **options: Any) -> Completion:
        return self.ctx.chat("agentnlq:enrich", messages, role=self.role, **options)


def enrich_descriptions(ctx: Context, *, role: str = "generator") -> dict[str, Any]:
    """Give `ctx` a catalog whose undescribed tables and columns have generated descriptions; returns what was
    done, for the trace and the step listener."""
    from groundsql.catalog.enrich import enrich_catalog

    if ctx.catalog is None:
        report = {"written": 0, "skipped": "no catalog (catalog_context is off or profiling failed)"}
    else:
        key = (ctx.catalog.fingerprint, ctx.model(role).spec)
        described = _DESCRIBED.get(key)
        if described is not None:
            report = {"written": 0, "reused": True}
        elif ctx.catalog.enriched:
            described, report = ctx.catalog, {"written": 0, "already_enriched": True}
        else:
            described = copy.deepcopy(ctx.catalog)
            written = enrich_catalog(described, _TracedModel(ctx, role))  # type: ignore[arg-type]
            _DESCRIBED[key] = described
            report = {"written": written}
        ctx.catalog = described
    ctx.trace.note("agentnlq", stage="enrich", **report)
    return report
