"""Structured replies for the recap agents: a pydantic model per reply, asked for as JSON, repaired or re-asked
once, and never fatal: an agent whose model cannot produce a valid reply gets None and falls back."""

from __future__ import annotations

import logging
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from groundsql.context import Context
from groundsql.errors import ModelError
from groundsql.models.base import parse_json

log = logging.getLogger("groundsql")

ReplyT = TypeVar("ReplyT", bound=BaseModel)


def short_text(limit: int = 300) -> dict:
    """JSON-schema bounds for a free-text field: they reach the grammar of the embedded model, which otherwise may
    write until its token limit and leave truncated JSON."""
    return {"maxLength": limit}


def short_list(items: int, limit: int = 300) -> dict:
    """JSON-schema bounds for a list of short texts."""
    return {"maxItems": items, "items": {"type": "string", "maxLength": limit}}


class Reply(BaseModel):
    """Base of the agents' reply models: extra keys a chatty model adds are ignored, not fatal."""

    model_config = ConfigDict(extra="ignore")


def ask_json(ctx: Context, step: str, prompt: str, reply_model: type[ReplyT], *, role: str = "generator",
             max_tokens: int = 300, system: str | None = None) -> ReplyT | None:
    """Ask `role` for a reply that validates as `reply_model`.

    The model's JSON mode is used, and the provider repairs one malformed reply; a reply that is JSON but still
    fails validation is asked again once, with the problem named (a reply that is not JSON even after the repair
    is not asked a third time: small models that ramble past the token limit only ramble again). Returns None
    when no valid reply came (or the model failed), so callers always have a fallback path.
    """
    schema = reply_model.model_json_schema()
    messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": prompt}]
    problem = ""
    for attempt in (1, 2):
        try:
            completion = ctx.chat(step, messages, role=role, temperature=0.0, max_tokens=max_tokens,
                                  json_schema=_loose(schema))
        except ModelError as exc:
            log.warning("%s: no reply (%s)", step, exc)
            return None
        data = completion.data[0] if completion.data else None
        if data is None:
            data, problem = parse_json(completion.text)
            if data is None:
                break
        try:
            return reply_model.model_validate(data)
        except ValidationError as exc:
            problem = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'reply'}: {e['msg']}"
                                for e in exc.errors()[:3])
        if attempt == 1:
            messages = messages + [
                {"role": "assistant", "content": completion.text},
                {"role": "user", "content": f"That reply is not usable ({problem}). Reply again with only the JSON "
                                            "object described above."},
            ]
    log.info("%s: no valid reply (%s)", step, problem)
    ctx.trace.note("recap", agent=step, malformed=problem or "no JSON object found")
    return None


def _loose(schema: dict) -> dict:
    """The JSON schema given to the provider: pydantic's, without the `title` noise and `$defs` inlined, so that
    grammar-constrained decoders (llama.cpp) accept it."""
    defs = schema.get("$defs", {})

    def clean(node):
        if isinstance(node, dict):
            if "$ref" in node:
                return clean(defs[node["$ref"].rsplit("/", 1)[-1]])
            return {k: clean(v) for k, v in node.items() if k not in ("title", "$defs", "default")}
        if isinstance(node, list):
            return [clean(v) for v in node]
        return node

    return clean(schema)
