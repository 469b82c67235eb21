"""The `Model` interface: chat messages in, one or `n` completions out, with usage and latency."""

from __future__ import annotations

import json
import logging
import random
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from groundsql.errors import ModelError, TransientModelError

log = logging.getLogger("groundsql")

Message = dict[str, str]  # {"role": "system"|"user"|"assistant", "content": "..."}


@dataclass
class Completion:
    """What one call returned: `texts` holds `n` completions."""

    texts: list[str]
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    model: str = ""
    data: list[Any] = field(default_factory=list)  # parsed JSON per text, for JSON calls

    @property
    def text(self) -> str:
        return self.texts[0] if self.texts else ""


@dataclass
class RetryPolicy:
    attempts: int = 4
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0


class Model(ABC):
    """A chat model. Providers implement `_generate`; retries, JSON validation and repair live here."""

    #: Specification the model was built from, e.g. ``local:qwen2.5-coder-1.5b``.
    spec: str = ""
    #: Calls must not overlap (the embedded model runs in-process on the CPU).
    serial: bool = False

    def __init__(self, *, timeout_s: float = 120.0, retry: RetryPolicy | None = None):
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()

    @abstractmethod
    def _generate(
        self,
        messages: list[Message],
        *,
        n: int,
        temperature: float,
        max_tokens: int,
        json_schema: dict[str, Any] | None,
        stop: list[str] | None,
        seed: int | None,
    ) -> Completion:
        """One provider call. Raise `TransientModelError` for failures worth retrying."""

    def complete(
        self,
        messages: list[Message],
        *,
        n: int = 1,
        temperature: float = 0.0,
        max_tokens: int = 512,
        json_schema: dict[str, Any] | None = None,
        stop: list[str] | None = None,
        seed: int | None = None,
    ) -> Completion:
        """Return `n` completions of `messages`, retrying transient failures with exponential backoff.

        With `json_schema`, every text is parsed and validated; an invalid one gets one repair call, and
        `Completion.data` holds the parsed objects (None where repair failed too).
        """
        if n < 1:
            raise ModelError("n must be at least 1")
        started = time.perf_counter()
        completion = self._with_retries(messages, n, temperature, max_tokens, json_schema, stop, seed)
        if json_schema is not None:
            self._validate_json(completion, messages, json_schema, max_tokens)
        completion.latency_s = time.perf_counter() - started
        completion.model = completion.model or self.spec
        return completion

    def _with_retries(self, messages, n, temperature, max_tokens, json_schema, stop, seed) -> Completion:
        delay = self.retry.base_delay_s
        for attempt in range(1, self.retry.attempts + 1):
            try:
                return self._generate(
                    messages, n=n, temperature=temperature, max_tokens=max_tokens,
                    json_schema=json_schema, stop=stop, seed=seed,
                )
            except TransientModelError as exc:
                if attempt == self.retry.attempts:
                    raise ModelError(f"{self.spec}: giving up after {attempt} attempts: {exc}") from None
                wait = min(delay, self.retry.max_delay_s) * (1 + random.random() * 0.25)
                log.warning("%s: transient error (%s); retrying in %.1fs", self.spec, exc, wait)
                time.sleep(wait)
                delay *= 2
        raise AssertionError("unreachable")

    def _validate_json(self, completion: Completion, messages, schema, max_tokens) -> None:
        completion.data = []
        for index, text in enumerate(completion.texts):
            value, problem = parse_json(text, schema)
            if problem is not None:
                repair = messages + [
                    {"role": "assistant", "content": text},
                    {"role": "user", "content": (
                        f"That reply is not valid: {problem}. Reply again with only a JSON object that "
                        f"follows this schema:\n{json.dumps(schema)}"
                    )},
                ]
                fixed = self._with_retries(repair, 1, 0.0, max_tokens, schema, None, None)
                completion.prompt_tokens += fixed.prompt_tokens
                completion.completion_tokens += fixed.completion_tokens
                value, problem = parse_json(fixed.text, schema)
                if problem is None:
                    completion.texts[index] = fixed.text
            completion.data.append(value if problem is None else None)


def parse_json(text: str, schema: dict[str, Any] | None = None) -> tuple[Any, str | None]:
    """Parse the first JSON object in `text` and validate it; return (value, problem or None)."""
    candidate = text.strip()
    if candidate.startswith("```"):
        candidate = candidate.strip("`")
        candidate = candidate.split("\n", 1)[1] if "\n" in candidate else candidate
    start = candidate.find("{")
    if start < 0:
        return None, "no JSON object found"
    try:
        value, _ = json.JSONDecoder().raw_decode(candidate[start:])
    except json.JSONDecodeError as exc:
        return None, f"invalid JSON ({exc.msg})"
    if schema is not None:
        try:
            jsonschema.validate(value, schema)
        except jsonschema.ValidationError as exc:
            return None, f"schema violation: {exc.message}"
    return value, None
