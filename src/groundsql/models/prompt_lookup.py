"""Speculative decoding by prompt lookup for the embedded model.

SQL, JSON verdicts and plans copy table, column and value names from their prompt. After each generated token the
draft looks up the longest recent n-gram of the text so far in the earlier tokens and proposes the tokens that
followed it there; llama.cpp reads the next token and the draft in one batch, and the sampler, run position by
position, keeps the draft up to its first disagreement. Every kept token is the one the sampler chose from the
model's own logits, so a grammar or JSON schema, stop sequences, the wall-clock stop and the seed see the same
tokens in the same order as without the draft; only the number of llama.cpp decode calls falls.

llama-cpp-python's own support (`Llama(draft_model=...)`) turns on logits for every token, prompt included: an
n_ctx × vocabulary score buffer (5 GB at 8192 tokens for Qwen2.5) and the output layer on every prompt token. Here
the prompt is read exactly as without the draft (logits of its last token only) and only the draft batches ask
for all their logits. The outputs stay byte-identical only where llama.cpp computes a token's logits the same in
a batch of several tokens as alone; on the CPU it does not quite (one reply in 40 differed), and the drafts did
not pay there either, so they are off by default (`benchmarks/speed.py lookup`, docs/speed.md).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from groundsql.errors import ConfigError

LOOKUP_ENV = "GROUNDSQL_PROMPT_LOOKUP"
#: The longest n-gram looked up (longer ones are tried first) and the shortest one that may propose a draft.
MAX_NGRAM = 3
MIN_NGRAM = 2
#: The most tokens one draft proposes (a longer draft costs more when its first token is wrong).
MAX_DRAFT = 6


def lookup_from_env(default: bool = False) -> bool:
    """Whether prompt lookup is on: GROUNDSQL_PROMPT_LOOKUP (1/on/true or 0/off/false), else `default`."""
    value = os.environ.get(LOOKUP_ENV, "").strip().lower()
    if not value:
        return default
    if value in {"1", "on", "true", "yes"}:
        return True
    if value in {"0", "off", "false", "no"}:
        return False
    raise ConfigError(f"{LOOKUP_ENV} must be on or off (1/0), got {value!r}")


def find_draft(ids: Sequence[int] | np.ndarray, *, max_ngram: int = MAX_NGRAM, min_ngram: int = MIN_NGRAM,
               max_draft: int = MAX_DRAFT) -> np.ndarray:
    """The tokens that followed the most recent earlier occurrence of the longest trailing n-gram of `ids`
    (n from `max_ngram` down to `min_ngram`), at most `max_draft` of them; empty when no n-gram recurs."""
    ids = np.asarray(ids, dtype=np.intc)
    length = int(ids.shape[0])
    for size in range(min(max_ngram, length - 1), min_ngram - 1, -1):
        tail = ids[length - size:]
        # windows starting at 0 … length-size-1: each one ends before the tail does and has a continuation
        windows = np.lib.stride_tricks.sliding_window_view(ids[: length - 1], size)
        hits = np.flatnonzero(np.all(windows == tail, axis=1))
        if hits.size:
            start = int(hits[-1]) + size
            return ids[start: min(start + max_draft, length)].copy()
    return np.empty(0, dtype=np.intc)


@dataclass
class LookupStats:
    """Decode work of the calls made with prompt lookup: draft batches, tokens proposed, tokens kept."""

    batches: int = 0
    drafted: int = 0
    accepted: int = 0

    def add(self, other: LookupStats) -> None:
        self.batches += other.batches
        self.drafted += other.drafted
        self.accepted += other.accepted


class PromptLookup:
    """A llama-cpp-python draft model (`Llama.draft_model`): proposes a draft copied from earlier tokens, and
    counts how much of each draft the sampler kept."""

    def __init__(self, *, max_ngram: int = MAX_NGRAM, min_ngram: int = MIN_NGRAM, max_draft: int = MAX_DRAFT):
        self.max_ngram, self.min_ngram, self.max_draft = max_ngram, min_ngram, max_draft
        self.stats = LookupStats()
        self._last: np.ndarray = np.empty(0, dtype=np.intc)
        self._offset = 0  # where the last draft starts in the token sequence

    def __call__(self, input_ids: np.ndarray, /, **kwargs: Any) -> np.ndarray:
        self._settle(input_ids)
        draft = find_draft(input_ids, max_ngram=self.max_ngram, min_ngram=self.min_ngram, max_draft=self.max_draft)
        self._last, self._offset = draft, int(input_ids.shape[0])
        return draft

    def _settle(self, input_ids: np.ndarray) -> None:
        """Count the previous draft, and its tokens that the sequence now holds (the sampler kept them)."""
        if not self._last.size:
            return
        self.stats.batches += 1
        self.stats.drafted += int(self._last.size)
        held = input_ids[self._offset: self._offset + self._last.size]
        kept = 0
        for a, b in zip(held.tolist(), self._last.tolist()):
            if a != b:
                break
            kept += 1
        self.stats.accepted += kept
        self._last = np.empty(0, dtype=np.intc)

    def finish(self) -> None:
        """End a completion: its last draft, checked or not when generation stopped, is left out of the counts."""
        self._last = np.empty(0, dtype=np.intc)


@contextlib.contextmanager
def prompt_lookup(llama: Any, draft: PromptLookup) -> Iterator[PromptLookup]:
    """Decode with `draft` for the chat calls made in the block (the caller holds the model's run lock).

    The prompt of each completion is read as without a draft; the batches that check a draft ask llama.cpp for
    the logits of every token in them, which the sampler reads position by position."""
    original_generate, original_eval = llama.generate, llama.eval
    prompt_read = [False]

    def generate(*args: Any, **kwargs: Any) -> Any:
        prompt_read[0] = False
        return original_generate(*args, **kwargs)

    def evaluate(tokens: Sequence[int]) -> None:
        if not prompt_read[0]:
            prompt_read[0] = True
            original_eval(tokens)
            return
        _eval_all_logits(llama, tokens)

    llama.generate, llama.eval, llama.draft_model = generate, evaluate, draft
    try:
        yield draft
    finally:
        draft.finish()
        llama.draft_model = None
        llama.__dict__.pop("generate", None)
        llama.__dict__.pop("eval", None)


def _eval_all_logits(llama: Any, tokens: Sequence[int]) -> None:
    """`Llama.eval` for a draft batch: every token's logits are kept in llama.cpp's output buffer for the sampler
    (not copied to the Python-side score array, which is sized for one batch's last tokens)."""
    tokens = list(tokens)
    if len(tokens) > llama.n_batch:  # never for a draft; keep the plain path for anything else
        llama.__class__.eval(llama, tokens)
        return
    llama._ctx.kv_cache_seq_rm(-1, llama.n_tokens, -1)
    n_past = llama.n_tokens
    llama._batch.set_batch(batch=tokens, n_past=n_past, logits_all=True)
    llama._ctx.decode(llama._batch)
    llama.input_ids[n_past: n_past + len(tokens)] = tokens
    llama.n_tokens += len(tokens)
    llama._requires_eval = False
