"""Syntax retriever (after planning, only when asked for): the model decides whether the plan needs dialect help
and on which topics; the notes themselves come from groundsql, never from the model.

The notes are the shipped per-dialect notes of `groundsql.knowledge` (each checked against the real engine by the
tests); the model only picks topics among theirs.
"""

from __future__ import annotations

import re

from pydantic import Field

from groundsql.context import Context
from groundsql.generation.recap.planner import Plan
from groundsql.generation.recap.replies import Reply, ask_json, short_list
from groundsql.knowledge.dialect_notes import notes_for
from groundsql.prompts import dialect_name, render

TOPICS = ("dates", "concat", "division", "limit", "nulls", "regex", "boolean", "cast", "quoting")
MAX_TOPICS = 3  # a small model tends to ask for every topic; the prompt stays short
#: The words of a question or plan that call for each topic's note (`syntax_topics="keywords"`, no model call).
TOPIC_WORDS = {
    "dates": r"year|years|month|months|day|days|date|dates|week|weeks|time|times|\d{4}",
    "concat": r"full name|concatenat\w*|combine\w*|joined together",
    "division": r"percent\w*|percentage|ratio|proportion|fraction|share|divided|rate",
    "nulls": r"null|nulls|missing|unknown|no value",
    "regex": r"pattern|contains?|containing|starts? with|ends? with|begins? with",
    "boolean": r"true|false|boolean|flag|flagged",
    "cast": r"cast|convert\w*|as a number|numeric",
    "quoting": r"quote\w*|apostrophe",
}


class SyntaxRequest(Reply):
    needed: bool
    topics: list[str] = Field(default_factory=list, json_schema_extra=short_list(len(TOPICS), 40))


def dialect_notes(dialect: str, topics: list[str]) -> dict[str, str]:
    """groundsql's notes on `topics` for `dialect` (topics without a note are left out)."""
    notes = notes_for(dialect)
    return {topic: notes[topic].text for topic in topics if topic in notes}


def keyword_topics(text: str) -> list[str]:
    """The topics whose words `text` uses, in `TOPICS` order, at most `MAX_TOPICS`."""
    lowered = text.lower()
    found = [t for t in TOPICS if t in TOPIC_WORDS and re.search(rf"\b(?:{TOPIC_WORDS[t]})\b", lowered)]
    return found[:MAX_TOPICS]


def retrieve_syntax(ctx: Context, plan: Plan, *, role: str = "generator", mode: str = "model") -> dict[str, str]:
    """The dialect notes the plan needs (empty: none). `mode` "model" asks the model whether help is needed and
    on which topics (the paper's syntax retriever); "keywords" picks the topics whose words the question or the
    plan uses, with no call."""
    if mode == "keywords":
        return dialect_notes(ctx.db.dialect, keyword_topics(f"{ctx.question}\n{plan.text()}"))
    prompt = render("recap_syntax", dialect=dialect_name(ctx.db.dialect), question=ctx.question, plan=plan.text(),
                    topics=", ".join(TOPICS))
    request = ask_json(ctx, "recap:syntax", prompt, SyntaxRequest, role=role, max_tokens=80)
    if request is None or not request.needed:
        return {}
    wanted = [t.strip().lower() for t in request.topics if t.strip().lower() in TOPICS]
    return dialect_notes(ctx.db.dialect, list(dict.fromkeys(wanted))[:MAX_TOPICS])


def notes_text(notes: dict[str, str]) -> str:
    return "\n".join(f"- {topic}: {note}" for topic, note in notes.items())
