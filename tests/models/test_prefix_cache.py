"""The embedded model's prompt-prefix state cache: settings, lookup, eviction, and reuse with the real model."""

from __future__ import annotations

import numpy as np
import pytest

from groundsql.errors import ConfigError
from groundsql.models import prefix_cache
from groundsql.models.prefix_cache import PrefixStateCache, capacity_from_env, common_prefix


@pytest.mark.unit
def test_capacity_comes_from_the_environment(monkeypatch) -> None:
    monkeypatch.delenv("GROUNDSQL_PROMPT_CACHE_MB", raising=False)
    assert capacity_from_env() == prefix_cache.DEFAULT_CAPACITY_MB * 1024 * 1024
    monkeypatch.setenv("GROUNDSQL_PROMPT_CACHE_MB", "0")
    assert capacity_from_env() == 0 and not PrefixStateCache(capacity_from_env()).enabled
    monkeypatch.setenv("GROUNDSQL_PROMPT_CACHE_MB", "lots")
    with pytest.raises(ConfigError, match="GROUNDSQL_PROMPT_CACHE_MB"):
        capacity_from_env()


@pytest.mark.unit
def test_common_prefix() -> None:
    assert common_prefix([1, 2, 3], [1, 2, 4]) == 2
    assert common_prefix([], [1]) == 0 and common_prefix([1, 2], [1, 2, 3]) == 2


class _FakeLlama:
    """What the cache reads of a Llama instance: its tokens; the state bytes come from the patched runtime."""

    def __init__(self) -> None:
        self.input_ids = np.zeros(64, dtype=np.intc)
        self.n_tokens = 0
        self._ctx = type("Ctx", (), {"ctx": None})()
        self._requires_eval = False

    def load(self, tokens: list[int]) -> None:
        self.input_ids[: len(tokens)] = tokens
        self.n_tokens = len(tokens)


@pytest.fixture()
def fake_runtime(monkeypatch):
    """llama.cpp's state functions over a dict: a state is one byte per token, so sizes are easy to reason on."""
    llama_cpp = pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    llama = _FakeLlama()
    loaded: dict[str, bytes] = {}

    def get_size(ctx):
        return llama.n_tokens

    def get_data(ctx, buffer, size):
        for i in range(size):
            buffer[i] = int(llama.input_ids[i]) % 256
        return size

    def set_data(ctx, buffer, size):
        loaded["last"] = bytes(buffer)
        return size

    monkeypatch.setattr(llama_cpp, "llama_state_get_size", get_size)
    monkeypatch.setattr(llama_cpp, "llama_state_get_data", get_data)
    monkeypatch.setattr(llama_cpp, "llama_state_set_data", set_data)
    return llama, loaded


@pytest.mark.unit
def test_restore_loads_the_longest_shared_prefix(fake_runtime) -> None:
    llama, loaded = fake_runtime
    cache = PrefixStateCache(capacity_bytes=100)
    llama.load([1, 2, 3, 4, 5, 6])
    cache.save(llama)
    llama.load([9, 9, 9, 9])
    cache.save(llama)
    assert len(cache) == 2 and cache.size_bytes == 10
    # The loaded state (9, 9, …) shares nothing with the new prompt: the first one is restored.
    assert cache.restore(llama, [1, 2, 3, 4, 7]) is True
    assert llama.input_ids[: llama.n_tokens].tolist() == [1, 2, 3, 4, 5, 6]
    assert llama._requires_eval is True and loaded["last"] == bytes([1, 2, 3, 4, 5, 6])
    # Already loaded: nothing better to restore.
    assert cache.restore(llama, [1, 2, 3, 4, 7]) is False


@pytest.mark.unit
def test_eviction_is_least_recently_used_and_extensions_replace_prefixes(fake_runtime) -> None:
    llama, _ = fake_runtime
    cache = PrefixStateCache(capacity_bytes=12)
    llama.load([1, 1, 1, 1])
    cache.save(llama)
    llama.load([1, 1, 1, 1, 2, 2])  # extends the first: it replaces it
    cache.save(llama)
    assert len(cache) == 1 and cache.size_bytes == 6
    llama.load([3, 3, 3, 3, 3])
    cache.save(llama)
    llama.load([4, 4, 4, 4])  # 6 + 5 + 4 > 12: the least recently used goes
    cache.save(llama)
    assert cache.size_bytes <= 12
    assert cache.best([1, 1, 1, 1, 2, 2])[1] == 0 and cache.best([3, 3, 3])[1] == 3
    llama.load(list(range(20)))  # larger than the whole cache: not kept
    cache.save(llama)
    assert cache.best(list(range(20)))[1] == 0


@pytest.mark.e2e
def test_the_real_model_reuses_a_prefix_it_left_and_answers_the_same(local_model) -> None:
    """Call A, then B with another prefix, then A again: A's prefix comes back from the cache, not re-read, and
    the greedy reply is unchanged."""
    schema_a = "CREATE TABLE singer (singer_id INT, name TEXT, country TEXT, age INT);\n" * 12
    schema_b = "CREATE TABLE orders (order_id INT, customer TEXT, total REAL, placed DATE);\n" * 12

    def ask(schema: str, question: str):
        return local_model.complete([{"role": "system", "content": "You write SQLite SQL."},
                                     {"role": "user", "content": f"{schema}\nQuestion: {question}\nSQL only."}],
                                    max_tokens=24)

    first = ask(schema_a, "How many singers are there?")
    ask(schema_b, "What is the total of all orders?")
    again = ask(schema_a, "How many singers are there?")
    assert again.text == first.text
    assert again.cached_tokens >= again.prompt_tokens - 1  # all but the last token came from the cache
    other = ask(schema_a, "Which singer is the oldest?")
    assert other.prompt_tokens - other.cached_tokens < 40  # only the question's own tokens were read
