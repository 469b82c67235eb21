"""OpenAI and OpenAI-compatible servers (vLLM, Ollama, llama.cpp server, LM Studio…)."""

from __future__ import annotations

import os
from typing import Any

from groundsql.errors import ConfigError, ModelError, ModelNotInstalled, TransientModelError
from groundsql.models.base import Completion, Model
from groundsql.models.http import bound_by_deadline, retry_after_s, unreadable


class OpenAIModel(Model):
    """`openai:MODEL` or `openai:MODEL@BASE_URL`. The key comes from OPENAI_API_KEY only."""

    def __init__(self, model: str, base_url: str | None = None, **kw: Any):
        super().__init__(**kw)
        if not model:
            raise ConfigError("openai: give a model name, e.g. openai:gpt-4o-mini")
        if base_url and not base_url.startswith(("http://", "https://")):
            raise ConfigError(f"openai: the server address must start with http:// or https://, got {base_url!r}")
        self.model = model
        self.base_url = base_url
        self.spec = f"openai:{model}" + (f"@{base_url}" if base_url else "")
        try:
            import openai
        except ImportError:
            raise ModelNotInstalled("API models need the openai package: pip install 'groundsql[api]'") from None
        key = os.environ.get("OPENAI_API_KEY")
        if not key and not base_url:
            raise ConfigError("openai: set OPENAI_API_KEY in the environment")
        self._openai = openai
        self._client = openai.OpenAI(api_key=key or "not-needed", base_url=base_url, timeout=self.timeout_s,
                                     max_retries=0,
                                     http_client=bound_by_deadline(openai.DefaultHttpxClient()))

    @property
    def server(self) -> str:
        return self.base_url or "api.openai.com"

    def _generate(self, messages, *, n, temperature, max_tokens, json_schema, stop, seed) -> Completion:
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": temperature,
                                  "max_tokens": max_tokens}
        if stop:
            kwargs["stop"] = stop
        if json_schema is not None:
            kwargs["response_format"] = {"type": "json_object"}
        texts, prompt_tokens, completion_tokens, cached_tokens = self._request(kwargs, n, seed)
        # Some compatible servers ignore n: ask for the missing completions one at a time, a bounded number.
        for extra in range(n - len(texts)):
            more, _, more_tokens, _ = self._request(kwargs, 1, None if seed is None else seed + 1 + extra)
            texts += more
            completion_tokens += more_tokens
        return Completion(texts=texts, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                          cached_tokens=cached_tokens, model=self.spec)

    def _request(self, kwargs: dict[str, Any], n: int, seed: int | None) -> tuple[list[str], int, int, int]:
        """One request for `n` completions: (texts, prompt tokens, completion tokens, cached prompt tokens);
        at least one text."""
        errors = self._openai
        call = dict(kwargs, n=n)
        if seed is not None:
            call["seed"] = seed
        try:
            response = self._client.chat.completions.create(**call)
            choices = response.choices
            if not isinstance(choices, list):
                raise TypeError("no 'choices' list in the reply")
            texts = [choice.message.content or "" for choice in choices]
            usage = response.usage
            prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
            completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
            details = getattr(usage, "prompt_tokens_details", None)
            cached_tokens = int(getattr(details, "cached_tokens", 0) or 0)
        except (errors.RateLimitError, errors.APITimeoutError, errors.APIConnectionError,
                errors.InternalServerError) as exc:
            raise TransientModelError(_describe(exc), retry_after_s=retry_after_s(exc)) from None
        except (errors.APIResponseValidationError, ValueError, TypeError, AttributeError) as exc:
            # A malformed body, bytes that are not UTF-8, or JSON of another shape: often a proxy hiccup.
            raise TransientModelError(unreadable(self.server, exc)) from None
        except errors.APIError as exc:
            raise ModelError(f"{self.spec}: {_describe(exc)}") from None
        if not texts:
            raise ModelError(f"{self.spec}: model server {self.server} returned no completions (empty 'choices')")
        return texts, prompt_tokens, completion_tokens, cached_tokens


def _describe(exc: Exception) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
