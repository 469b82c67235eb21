"""Prompt-lookup drafts: which tokens a draft proposes, how kept tokens are counted, the switch, the wrapping."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from groundsql.errors import ConfigError
from groundsql.models.prefix_cache import PromptCounter
from groundsql.models.prompt_lookup import (
    LOOKUP_ENV,
    PromptLookup,
    find_draft,
    lookup_from_env,
    prompt_lookup,
)

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(("ids", "kwargs", "expected"), [
    # the trailing trigram 1 2 3 recurs at the start: what followed it there
    ([1, 2, 3, 4, 5, 9, 1, 2, 3], {}, [4, 5, 9, 1, 2, 3]),
    # the most recent earlier occurrence wins
    ([7, 8, 1, 7, 8, 2, 0, 7, 8], {}, [2, 0, 7, 8]),
    # a longer n-gram beats a more recent shorter one
    ([5, 7, 8, 1, 9, 7, 8, 2, 5, 7, 8], {}, [1, 9, 7, 8, 2, 5]),
    ([1, 2, 3, 4, 5, 6, 7, 1, 2], {"max_draft": 3}, [3, 4, 5]),
    # no recurring bigram: no draft (a unigram would need min_ngram=1)
    ([1, 2, 3, 4, 3], {}, []),
    ([1, 2, 3, 4, 3], {"min_ngram": 1}, [4, 3]),
    ([4], {}, []),
    ([], {}, []),
])
def test_find_draft(ids: list[int], kwargs: dict, expected: list[int]) -> None:
    assert find_draft(ids, **kwargs).tolist() == expected


def test_kept_tokens_are_counted_up_to_the_first_disagreement() -> None:
    draft = PromptLookup(max_draft=3)
    prompt = [1, 2, 3, 4, 5, 6, 1, 2]
    assert draft(np.array(prompt)).tolist() == [3, 4, 5]
    # the sampler kept 3 and 4, then chose 9 instead of 5
    assert draft(np.array([*prompt, 3, 4, 9])).tolist() == []
    assert (draft.stats.batches, draft.stats.drafted, draft.stats.accepted) == (1, 3, 2)
    draft.finish()
    assert draft.stats.drafted == 3


@pytest.mark.parametrize(("value", "expected"), [("", True), ("0", False), ("off", False), ("1", True),
                                                 ("ON", True), ("false", False)])
def test_switch_from_the_environment(monkeypatch: pytest.MonkeyPatch, value: str, expected: bool) -> None:
    monkeypatch.setenv(LOOKUP_ENV, value)
    assert lookup_from_env(default=True) is expected


def test_a_bad_switch_value_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(LOOKUP_ENV, "sometimes")
    with pytest.raises(ConfigError, match=LOOKUP_ENV):
        lookup_from_env()


class FakeLlama:
    """Just what the wrappers touch: generate/eval methods, the token buffer and llama.cpp's context and batch."""

    def __init__(self) -> None:
        self.draft_model = None
        self.n_batch = 512
        self.n_tokens = 0
        self.input_ids = np.zeros(64, dtype=np.intc)
        self._requires_eval = True
        self.plain_evals: list[list[int]] = []
        self.decoded: list[tuple[list[int], bool]] = []
        batch = SimpleNamespace(set_batch=lambda batch, n_past, logits_all: self.decoded.append((batch, logits_all)))
        self._batch = batch
        self._ctx = SimpleNamespace(kv_cache_seq_rm=lambda *a: True, decode=lambda b: None)

    def eval(self, tokens):
        self.plain_evals.append(list(tokens))
        self.n_tokens += len(tokens)

    def generate(self, tokens, **kwargs):
        self.eval(tokens)  # the prompt
        self.eval([7, 8, 9])  # a draft batch
        yield 7


def test_the_prompt_is_read_as_without_a_draft_and_draft_batches_ask_for_all_logits() -> None:
    llama = FakeLlama()
    with prompt_lookup(llama, PromptLookup()) as draft:
        assert llama.draft_model is draft
        assert list(llama.generate([1, 2, 3])) == [7]
    assert llama.plain_evals == [[1, 2, 3]]
    assert llama.decoded == [([7, 8, 9], True)]
    assert llama.input_ids[3:6].tolist() == [7, 8, 9] and llama.n_tokens == 6
    # everything is back as it was
    assert llama.draft_model is None and "generate" not in vars(llama) and "eval" not in vars(llama)


def test_the_prompt_counter_keeps_a_wrapper_it_finds() -> None:
    llama = FakeLlama()
    with prompt_lookup(llama, PromptLookup()):
        wrapped = vars(llama)["generate"]
        with PromptCounter(llama, None) as counter:
            list(llama.generate([1, 2, 3]))
        assert vars(llama)["generate"] is wrapped
        assert counter.calls[0].prompt_tokens == 3
    assert "generate" not in vars(llama)


@pytest.mark.e2e
def test_the_real_model_writes_the_same_replies_with_and_without_prompt_lookup(local_model, concert_singer,
                                                                               monkeypatch) -> None:
    """Greedy SQL and JSON replies from the same KV prefix, drafted and not: byte-identical, and the drafts were
    used (some of their tokens kept)."""
    import sqlite3

    import groundsql.models.local as local
    from groundsql.models.prefix_cache import common_prefix

    monkeypatch.setattr(local, "cache_for", lambda llama: None)  # the KV prefix of each pair is set here

    with sqlite3.connect(f"file:{concert_singer}?mode=ro", uri=True) as conn:
        ddl = "\n".join(row[0] for row in conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table'"))
    verdict = {"type": "object", "properties": {"tables": {"type": "array", "items": {"type": "string"}},
                                                "valid": {"type": "boolean"}}, "required": ["tables", "valid"]}
    requests = [
        ("Show the name and capacity of each stadium with its number of concerts.", None),
        ("List the names of singers who performed in a concert in 2014, with the concert name.", None),
        ("Which tables does the question 'names of stadiums without any concerts' need?", verdict),
    ]
    llama = local_model._load()
    saved = local_model.prompt_lookup
    try:
        for question, schema in requests:
            messages = [{"role": "system", "content": "You write SQLite queries for this schema.\n" + ddl},
                        {"role": "user", "content": question + (" Reply in JSON." if schema else " SQL only.")}]
            replies, keep = {}, None
            for mode in (False, True):
                if keep is not None:  # the second reads the prompt from where the first began
                    llama.n_tokens = keep
                    llama._ctx.kv_cache_seq_rm(-1, keep, -1)
                before = llama.input_ids[: llama.n_tokens].tolist()
                local_model.prompt_lookup = mode
                reply = local_model.complete(messages, max_tokens=120, json_schema=schema)
                replies[mode] = reply.text
                if keep is None:
                    prompt = llama.input_ids[: reply.prompt_tokens].tolist()
                    keep = min(common_prefix(before, prompt), reply.prompt_tokens - 1)
            assert replies[True] == replies[False], question
    finally:
        local_model.prompt_lookup = saved
    assert local_model.lookup_stats.accepted > 0
