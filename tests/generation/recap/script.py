"""A scripted model for the recap agents: replies chosen by which agent's prompt it was given."""

from __future__ import annotations

import json
from collections.abc import Callable

from groundsql.models import ScriptedModel

#: A phrase only that agent's prompt (the last message) contains.
AGENTS = {
    "plan": "You plan how",
    "plan-critique": "Review a plan",
    "syntax": "Would notes on",
    "action": "one action at a time",
    "sql-critique": "Review a ",  # checked after plan-critique
    "link": "does not exist.",
    "validate": "Check whether a query result",
    "refine": "Write a corrected",
    "judge": "Reply with the candidate number only",
    "presql": "with a few example rows for each table",  # the one-call generation prompt (PreSQL draft)
}

FRENCH = "SELECT name FROM singer WHERE country = 'France'"


def plan(*steps: str, columns: tuple[str, ...] = ("name",)) -> str:
    return json.dumps({"steps": list(steps), "expected_columns": [{"name": c, "type": "TEXT"} for c in columns]})


def act(action: str, sql: str = "") -> str:
    return json.dumps({"thought": "next", "action": action, "sql": sql})


class AgentScript:
    """Queued replies per agent; an agent whose queue is empty gets its default (a valid, agreeable reply)."""

    DEFAULTS = {
        "plan": plan("filter singer by country", "select the name"),
        "plan-critique": '{"update_plan": false, "reasons": []}',
        "syntax": '{"needed": false, "topics": []}',
        "action": act("run_sql", FRENCH),
        "sql-critique": "[Reasoning] none\n[SQL] no change",
        "link": '{"tables": [{"name": "singer", "columns": ["name", "country"]}]}',
        "validate": '{"valid_result": true}',
        "refine": f"```sql\n{FRENCH}\n```",
        "judge": "1",
        "presql": f"```sql\n{FRENCH}\n```",
    }

    def __init__(self, name: str = "scripted", **queues: list[str] | Callable[[str], str]):
        self.queues = {agent.replace("_", "-"): list(replies) for agent, replies in queues.items()}
        self.prompts: dict[str, list[str]] = {}
        self.model = ScriptedModel(default=self._reply, name=name)

    def _reply(self, messages) -> str:
        """The agent is told by the latest user message naming one (a repair request repeats the original)."""
        for message in reversed(messages):
            agent = next((a for a, phrase in AGENTS.items() if phrase in message["content"]), None)
            if message["role"] == "user" and agent:
                text = message["content"]
                break
        else:
            raise AssertionError(f"no agent prompt in {messages[-1]['content'][:200]!r}")
        self.prompts.setdefault(agent, []).append(text)
        queue = self.queues.get(agent)
        return queue.pop(0) if queue else self.DEFAULTS[agent]

    def calls(self, agent: str) -> int:
        return len(self.prompts.get(agent, []))
