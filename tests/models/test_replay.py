"""The benchmark reply store: an identical request is answered from the store, any difference calls the model."""

from __future__ import annotations

import pytest

from groundsql.models import ScriptedModel, load_model
from groundsql.models.replay import ReplayingModel, ReplyStore

pytestmark = pytest.mark.unit


def test_identical_requests_are_replayed_and_others_generated(tmp_path) -> None:
    inner = ScriptedModel(["first", "second", "third"])
    model = ReplayingModel(inner, ReplyStore(tmp_path / "replies.sqlite"))
    ask = [{"role": "user", "content": "How many singers?"}]
    assert model.complete(ask).text == "first"
    assert model.complete(ask).text == "first" and len(inner.calls) == 1 and model.replayed == 1
    assert model.complete(ask, temperature=0.7).text == "second"  # other sampling settings: a new call
    other = ReplayingModel(ScriptedModel(["fresh"]), ReplyStore(tmp_path / "replies.sqlite"))
    assert other.complete(ask).text == "first"  # the store is shared through its file (another process, a run)
    assert other.complete([{"role": "user", "content": "How many songs?"}]).text == "fresh"


def test_the_store_is_off_unless_asked_for(monkeypatch, tmp_path) -> None:
    monkeypatch.delenv("GROUNDSQL_REPLY_STORE", raising=False)
    assert not isinstance(load_model("local:qwen2.5-coder-0.5b"), ReplayingModel)
    monkeypatch.setenv("GROUNDSQL_REPLY_STORE", str(tmp_path / "r.sqlite"))
    assert isinstance(load_model("local:qwen2.5-coder-0.5b"), ReplayingModel)
