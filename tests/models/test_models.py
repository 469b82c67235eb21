"""The Model interface: scripted double, JSON validation with repair, retries, spec parsing."""

from __future__ import annotations

import json

import pytest

from groundsql.errors import ConfigError, ModelError, TransientModelError
from groundsql.models import RetryPolicy, ScriptedModel, load_model, parse_json
from groundsql.models.base import Completion, Model

pytestmark = pytest.mark.unit

SCHEMA = {"type": "object", "properties": {"tables": {"type": "array", "items": {"type": "string"}}},
          "required": ["tables"]}


def test_scripted_model_queues_and_records() -> None:
    model = ScriptedModel(["one", lambda messages: messages[-1]["content"].upper()])
    first = model.complete([{"role": "user", "content": "hi"}])
    second = model.complete([{"role": "user", "content": "echo"}])
    assert (first.text, second.text) == ("one", "ECHO")
    assert [c["messages"][-1]["content"] for c in model.calls] == ["hi", "echo"]
    with pytest.raises(ModelError, match="no scripted reply"):
        model.complete([{"role": "user", "content": "more"}])


def test_json_output_is_validated_and_repaired_once() -> None:
    model = ScriptedModel(['{"tables": "singer"}', 'Sure! {"tables": ["singer"]}'])
    completion = model.complete([{"role": "user", "content": "which tables?"}], json_schema=SCHEMA)
    assert completion.data == [{"tables": ["singer"]}]
    repair_prompt = model.calls[1]["messages"][-1]["content"]
    assert "schema violation" in repair_prompt


def test_the_repair_prompt_quotes_a_short_schema_and_not_a_long_one() -> None:
    from groundsql.models.base import REPAIR_SCHEMA_CHARS

    model = ScriptedModel(['{"tables": "singer"}', '{"tables": ["singer"]}'])
    model.complete([{"role": "user", "content": "which tables?"}], json_schema=SCHEMA)
    assert model.calls[1]["messages"][-1]["content"].endswith(
        f"Reply again with only a JSON object that follows this schema:\n{json.dumps(SCHEMA)}")
    long = {**SCHEMA, "description": "x" * REPAIR_SCHEMA_CHARS}
    model = ScriptedModel(['{"tables": "singer"}', '{"tables": ["singer"]}'])
    assert model.complete([{"role": "user", "content": "which tables?"}], json_schema=long).data
    repair = model.calls[1]["messages"][-1]["content"]
    assert "schema violation" in repair and "xxxx" not in repair and repair.endswith("with that fixed.")


def test_json_output_that_stays_invalid_gives_none() -> None:
    model = ScriptedModel(["no json here", "still none"])
    completion = model.complete([{"role": "user", "content": "x"}], json_schema=SCHEMA)
    assert completion.data == [None]


def test_parse_json_handles_fences_and_prose() -> None:
    assert parse_json('```json\n{"tables": ["a"]}\n```', SCHEMA) == ({"tables": ["a"]}, None)
    value, problem = parse_json("{oops", SCHEMA)
    assert value is None and "invalid JSON" in problem


class Flaky(Model):
    spec = "flaky:test"

    def __init__(self, failures: int):
        super().__init__(retry=RetryPolicy(attempts=3, base_delay_s=0.01))
        self.failures = failures
        self.attempts = 0

    def _generate(self, messages, **kw) -> Completion:
        self.attempts += 1
        if self.attempts <= self.failures:
            raise TransientModelError("rate limited")
        return Completion(texts=["ok"], prompt_tokens=3, completion_tokens=1)


def test_transient_errors_are_retried_with_backoff() -> None:
    model = Flaky(failures=2)
    assert model.complete([{"role": "user", "content": "x"}]).text == "ok"
    assert model.attempts == 3


def test_retries_give_up_with_a_clear_error() -> None:
    with pytest.raises(ModelError, match="giving up after 3 attempts"):
        Flaky(failures=5).complete([{"role": "user", "content": "x"}])


def test_spec_parsing_errors() -> None:
    with pytest.raises(ConfigError, match="unknown model"):
        load_model("local:qwen-9000")
    with pytest.raises(ConfigError, match="unknown model provider"):
        load_model("mystery:thing")


def test_api_keys_come_from_the_environment(monkeypatch) -> None:
    pytest.importorskip("openai")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        load_model("openai:gpt-4o-mini")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
    model = load_model("openai:gpt-4o-mini")
    assert "sk-secret" not in model.spec
