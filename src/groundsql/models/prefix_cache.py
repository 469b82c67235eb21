"""Prompt-prefix reuse for the embedded model: a RAM cache of llama.cpp states, keyed by the tokens they hold.

llama.cpp keeps the KV cache of the *previous* call and re-reads only the part of a new prompt that differs from
it. groundsql's prompts put a stable prefix first (system text, then the database's schema block), but a run
alternates between prompts (the whole schema, a linked subset, a judge's prompt), so the prefix in the KV cache
is often not the one the next call needs. This cache keeps the states of recent calls and, before a call,
restores the one sharing the longest prefix with the new prompt, when that beats what is already loaded.

Only the KV state and its tokens are stored (llama-cpp-python's own `LlamaRAMCache` also copies the logits
buffer, about 300 MB a state, which sampling never reads). The cache also counts, per call, how many prompt
tokens were served from the KV cache and how many were evaluated.
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

#: Default capacity in MiB (GROUNDSQL_PROMPT_CACHE_MB; 0 turns the cache off).
DEFAULT_CAPACITY_MB = 1024
#: A state is kept only when its call read at least this many new prompt tokens (a prefix worth restoring).
MIN_NEW_TOKENS = 64


def capacity_from_env() -> int:
    """The cache capacity in bytes from GROUNDSQL_PROMPT_CACHE_MB (default 1024; 0 disables it)."""
    value = os.environ.get("GROUNDSQL_PROMPT_CACHE_MB", "").strip()
    if not value:
        return DEFAULT_CAPACITY_MB * 1024 * 1024
    try:
        megabytes = int(value)
    except ValueError:
        from groundsql.errors import ConfigError

        raise ConfigError(f"GROUNDSQL_PROMPT_CACHE_MB must be a whole number of MiB, got {value!r}") from None
    return max(0, megabytes) * 1024 * 1024


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """How many leading tokens `a` and `b` share."""
    count = 0
    for x, y in zip(a, b):
        if x != y:
            break
        count += 1
    return count


@dataclass
class _State:
    tokens: tuple[int, ...]
    data: bytes


@dataclass
class PromptReuse:
    """Prompt tokens of one completion: how many came from the KV cache, how many were evaluated."""

    prompt_tokens: int = 0
    cached_tokens: int = 0
    restored: bool = False  # a cached state was loaded for it


class PrefixStateCache:
    """Least-recently-used llama.cpp states, up to `capacity_bytes`, for one loaded model.

    Not thread-safe by itself: the embedded model runs one call at a time under its run lock.
    """

    def __init__(self, capacity_bytes: int) -> None:
        self.capacity_bytes = capacity_bytes
        self._states: OrderedDict[tuple[int, ...], _State] = OrderedDict()
        self._size = 0
        self.hits = 0
        self.saves = 0

    @property
    def enabled(self) -> bool:
        return self.capacity_bytes > 0

    def __len__(self) -> int:
        return len(self._states)

    @property
    def size_bytes(self) -> int:
        return self._size

    def best(self, tokens: Sequence[int]) -> tuple[_State | None, int]:
        """The stored state sharing the longest prefix with `tokens`, and that length."""
        best, best_len = None, 0
        for state in self._states.values():
            length = common_prefix(state.tokens, tokens)
            if length > best_len:
                best, best_len = state, length
        return best, best_len

    def restore(self, llama: Any, tokens: Sequence[int]) -> bool:
        """Load the state that shares more of `tokens` than the loaded one does; True when one was loaded."""
        if not self._states:
            return False
        state, length = self.best(tokens)
        loaded = common_prefix(llama.input_ids[: llama.n_tokens].tolist(), tokens) if llama.n_tokens else 0
        if state is None or length <= loaded:
            return False
        import llama_cpp

        size = len(state.data)
        buffer = (ctypes.c_uint8 * size).from_buffer_copy(state.data)
        if llama_cpp.llama_state_set_data(llama._ctx.ctx, buffer, size) != size:
            return False  # a state that does not fit this context: read the prompt instead
        count = len(state.tokens)
        llama.input_ids[:count] = state.tokens
        llama.n_tokens = count
        llama._requires_eval = True  # restored logits must not be sampled from: re-read at least one token
        self._states.move_to_end(state.tokens)
        self.hits += 1
        return True

    def save(self, llama: Any) -> None:
        """Store the loaded state (prompt and completion tokens), evicting the least recently used."""
        import llama_cpp

        count = int(llama.n_tokens)
        if count == 0:
            return
        tokens = tuple(int(t) for t in llama.input_ids[:count])
        size = int(llama_cpp.llama_state_get_size(llama._ctx.ctx))
        if size > self.capacity_bytes:
            return
        buffer = (ctypes.c_uint8 * size)()
        written = int(llama_cpp.llama_state_get_data(llama._ctx.ctx, buffer, size))
        data = bytes(memoryview(buffer)[:written])
        # A stored state whose tokens the new one extends is subsumed by it.
        for key in [k for k in self._states if tokens[: len(k)] == k]:
            self._drop(key)
        self._states[tokens] = _State(tokens, data)
        self._size += len(data)
        self.saves += 1
        while self._size > self.capacity_bytes and self._states:
            self._drop(next(iter(self._states)))

    def _drop(self, key: tuple[int, ...]) -> None:
        state = self._states.pop(key)
        self._size -= len(state.data)


class PromptCounter:
    """Wraps a Llama instance's `generate` for the duration of a block: restores the best cached state before
    the prompt is read and records how much of the prompt the KV cache served."""

    def __init__(self, llama: Any, cache: PrefixStateCache | None) -> None:
        self.llama = llama
        self.cache = cache
        self.calls: list[PromptReuse] = []

    def __enter__(self) -> PromptCounter:
        llama, cache, calls = self.llama, self.cache, self.calls
        original = llama.generate
        self._wrapped = llama.__dict__.get("generate")  # another wrapper already in place (prompt lookup)

        def generate(tokens: Sequence[int], *args: Any, **kwargs: Any) -> Iterator[int]:
            tokens = list(tokens)
            restored = bool(cache and cache.enabled and cache.restore(llama, tokens))
            cached = 0
            if llama.n_tokens:
                # As llama-cpp-python's generate does: the shared prefix is kept, less one token when the
                # whole prompt is already there (it is re-read to refresh the logits).
                shared = common_prefix(llama.input_ids[: llama.n_tokens].tolist(), tokens)
                cached = min(shared, len(tokens) - 1)
            calls.append(PromptReuse(prompt_tokens=len(tokens), cached_tokens=max(0, cached), restored=restored))
            return original(tokens, *args, **kwargs)

        llama.generate = generate
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._wrapped is not None:
            self.llama.generate = self._wrapped
        else:
            del self.llama.generate

    @property
    def cached_tokens(self) -> int:
        return sum(c.cached_tokens for c in self.calls)

    @property
    def evaluated_tokens(self) -> int:
        """Prompt tokens the model had to read in the block."""
        return sum(c.prompt_tokens - c.cached_tokens for c in self.calls)


_CACHES: dict[int, PrefixStateCache] = {}
_CACHES_LOCK = threading.Lock()


def cache_for(llama: Any) -> PrefixStateCache | None:
    """The state cache of a loaded model (created on first use), or None when GROUNDSQL_PROMPT_CACHE_MB=0."""
    with _CACHES_LOCK:
        if id(llama) not in _CACHES:
            _CACHES[id(llama)] = PrefixStateCache(capacity_from_env())
        cache = _CACHES[id(llama)]
    return cache if cache.enabled else None


def forget(llama: Any) -> None:
    """Drop a closed model's cache."""
    with _CACHES_LOCK:
        _CACHES.pop(id(llama), None)
