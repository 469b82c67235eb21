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

from groundsql.errors import ConfigError, ModelError, ModelTimeout, TransientModelError
from groundsql.models.deadline import (
    DEFAULT_MODEL_TIMEOUT_S,
    call_deadline,
    remaining_s,
    resolve_model_timeout,
)

log = logging.getLogger("groundsql")

Message = dict[str, str]  # {"role": "system"|"user"|"assistant", "content": "..."}


@dataclass(frozen=True)
class Likelihood:
    """How probable the model found one reply, token by token (natural logarithms; the model's raw distribution,
    before any grammar or sampling setting): a low `mean` or `least` marks a reply the model was unsure of."""

    mean: float  # mean log-probability of the generated tokens
    least: float  # the lowest log-probability of one generated token
    tokens: int  # generated tokens it covers
    #: The same over the tokens that carry content: not a code fence, whitespace or a lone semicolon, where a near
    #: tie would say nothing about the answer (None where no token carried content or the texts were not known).
    content_mean: float | None = None
    content_least: float | None = None

    @classmethod
    def of(cls, logprobs: list[float], texts: list[str] | None = None) -> Likelihood | None:
        """The summary of per-token log-probabilities (None for none); with each token's `texts`, also over the
        tokens that carry content (`is_formatting`)."""
        if not logprobs:
            return None
        content = [lp for lp, text in zip(logprobs, texts) if not is_formatting(text)] if texts else []
        return cls(mean=round(sum(logprobs) / len(logprobs), 4), least=round(min(logprobs), 4), tokens=len(logprobs),
                   content_mean=round(sum(content) / len(content), 4) if content else None,
                   content_least=round(min(content), 4) if content else None)

    def to_dict(self) -> dict[str, float | int | None]:
        return {"mean": self.mean, "least": self.least, "tokens": self.tokens, "content_mean": self.content_mean,
                "content_least": self.content_least}


def is_formatting(token_text: str) -> bool:
    """A token that only formats a reply: whitespace, backticks (a code fence), a fence's language tag, a lone
    semicolon, or a special token that decodes to nothing."""
    text = token_text.strip().lower()
    return not text or set(text) <= {"`"} or text in {";", "sql", "`sql", "``sql", "```sql"}


@dataclass
class Completion:
    """What one call returned: `texts` holds `n` completions."""

    texts: list[str]
    prompt_tokens: int = 0
    completion_tokens: int = 0
    #: Prompt tokens the provider served from its cache instead of evaluating (part of `prompt_tokens`).
    cached_tokens: int = 0
    latency_s: float = 0.0
    model: str = ""
    data: list[Any] = field(default_factory=list)  # parsed JSON per text, for JSON calls
    #: Per text, how probable the model found it (the embedded model reports it; None where a provider does not).
    likelihoods: list[Likelihood | None] = field(default_factory=list)

    @property
    def text(self) -> str:
        return self.texts[0] if self.texts else ""


#: The most tokens one completion may ask for.
MAX_COMPLETION_TOKENS = 32_768
#: A JSON schema up to this many characters is quoted in the repair prompt; a longer one (prospy's view language
#: runs to about 10,000) is not: the decoder is held to it anyway, and quoting it cost about 3,000 prompt tokens.
REPAIR_SCHEMA_CHARS = 2000


@dataclass
class RetryPolicy:
    """How transient failures are retried: jittered exponential backoff, or the server's `Retry-After`."""

    attempts: int = 4  # calls in all, the first included
    base_delay_s: float = 1.0  # the first backoff; it doubles per retry
    max_delay_s: float = 30.0  # the longest single wait, a server's Retry-After included
    max_total_s: float = 60.0  # the most time spent waiting between retries of one call

    def wait_s(self, attempt: int, retry_after_s: float | None) -> float:
        """The wait before retry number `attempt` (1-based): Retry-After when the server named one, capped;
        else a jittered exponential backoff (between half and all of base × 2^(attempt-1), capped)."""
        if retry_after_s is not None:
            return min(retry_after_s * (1 + 0.1 * random.random()), self.max_delay_s)
        ceiling = min(self.base_delay_s * 2 ** (attempt - 1), self.max_delay_s)
        return ceiling * (0.5 + 0.5 * random.random())


class Model(ABC):
    """A chat model. Providers implement `_generate`; retries, JSON validation and repair live here."""

    #: Specification the model was built from, e.g. ``local:qwen2.5-coder-1.5b``.
    spec: str = ""
    #: Calls must not overlap (the embedded model runs in-process on the CPU).
    serial: bool = False

    #: The deadline used when neither the caller nor GROUNDSQL_MODEL_TIMEOUT sets one.
    default_timeout_s: float = DEFAULT_MODEL_TIMEOUT_S

    def __init__(self, *, timeout_s: float | None = None, retry: RetryPolicy | None = None):
        #: Total time one `complete` call may take, retries and the JSON repair call included.
        self.timeout_s = resolve_model_timeout(timeout_s, self.default_timeout_s)
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
        if not 1 <= max_tokens <= MAX_COMPLETION_TOKENS:
            raise ConfigError(f"max_tokens must be between 1 and {MAX_COMPLETION_TOKENS}, got {max_tokens}")
        started = time.perf_counter()
        with call_deadline(self.timeout_s):
            completion = self._with_retries(messages, n, temperature, max_tokens, json_schema, stop, seed)
            if json_schema is not None:
                self._validate_json(completion, messages, json_schema, max_tokens)
        completion.latency_s = time.perf_counter() - started
        completion.model = completion.model or self.spec
        return completion

    def _with_retries(self, messages, n, temperature, max_tokens, json_schema, stop, seed) -> Completion:
        """Call `_generate`, retrying transient failures within the retry policy and the call's deadline."""
        waited = 0.0
        for attempt in range(1, self.retry.attempts + 1):
            try:
                return self._generate(
                    messages, n=n, temperature=temperature, max_tokens=max_tokens,
                    json_schema=json_schema, stop=stop, seed=seed,
                )
            except TransientModelError as exc:
                left = remaining_s()
                if left is not None and left <= 0:
                    raise self._timeout(exc) from None
                if attempt == self.retry.attempts:
                    raise ModelError(f"{self.spec}: giving up after {attempt} attempts: {exc}") from None
                wait = self.retry.wait_s(attempt, exc.retry_after_s)
                if waited + wait > self.retry.max_total_s:
                    raise ModelError(f"{self.spec}: giving up after {attempt} attempt(s), the retry budget of "
                                     f"{self.retry.max_total_s:g} s is spent: {exc}") from None
                if left is not None and wait >= left:
                    raise self._timeout(exc) from None
                log.warning("%s: transient error (%s); retrying in %.1fs", self.spec, exc, wait)
                time.sleep(wait)
                waited += wait
        raise AssertionError("unreachable")

    def _timeout(self, last: Exception | None = None) -> ModelTimeout:
        cause = f" (last error: {last})" if last is not None else ""
        return ModelTimeout(f"{self.spec}: no complete reply within the {self.timeout_s:g} s model deadline"
                            f"{cause}; raise it with --model-timeout or GROUNDSQL_MODEL_TIMEOUT")

    def _validate_json(self, completion: Completion, messages, schema, max_tokens) -> None:
        completion.data = []
        for index, text in enumerate(completion.texts):
            value, problem = parse_json(text, schema)
            if problem is not None:
                repair = messages + [
                    {"role": "assistant", "content": text},
                    {"role": "user", "content": repair_request(problem, schema)},
                ]
                fixed = self._with_retries(repair, 1, 0.0, max_tokens, schema, None, None)
                completion.prompt_tokens += fixed.prompt_tokens
                completion.completion_tokens += fixed.completion_tokens
                completion.cached_tokens += fixed.cached_tokens
                value, problem = parse_json(fixed.text, schema)
                if problem is None:
                    completion.texts[index] = fixed.text
            completion.data.append(value if problem is None else None)


def repair_request(problem: str, schema: dict[str, Any]) -> str:
    """What the repair call asks: the problem, and the schema itself when it is short (`REPAIR_SCHEMA_CHARS`)."""
    text = json.dumps(schema)
    if len(text) <= REPAIR_SCHEMA_CHARS:
        return (f"That reply is not valid: {problem}. Reply again with only a JSON object that follows this "
                f"schema:\n{text}")
    return f"That reply is not valid: {problem}. Reply again with only the JSON object, with that fixed."


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
