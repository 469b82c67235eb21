"""Anthropic's messages API."""

from __future__ import annotations

import os
from typing import Any

from groundsql.errors import ConfigError, ModelError, ModelNotInstalled, TransientModelError
from groundsql.models.base import Completion, Model
from groundsql.models.http import bound_by_deadline, retry_after_s, unreadable


class AnthropicModel(Model):
    """`anthropic:MODEL` or `anthropic:MODEL@BASE_URL`. The key comes from ANTHROPIC_API_KEY only."""

    def __init__(self, model: str, base_url: str | None = None, **kw: Any):
        super().__init__(**kw)
        if not model:
            raise ConfigError("anthropic: give a model name, e.g. anthropic:claude-sonnet-4-5")
        if base_url and not base_url.startswith(("http://", "https://")):
            raise ConfigError(f"anthropic: the server address must start with http:// or https://, "
                              f"got {base_url!r}")
        self.model = model
        self.server = base_url or "api.anthropic.com"
        self.spec = f"anthropic:{model}" + (f"@{base_url}" if base_url else "")
        try:
            import anthropic
        except ImportError:
            raise ModelNotInstalled("API models need the anthropic package: pip install 'groundsql[api]'") from None
        key = os.environ.get("ANTHROPIC_API_KEY")
        if not key:
            raise ConfigError("anthropic: set ANTHROPIC_API_KEY in the environment")
        self._anthropic = anthropic
        self._client = anthropic.Anthropic(api_key=key, base_url=base_url, timeout=self.timeout_s,
                                           max_retries=0,
                                           http_client=bound_by_deadline(anthropic.DefaultHttpxClient()))

    def _generate(self, messages, *, n, temperature, max_tokens, json_schema, stop, seed) -> Completion:
        system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
        chat = [m for m in messages if m["role"] != "system"]
        if json_schema is not None:
            system += "\n\nReply with one JSON object only."
        errors = self._anthropic
        texts: list[str] = []
        prompt_tokens = completion_tokens = 0
        for _ in range(n):  # the messages API returns one completion per call
            # Current Anthropic models choose their own sampling; `temperature` is not sent.
            kwargs: dict[str, Any] = {"model": self.model, "messages": chat, "max_tokens": max_tokens}
            if system:
                kwargs["system"] = system
            if stop:
                kwargs["stop_sequences"] = stop
            try:
                response = self._client.messages.create(**kwargs)
                texts.append("".join(block.text for block in response.content
                                     if getattr(block, "type", "") == "text"))
                prompt_tokens += int(response.usage.input_tokens or 0)
                completion_tokens += int(response.usage.output_tokens or 0)
            except (errors.RateLimitError, errors.APITimeoutError, errors.APIConnectionError,
                    errors.InternalServerError) as exc:
                raise TransientModelError(_describe(exc), retry_after_s=retry_after_s(exc)) from None
            except (errors.APIResponseValidationError, ValueError, TypeError, AttributeError) as exc:
                raise TransientModelError(unreadable(self.server, exc)) from None
            except errors.APIError as exc:
                raise ModelError(f"{self.spec}: {_describe(exc)}") from None
        return Completion(texts=texts, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                          model=self.spec)


def _describe(exc: Exception) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
