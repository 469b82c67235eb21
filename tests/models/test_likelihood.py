"""How probable the model found each reply: read beside the sampler, stored with replays, summarised per reply."""

from __future__ import annotations

import sqlite3

import pytest

from groundsql.models import ScriptedModel
from groundsql.models.base import Completion, Likelihood
from groundsql.models.replay import ReplayingModel, ReplyStore


@pytest.mark.unit
def test_the_summary_of_token_log_probabilities() -> None:
    assert Likelihood.of([]) is None
    summary = Likelihood.of([-0.1, -2.5, -0.4])
    assert summary == Likelihood(mean=-1.0, least=-2.5, tokens=3)
    assert summary.to_dict() == {"mean": -1.0, "least": -2.5, "tokens": 3, "content_mean": None,
                                 "content_least": None}
    # the fence, the newline and the closing semicolon are formatting: a near tie there says nothing
    tokens = ["```", "sql", "\n", "SELECT", " name", ";", "\n", "```", ""]
    logprobs = [-0.01, -0.2, -0.01, -0.05, -0.3, -0.69, -0.02, -0.01, -0.4]
    fenced = Likelihood.of(logprobs, tokens)
    assert fenced.least == -0.69 and fenced.tokens == 9
    assert (fenced.content_least, fenced.content_mean) == (-0.3, -0.175)
    assert Likelihood.of([-0.5], [";"]).content_least is None


@pytest.mark.unit
def test_a_replayed_reply_keeps_its_likelihood(tmp_path) -> None:
    class Sure(ScriptedModel):
        def _generate(self, messages, **kw) -> Completion:
            completion = super()._generate(messages, **kw)
            completion.likelihoods = [Likelihood(mean=-0.25, least=-1.5, tokens=4)]
            return completion

    store = ReplyStore(tmp_path / "replies.sqlite")
    ask = [{"role": "user", "content": "How many singers?"}]
    first = ReplayingModel(Sure(["SELECT 1"]), store).complete(ask)
    again = ReplayingModel(ScriptedModel([]), store).complete(ask)  # the inner model is never called
    assert again.text == first.text == "SELECT 1"
    assert again.likelihoods == first.likelihoods == [Likelihood(mean=-0.25, least=-1.5, tokens=4)]


@pytest.mark.unit
def test_a_store_written_before_likelihoods_opens_and_replays(tmp_path) -> None:
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as conn:  # the layout of earlier stores
        conn.execute("CREATE TABLE replies (key TEXT PRIMARY KEY, texts TEXT NOT NULL, prompt_tokens INTEGER, "
                     "completion_tokens INTEGER, cached_tokens INTEGER)")
    ask = [{"role": "user", "content": "How many songs?"}]
    store = ReplyStore(path)
    key = store.key("scripted", ask, n=1)
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO replies (key, texts, prompt_tokens, completion_tokens, cached_tokens) "
                     "VALUES (?, '[\"SELECT 2\"]', 5, 2, 0)", (key,))
    replayed = ReplyStore(path).get(key)
    assert replayed.text == "SELECT 2" and replayed.likelihoods == []


@pytest.mark.e2e
def test_the_real_model_reports_a_likelihood_and_answers_the_same(local_model) -> None:
    """Reading the logits beside the sampler changes no reply: the same greedy reply with llama-cpp-python called
    directly; a reply the model copies from its prompt is more probable than one it has to invent."""
    copy = [{"role": "user", "content": "Repeat exactly, nothing else: SELECT name FROM singer"}]
    invent = [{"role": "user", "content": "Name one invented word, nothing else."}]
    sure = local_model.complete(copy, max_tokens=16)
    unsure = local_model.complete(invent, max_tokens=16)
    for completion in (sure, unsure):
        (likelihood,) = completion.likelihoods
        assert likelihood is not None and likelihood.tokens >= 1
        assert likelihood.least <= likelihood.mean <= 0.0
        assert likelihood.content_least is not None and likelihood.least <= likelihood.content_least <= 0.0
    assert sure.likelihoods[0].mean > unsure.likelihoods[0].mean
    llama = local_model._load()
    plain = llama.create_chat_completion(messages=copy, max_tokens=16, temperature=0.0, seed=1234)
    assert plain["choices"][0]["message"]["content"] == sure.text
