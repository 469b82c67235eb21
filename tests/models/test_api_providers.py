"""OpenAI-compatible and Anthropic providers over a real loopback socket."""

from __future__ import annotations

import pytest

from groundsql.models import load_model
from tests.models.fake_servers import ChatServer

pytest.importorskip("openai")
pytest.importorskip("anthropic")


def echo_last(messages, temperature, index):
    text = f"reply {index}: " + messages[-1]["content"][:20]
    return text, 11, 4


@pytest.mark.unit
def test_openai_compatible_server_with_n_and_usage(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret")
    with ChatServer(echo_last) as server:
        model = load_model(f"openai:tiny@{server.base_url}/v1")
        completion = model.complete([{"role": "user", "content": "hello there"}], n=2, temperature=0.7)
    assert completion.texts == ["reply 0: hello there", "reply 1: hello there"]
    assert completion.prompt_tokens == 11 and completion.completion_tokens == 8
    assert server.requests[0]["n"] == 2 and server.requests[0]["model"] == "tiny"
    assert {k.lower(): v for k, v in server.headers[0].items()}["authorization"] == "Bearer sk-test-secret"
    assert "sk-test-secret" not in model.spec


@pytest.mark.unit
def test_openai_cached_prompt_tokens_reach_the_trace(monkeypatch, tmp_path) -> None:
    """A server's prompt-cache report (usage.prompt_tokens_details.cached_tokens) is counted apart."""
    from groundsql.context import Context
    from groundsql.db import Database

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    db_path = tmp_path / "t.sqlite"
    import sqlite3

    sqlite3.connect(db_path).execute("CREATE TABLE t (a INT)").connection.commit()
    with ChatServer(echo_last, cached_tokens=7) as server:
        model = load_model(f"openai:tiny@{server.base_url}/v1")
        ctx = Context(question="q", db=Database(str(db_path)), models={"default": model})
        completion = ctx.chat("probe", [{"role": "user", "content": "hello"}])
    assert completion.prompt_tokens == 11 and completion.cached_tokens == 7
    usage = ctx.trace.usage()
    assert usage.cached_prompt_tokens == 7 and usage.evaluated_prompt_tokens == 4
    assert usage.to_dict()["cached_prompt_tokens"] == 7


@pytest.mark.unit
def test_openai_rate_limits_are_retried(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    with ChatServer(echo_last, fail_first=2) as server:
        model = load_model(f"openai:tiny@{server.base_url}/v1")
        model.retry.base_delay_s = 0.01
        assert model.complete([{"role": "user", "content": "x"}]).text.startswith("reply 0")
    assert len(server.requests) == 3


@pytest.mark.unit
def test_anthropic_messages_api(monkeypatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "ak-secret")
    with ChatServer(echo_last) as server:
        model = load_model(f"anthropic:claude-test@{server.base_url}")
        completion = model.complete([{"role": "system", "content": "be brief"},
                                     {"role": "user", "content": "hi"}], n=2)
    assert completion.texts == ["reply 0: hi", "reply 0: hi"]
    assert server.requests[0]["system"] == "be brief"
    assert completion.prompt_tokens == 22


@pytest.mark.e2e
def test_openai_provider_against_a_server_backed_by_the_real_model(local_model, monkeypatch) -> None:
    def real(messages, temperature, index):
        out = local_model.complete(messages, temperature=temperature, max_tokens=32, seed=index)
        return out.text, out.prompt_tokens, out.completion_tokens

    monkeypatch.setenv("OPENAI_API_KEY", "k")
    with ChatServer(real) as server:
        model = load_model(f"openai:qwen@{server.base_url}/v1")
        completion = model.complete([{"role": "user", "content": "Write the SQL keyword that reads rows."}])
    assert "SELECT" in completion.text.upper()
    assert completion.prompt_tokens > 5
