"""A model double for unit tests: queued replies, and a record of every prompt it was given."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from groundsql.errors import ModelError
from groundsql.models.base import Completion, Message, Model

Reply = str | Callable[[list[Message]], str]


class ScriptedModel(Model):
    """Returns queued replies in order; a callable reply computes its text from the messages."""

    def __init__(self, replies: list[Reply] | None = None, *, default: Reply | None = None, name: str = "scripted"):
        super().__init__()
        self.replies: list[Reply] = list(replies or [])
        self.default = default
        self.spec = f"scripted:{name}"
        self.calls: list[dict[str, Any]] = []

    def queue(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    def _next(self, messages: list[Message]) -> str:
        if self.replies:
            reply = self.replies.pop(0)
        elif self.default is not None:
            reply = self.default
        else:
            raise ModelError(f"{self.spec}: no scripted reply left")
        return reply(messages) if callable(reply) else reply

    def _generate(self, messages, *, n, temperature, max_tokens, json_schema, stop, seed) -> Completion:
        self.calls.append({"messages": messages, "n": n, "temperature": temperature, "json_schema": json_schema})
        texts = [self._next(messages) for _ in range(n)]
        prompt_tokens = sum(len(m["content"].split()) for m in messages)
        return Completion(texts=texts, prompt_tokens=prompt_tokens,
                          completion_tokens=sum(len(t.split()) for t in texts), model=self.spec)
