"""Structured replies: a JSON object validated by a pydantic model, with one re-ask when it is malformed.

Small models often answer in prose, cut a JSON object short or misname a field; none of that may crash a run.
The caller always gets either a valid object or None plus the reason, and decides its own fallback.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel, ValidationError

from groundsql.context import Context
from groundsql.errors import ModelError, ModelNotInstalled
from groundsql.models import Message
from groundsql.models.base import parse_json

log = logging.getLogger("groundsql")

M = TypeVar("M", bound=BaseModel)


@dataclass
class Structured(Generic[M]):
    """What a structured call returned: the validated `value` (None when even the re-ask failed), the raw
    texts of the replies in order, and the problem with the last one."""

    value: M | None
    texts: list[str]
    problem: str | None = None


def ask_structured(ctx: Context, step: str, messages: list[Message], model: type[M], *, role: str,
                   max_tokens: int, constrained: bool = True, temperature: float = 0.0) -> Structured[M]:
    """Ask the role's model for one JSON object that `model` validates.

    With `constrained`, the JSON schema goes to the model (structured output, grammar-constrained sampling
    for the embedded model), which also makes one repair call on an invalid reply. Either way, a reply that
    still does not validate is re-asked once with the problem spelled out.
    """
    schema = model.model_json_schema()
    reply = _call(ctx, step, messages, role=role, max_tokens=max_tokens, temperature=temperature,
                  schema=schema if constrained else None)
    if reply is None:
        return Structured(None, [], "the model call failed")
    value, problem = validated(reply, model)
    if value is not None:
        return Structured(value, [reply])
    log.debug("%s: malformed reply (%s); asking again", step, problem)
    ctx.trace.note("agentnlq", stage="malformed", call=step, problem=problem)
    again = messages + [
        {"role": "assistant", "content": reply},
        {"role": "user", "content": f"That reply cannot be used: {problem}. Answer again with only one JSON "
                                    f"object of this form:\n{json.dumps(schema)}\n\nQuestion (restated): "
                                    f"{ctx.question}"},
    ]
    retry = _call(ctx, f"{step}:reask", again, role=role, max_tokens=max_tokens, temperature=0.0,
                  schema=schema if constrained else None)
    if retry is None:
        return Structured(None, [reply], problem)
    value, problem = validated(retry, model)
    return Structured(value, [reply, retry], problem)


def validated(text: str, model: type[M]) -> tuple[M | None, str | None]:
    """Parse the first JSON object in `text` and validate it with `model`; (value, None) or (None, problem)."""
    data, problem = parse_json(text or "", None)
    if problem is not None:
        return None, problem
    try:
        return model.model_validate(data), None
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error.get("loc", ())) or "the object"
        return None, f"{where}: {error['msg']}"


def _call(ctx: Context, step: str, messages: list[Message], *, role: str, max_tokens: int, temperature: float,
          schema: dict | None) -> str | None:
    try:
        completion = ctx.chat(step, messages, role=role, max_tokens=max_tokens, temperature=temperature,
                              json_schema=schema)
    except ModelNotInstalled:
        raise  # nothing can work without the model; say so instead of answering every question empty
    except ModelError as exc:
        log.warning("%s failed: %s", step, exc)
        return None
    return completion.text
