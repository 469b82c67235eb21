"""OpenAI and OpenAI-compatible servers (vLLM, Ollama, llama.cpp server, LM Studio…)."""

from __future__ import annotations

import os
from typing import Any

from groundsql.errors import ConfigError, ModelError, ModelNotInstalled, TransientModelError
from groundsql.models.base import Completion, Model


class OpenAIModel(Model):
    """`openai:MODEL` or `openai:MODEL@BASE_URL`. The key comes from OPENAI_API_KEY only."""

    def __init__(self, model: str, base_url: str | None = None, **kw: Any):
        super().__init__(**kw)
        if not model:
            raise ConfigError("openai: give a model name, e.g. openai:gpt-4o-mini")
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
                                     max_retries=0)

    def _generate(self, messages, *, n, temperature, max_tokens, json_schema, stop, seed) -> Completion:
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": temperature,
                                  "max_tokens": max_tokens, "n": n}
        if stop:
            kwargs["stop"] = stop
        if seed is not None:
            kwargs["seed"] = seed
        if json_schema is not None:
            kwargs["response_format"] = {"type": "json_object"}
        errors = self._openai
        try:
            response = self._client.chat.completions.create(**kwargs)
        except (errors.RateLimitError, errors.APITimeoutError, errors.APIConnectionError,
                errors.InternalServerError) as exc:
            raise TransientModelError(_describe(exc)) from None
        except errors.APIError as exc:
            raise ModelError(f"{self.spec}: {_describe(exc)}") from None
        texts = [choice.message.content or "" for choice in response.choices]
        if len(texts) < n:  # some compatible servers ignore n
            extra = self._generate(messages, n=n - len(texts), temperature=temperature, max_tokens=max_tokens,
                                   json_schema=json_schema, stop=stop, seed=None if seed is None else seed + 1)
            texts += extra.texts
        usage = response.usage
        return Completion(texts=texts, prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
                          completion_tokens=getattr(usage, "completion_tokens", 0) or 0, model=self.spec)


def _describe(exc: Exception) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
