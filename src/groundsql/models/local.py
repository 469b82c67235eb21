"""The embedded model: a GGUF file run in-process by llama.cpp (llama-cpp-python)."""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

from groundsql.errors import ConfigError, ModelError, ModelNotInstalled, ModelTimeout, RunInterrupted
from groundsql.models.base import Completion, Likelihood, Model
from groundsql.models.deadline import DEFAULT_LOCAL_MODEL_TIMEOUT_S, cancelled
from groundsql.models.prefix_cache import MIN_NEW_TOKENS, PromptCounter, cache_for, forget
from groundsql.models.prompt_lookup import LookupStats, PromptLookup, lookup_from_env, prompt_lookup
from groundsql.models.weights import ensure_weights, weights_available

log = logging.getLogger("groundsql")

#: llama.cpp runs on the CPU here: one call at a time, process-wide.
_RUN_LOCK = threading.Lock()
_LOADED: dict[tuple[str, int, int], Any] = {}
_LOAD_LOCK = threading.Lock()


def default_threads() -> int:
    value = os.environ.get("GROUNDSQL_THREADS")
    if value:
        return max(1, int(value))
    return max(1, min(2, os.cpu_count() or 1))


def default_context() -> int:
    return int(os.environ.get("GROUNDSQL_N_CTX", "8192"))


class LocalModel(Model):
    """A Qwen2.5-Coder (or any chat GGUF) model run by llama.cpp.

    Args:
        name_or_path: a known model name (see `groundsql models`) or a path to a .gguf file.
        threads: CPU threads (default: GROUNDSQL_THREADS or up to 2).
        n_ctx: context window in tokens (default: GROUNDSQL_N_CTX or 8192).
        prompt_lookup: speculative decoding by prompt lookup (default: GROUNDSQL_PROMPT_LOOKUP, else off: on a
            CPU where llama.cpp's cost grows with the batch it does not pay, and batched logits can flip a
            near-tie; docs/speed.md).
    """

    serial = True
    #: On the CPU the deadline bounds each completion's generation time (not the wait for the CPU lock).
    default_timeout_s = DEFAULT_LOCAL_MODEL_TIMEOUT_S

    def __init__(self, name_or_path: str, *, threads: int | None = None, n_ctx: int | None = None,
                 prompt_lookup: bool | None = None, **kw: Any):
        super().__init__(**kw)
        self.name_or_path = name_or_path
        self.spec = f"local:{name_or_path}"
        self.threads = threads or default_threads()
        self.n_ctx = n_ctx or default_context()
        self.prompt_lookup = lookup_from_env(default=False) if prompt_lookup is None else prompt_lookup
        #: Draft batches, drafted and kept tokens of this model's calls with prompt lookup.
        self.lookup_stats = LookupStats()
        self._llama: Any = None
        self.check_available()

    def check_available(self) -> None:
        """Fail now, before any database work, when the weights file or the runtime is missing."""
        if name_or_path_is_file(self.name_or_path):
            self.path()
        elif not weights_available(self.name_or_path):
            ensure_weights(self.name_or_path)  # raises ModelNotInstalled with the install hint
        if importlib.util.find_spec("llama_cpp") is None:
            raise ModelNotInstalled("the embedded model needs llama-cpp-python: pip install 'groundsql[local]'")

    def path(self) -> Path:
        if name_or_path_is_file(self.name_or_path):
            path = Path(self.name_or_path).expanduser()
            if not path.is_file():
                raise ConfigError(f"GGUF file not found: {path}")
            with path.open("rb") as handle:
                if handle.read(4) != b"GGUF":
                    raise ConfigError(f"{path} is not a GGUF model file")
            return path
        return ensure_weights(self.name_or_path)

    def _load(self) -> Any:
        if self._llama is not None:
            return self._llama
        try:
            from llama_cpp import Llama
        except ImportError:
            raise ModelNotInstalled(
                "the embedded model needs llama-cpp-python: pip install 'groundsql[local]'"
            ) from None
        path = self.path()
        key = (str(path), self.n_ctx, self.threads)
        with _LOAD_LOCK:
            if not _LOADED:
                atexit.register(_close_loaded)
            if key not in _LOADED:
                log.info("loading %s (%d threads, context %d)", path.name, self.threads, self.n_ctx)
                with _quiet_stderr():
                    _LOADED[key] = Llama(
                        model_path=str(path), n_ctx=self.n_ctx, n_threads=self.threads,
                        n_threads_batch=self.threads, verbose=False, seed=0,
                    )
            self._llama = _LOADED[key]
        return self._llama

    def count_tokens(self, text: str) -> int:
        llama = self._load()
        return len(llama.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def _generate(self, messages, *, n, temperature, max_tokens, json_schema, stop, seed) -> Completion:
        llama = self._load()
        texts: list[str] = []
        likelihoods: list[Likelihood | None] = []
        prompt_tokens = completion_tokens = cached_tokens = 0
        kwargs: dict[str, Any] = {"temperature": temperature, "max_tokens": max_tokens, "stop": stop}
        if json_schema is not None:
            kwargs["response_format"] = {"type": "json_object", "schema": json_schema}
        cache = cache_for(llama)
        for index in range(n):
            call_seed = (seed if seed is not None else 1234) + index
            try:
                with _RUN_LOCK, _stop_after(llama, self.timeout_s) as stop_at, self._drafting(llama), \
                        _token_logprobs(llama) as logprobs:
                    with PromptCounter(llama, cache) as counter:
                        out = llama.create_chat_completion(messages=messages, seed=call_seed, **kwargs)
                    cached_tokens += counter.cached_tokens
                    if cache is not None and counter.evaluated_tokens >= MIN_NEW_TOKENS:
                        cache.save(llama)  # a new prefix: keep it for the calls that come back to it
                if stop_at.cancelled:
                    raise RunInterrupted(f"{self.spec}: the run was cancelled during generation")
                if stop_at.expired:
                    raise ModelTimeout(f"{self.spec}: generation passed the {self.timeout_s:g} s model deadline; "
                                       "raise it with --model-timeout or GROUNDSQL_MODEL_TIMEOUT")
            except ValueError as exc:
                if "exceed context window" in str(exc):
                    raise ModelError(
                        f"{self.spec}: the prompt is longer than the context window ({self.n_ctx} tokens); "
                        "set GROUNDSQL_N_CTX higher or narrow the schema"
                    ) from None
                raise ModelError(f"{self.spec}: {exc}") from None
            texts.append(out["choices"][0]["message"].get("content") or "")
            likelihoods.append(Likelihood.of([lp for lp, _ in logprobs], _token_texts(llama, logprobs)))
            usage = out.get("usage") or {}
            prompt_tokens += int(usage.get("prompt_tokens", 0))
            completion_tokens += int(usage.get("completion_tokens", 0))
        return Completion(texts=texts, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                          cached_tokens=min(cached_tokens, prompt_tokens), model=self.spec, likelihoods=likelihoods)


    @contextlib.contextmanager
    def _drafting(self, llama: Any):
        """Prompt-lookup drafts for the block's calls when `prompt_lookup` is on (the caller holds `_RUN_LOCK`)."""
        if not self.prompt_lookup:
            yield
            return
        with prompt_lookup(llama, PromptLookup()) as draft:
            try:
                yield
            finally:
                self.lookup_stats.add(draft.stats)


def _close_loaded() -> None:
    """Free the loaded models while llama.cpp's bindings still exist (at interpreter exit, their finalizers
    otherwise run after the module is torn down and print a TypeError)."""
    with _LOAD_LOCK:
        for llama in _LOADED.values():
            forget(llama)
            with contextlib.suppress(Exception):
                llama.close()
        _LOADED.clear()


class _WallClock:
    """A llama.cpp stopping criterion: stop generating once `seconds` have passed or the run is cancelled
    (checked per token)."""

    def __init__(self, seconds: float) -> None:
        self.deadline = time.monotonic() + seconds
        self.expired = False
        self.cancelled = False

    def __call__(self, input_ids: Any, logits: Any) -> bool:
        if time.monotonic() > self.deadline:
            self.expired = True
        elif cancelled():
            self.cancelled = True
        return self.expired or self.cancelled


@contextlib.contextmanager
def _stop_after(llama: Any, seconds: float):
    """Bound the generation time of the chat calls made in the block (the caller holds `_RUN_LOCK`).

    The chat API of llama-cpp-python takes no stopping criteria, but its chat handlers call the instance's
    `create_completion`, which does: the instance method is wrapped for the duration of the block.
    """
    from llama_cpp import StoppingCriteriaList

    clock = _WallClock(seconds)
    original = llama.create_completion

    def bounded(*args: Any, **kwargs: Any) -> Any:
        kwargs["stopping_criteria"] = StoppingCriteriaList([clock, *(kwargs.get("stopping_criteria") or [])])
        return original(*args, **kwargs)

    llama.create_completion = bounded
    try:
        yield clock
    finally:
        del llama.create_completion


@contextlib.contextmanager
def _token_logprobs(llama: Any):
    """Collect the log-probability of every token sampled in the block, read from the model's raw logits at the
    position it was sampled from (before grammar and penalties). The sampler copies the logits it works on, so
    reading them beside it changes no output; the cost is one log-sum-exp over the vocabulary per token.
    Yields the list (log-probability, token id) pairs are appended to."""
    import numpy as np

    logprobs: list[tuple[float, int]] = []
    original = llama.sample
    vocabulary = llama.n_vocab()

    def sample(*args: Any, **kwargs: Any) -> int:
        token = original(*args, **kwargs)
        index = kwargs.get("idx")
        row = index - llama.n_tokens if index is not None else -1
        pointer = llama._ctx.get_logits_ith(row)
        if pointer and 0 <= token < vocabulary:
            logits = np.ctypeslib.as_array(pointer, shape=(vocabulary,))
            top = float(logits.max())
            normaliser = top + float(np.log(np.exp(logits - top).sum()))
            logprobs.append((float(logits[token]) - normaliser, int(token)))
        return token

    llama.sample = sample
    try:
        yield logprobs
    finally:
        del llama.sample


def _token_texts(llama: Any, logprobs: list[tuple[float, int]]) -> list[str]:
    """Each sampled token's text (special tokens decode to nothing)."""
    return [llama.detokenize([token]).decode("utf-8", errors="replace") for _, token in logprobs]


def name_or_path_is_file(name_or_path: str) -> bool:
    return name_or_path.endswith(".gguf") or "/" in name_or_path or os.sep in name_or_path


@contextlib.contextmanager
def _quiet_stderr():
    """llama.cpp prints load diagnostics straight to fd 2; keep the CLI's output clean."""
    if os.environ.get("GROUNDSQL_DEBUG"):
        yield
        return
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
