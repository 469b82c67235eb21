"""Models: the only code that talks to an LLM. `load_model(spec)` builds one from a spec string."""

from __future__ import annotations

import os

from groundsql.errors import ConfigError
from groundsql.models.base import Completion, Message, Model, RetryPolicy, parse_json
from groundsql.models.replay import REPLY_STORE_ENV
from groundsql.models.scripted import ScriptedModel
from groundsql.models.weights import DEFAULT_LOCAL_MODEL, KNOWN_MODELS

DEFAULT_MODEL = f"local:{DEFAULT_LOCAL_MODEL}"
SPEC_HELP = (
    "local:qwen2.5-coder-1.5b (default), local:qwen2.5-coder-0.5b, local:/path/to/model.gguf, "
    "openai:MODEL, openai:MODEL@BASE_URL, anthropic:MODEL[@BASE_URL]"
)


def load_model(spec: str | None = None, **options) -> Model:
    """Build a model from a spec.

    Args:
        spec: ``provider:name`` — see `SPEC_HELP`. None means the default embedded model.
        options: provider options (threads, n_ctx, timeout_s).

    Returns:
        A ready `Model` (local weights are loaded lazily, on the first call).
    """
    model = _build(spec, **options)
    store = os.environ.get(REPLY_STORE_ENV)
    if store:  # benchmarks only: repeated requests get their stored reply (models/replay.py)
        from groundsql.models.replay import ReplayingModel, ReplyStore

        return ReplayingModel(model, ReplyStore(store))
    return model


def _build(spec: str | None, **options) -> Model:
    spec = (spec or DEFAULT_MODEL).strip()
    provider, _, name = spec.partition(":")
    if not name:
        provider, name = "local", spec
    if provider == "local":
        from groundsql.models.local import LocalModel, name_or_path_is_file

        if not name_or_path_is_file(name) and name not in KNOWN_MODELS:
            raise ConfigError(f"unknown model {spec!r}; use one of: {SPEC_HELP}")
        return LocalModel(name, **options)
    if provider == "openai":
        from groundsql.models.openai_api import OpenAIModel

        model, _, base_url = name.partition("@")
        return OpenAIModel(model, base_url or None, **options)
    if provider == "anthropic":
        from groundsql.models.anthropic_api import AnthropicModel

        model, _, base_url = name.partition("@")
        return AnthropicModel(model, base_url or None, **options)
    raise ConfigError(f"unknown model provider {provider!r}; use one of: {SPEC_HELP}")


__all__ = ["Completion", "Message", "Model", "RetryPolicy", "ScriptedModel", "load_model", "parse_json",
           "DEFAULT_MODEL", "SPEC_HELP"]
