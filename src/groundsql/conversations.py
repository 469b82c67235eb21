"""Conversations: a follow-up ("only for 2024", "and by region?") is rewritten by the model into a standalone
question, then answered with the earlier questions and their SQL as context. Turns live in the run store, so a
conversation can be resumed after a restart."""

from __future__ import annotations

import json
import logging
import re
import sqlite3
import time
import unicodedata
import uuid
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from groundsql.answer import Answer
from groundsql.db import Database
from groundsql.db.result import json_safe
from groundsql.errors import ConfigError, ModelError
from groundsql.models import Model
from groundsql.prompts import dialect_name, render
from groundsql.runs import RunStore
from groundsql.trace import ModelCall, Trace

log = logging.getLogger("groundsql")


class ConversationOptions(BaseModel):
    """How much of a conversation a follow-up sees."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    history_turns: int = Field(4, description="Earlier turns shown to the model when rewriting and answering.")
    preview_rows: int = Field(5, description="Result rows of each earlier turn shown to the rewriting model.")
    rewrite_max_tokens: int = Field(120, description="Token cap of the rewritten question.")


@dataclass
class Turn:
    """One question of a conversation as asked, as rewritten, and what it returned."""

    position: int
    question: str
    standalone: str
    sql: str = ""
    run_id: int | None = None
    columns: list[str] = field(default_factory=list)
    preview: list[list[Any]] = field(default_factory=list)
    row_count: int | None = None
    error: str | None = None
    created_at: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Conversation:
    id: str
    database: str
    created_at: float
    title: str | None = None
    turns: list[Turn] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "database": self.database, "created_at": self.created_at, "title": self.title,
                "turns": [t.to_dict() for t in self.turns]}


class ConversationStore:
    """Conversations and their turns, in the run store's SQLite file."""

    def __init__(self, runs: RunStore | None = None):
        self.runs = runs or RunStore()

    def _connect(self) -> AbstractContextManager[sqlite3.Connection]:
        return self.runs.connection(sqlite3.Row)  # the run store's pool: no connection (and cache) per call

    def create(self, database: str, title: str | None = None) -> Conversation:
        """Start a conversation about `database` (a display-safe name or URL, never a password)."""
        conversation = Conversation(id=uuid.uuid4().hex, database=database, created_at=time.time(), title=title)
        with self._connect() as conn:
            conn.execute("INSERT INTO conversations (id, created_at, database, title, active_at) "
                         "VALUES (?, ?, ?, ?, ?)",
                         (conversation.id, conversation.created_at, database, title, conversation.created_at))
        return conversation

    def touch(self, conversation_id: str) -> None:
        """Mark the conversation in use now (an ask has begun): retention leaves it alone for a grace period
        (`groundsql.runs.CONVERSATION_GRACE_S`)."""
        with self._connect() as conn:
            conn.execute("UPDATE conversations SET active_at = ? WHERE id = ?", (time.time(), conversation_id))

    def get(self, conversation_id: str) -> Conversation:
        """The conversation with all its turns.

        Raises:
            ConfigError: no conversation has this id.
        """
        with self._connect() as conn:
            row = conn.execute("SELECT * FROM conversations WHERE id = ?", (conversation_id,)).fetchone()
            if row is None:
                raise ConfigError(f"no conversation {conversation_id!r} in {self.runs.path}")
            turns = conn.execute("SELECT * FROM conversation_turns WHERE conversation_id = ? ORDER BY position",
                                 (conversation_id,)).fetchall()
        return Conversation(id=row["id"], database=row["database"], created_at=row["created_at"],
                            title=row["title"], turns=[_turn(t) for t in turns])

    def recent(self, limit: int = 20, *, database: str | None = None, min_turns: int = 0) -> list[dict[str, Any]]:
        """The latest conversations, newest first: id, created_at, database, title, turns.

        Args:
            limit: at most this many.
            database: only the conversations about this database (the name they were created with).
            min_turns: only those with at least this many turns (1 hides conversations never asked anything).
        """
        where, params = ("WHERE c.database = ?", [database]) if database is not None else ("", [])
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT c.id, c.created_at, c.database, c.title, count(t.id) AS turns FROM conversations c "
                f"LEFT JOIN conversation_turns t ON t.conversation_id = c.id {where} GROUP BY c.id "
                "HAVING count(t.id) >= ? ORDER BY c.created_at DESC LIMIT ?", (*params, min_turns, limit)).fetchall()
        return [dict(r) for r in rows]

    def add_turn(self, conversation: Conversation, turn: Turn) -> Turn:
        turn.position = len(conversation.turns) + 1
        turn.created_at = time.time()
        with self._connect() as conn:
            conn.execute(
                "INSERT INTO conversation_turns (conversation_id, position, created_at, question, standalone, sql, "
                "run_id, columns, preview, row_count, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (conversation.id, turn.position, turn.created_at, turn.question, turn.standalone, turn.sql,
                 turn.run_id, json.dumps(turn.columns), json.dumps(turn.preview, default=json_safe),
                 turn.row_count, turn.error))
            if conversation.title is None:
                conversation.title = turn.standalone[:80]
            updated = conn.execute("UPDATE conversations SET active_at = ?, title = ? WHERE id = ?",
                                   (turn.created_at, conversation.title, conversation.id)).rowcount
            if not updated:  # pruned meanwhile (`runs prune` with tight limits): the turn keeps a home
                log.info("conversation %s was pruned during its ask; stored again with its new turn",
                         conversation.id)
                conn.execute("INSERT INTO conversations (id, created_at, database, title, active_at) "
                             "VALUES (?, ?, ?, ?, ?)", (conversation.id, conversation.created_at,
                                                        conversation.database, conversation.title, turn.created_at))
        conversation.turns.append(turn)
        return turn


def standalone_question(turns: list[Turn], question: str, model: Model, *, dialect: str = "sqlite",
                        trace: Trace | None = None, options: ConversationOptions | None = None) -> str:
    """`question` rewritten to stand alone, given the earlier `turns`; unchanged when there are none, the model
    fails, or its reply is not one plain question (`parse_rewrite`): the failure is logged and recorded on
    `trace` (a `rewrite_followup.fallback` note names why), and the conversation still reaches the answer as
    evidence (`conversation_evidence`)."""
    options = options or ConversationOptions()
    question = question.strip()
    if not turns:
        return question
    prompt = render("rewrite_followup", dialect=dialect_name(dialect),
                    history=_history_text(turns[-options.history_turns:], options.preview_rows), question=question)
    messages = [{"role": "user", "content": prompt}]
    if trace is not None:
        trace.begin("model", "rewrite_followup", role="generator", model=model.spec)
    started = time.perf_counter()
    try:
        completion = model.complete(messages, temperature=0.0, max_tokens=options.rewrite_max_tokens)
    except ModelError as exc:
        log.warning("could not rewrite the follow-up, asking it as written: %s", exc)
        if trace is not None:
            trace.add(ModelCall(role="generator", model=model.spec, step="rewrite_followup", prompt_tokens=0,
                                completion_tokens=0, latency_s=time.perf_counter() - started, messages=messages,
                                error=str(exc)))
        return question
    if trace is not None:
        trace.add(ModelCall(role="generator", model=model.spec, step="rewrite_followup",
                            prompt_tokens=completion.prompt_tokens, completion_tokens=completion.completion_tokens,
                            latency_s=completion.latency_s, messages=messages, outputs=list(completion.texts)))
    reply = completion.texts[0] if completion.texts else ""
    rewritten, problem = parse_rewrite(reply, truncated=0 < options.rewrite_max_tokens <= completion.completion_tokens)
    if problem is None and _script(question) and _script(rewritten) not in ("", _script(question)):
        rewritten, problem = "", "the reply is in another language than the question"
    if problem is not None:
        # the safe path: the user's own words, answered with the conversation's questions and SQL as evidence
        log.info("the follow-up rewrite did not fit (%s); asking the question as written", problem)
        if trace is not None:
            trace.note("rewrite_followup.fallback", reason=problem, reply=reply[:200], question=question)
        return question
    return rewritten


def conversation_evidence(turns: list[Turn], evidence: str | None = None, *, history_turns: int = 4) -> str | None:
    """The user's evidence plus the earlier questions and their SQL, as context for answering a follow-up."""
    parts = [evidence.strip()] if evidence and evidence.strip() else []
    earlier = [t for t in turns[-history_turns:] if t.sql]
    if earlier:
        lines = ["This question follows earlier ones in the same conversation; reuse their logic where it applies."]
        for turn in earlier:
            lines.append(f"Earlier question: {turn.standalone}\nIts SQL: {turn.sql}")
        parts.append("\n".join(lines))
    return "\n".join(parts) or None


AskFunction = Callable[..., Answer]


def ask_in_conversation(
    store: ConversationStore,
    conversation_id: str,
    question: str,
    db: Database,
    *,
    model: Model,
    ask: AskFunction | None = None,
    evidence: str | None = None,
    trace: Trace | None = None,
    record: bool = True,
    conversation_options: ConversationOptions | None = None,
    **ask_options: Any,
) -> tuple[Answer, Turn]:
    """Answer the next question of a conversation and store the turn.

    Args:
        store: where the conversation lives.
        conversation_id: an id from `ConversationStore.create`.
        question: the follow-up as the user wrote it.
        db: the conversation's database.
        model: rewrites the follow-up and answers it.
        ask: the answering function (default `groundsql.ask`), called with the standalone question.
        evidence: extra knowledge from the user.
        trace: the run's trace (the rewrite is recorded on it first).
        record: also log the run in the run store (its id goes on the turn).
        conversation_options: how much history a follow-up sees.
        ask_options: passed on to `ask` (preset, samples, options, catalog).

    Returns:
        The answer and the stored turn (with the standalone question the answer is for).
    """
    if ask is None:
        from groundsql.api import ask
    options = conversation_options or ConversationOptions()
    conversation = store.get(conversation_id)
    store.touch(conversation.id)  # in use: retention leaves it alone while this ask runs
    trace = trace if trace is not None else Trace()
    standalone = standalone_question(conversation.turns, question, model, dialect=db.dialect, trace=trace,
                                     options=options)
    trace.note("conversation", conversation=conversation.id, turn=len(conversation.turns) + 1, question=question,
               standalone=standalone)
    context = conversation_evidence(conversation.turns, evidence, history_turns=options.history_turns)
    answer = ask(standalone, db, model=model, evidence=context, trace=trace, **ask_options)
    run_id = store.runs.record(answer, db.display) if record else None
    result = answer.result
    turn = Turn(position=0, question=question.strip(), standalone=standalone, sql=answer.sql, run_id=run_id,
                columns=list(result.columns) if result is not None else [],
                preview=[[json_safe(v) for v in row] for row in result.rows[: options.preview_rows]]
                if result is not None else [],
                row_count=result.row_count if result is not None else None, error=answer.error)
    store.add_turn(conversation, turn)
    return answer, turn


def _turn(row: sqlite3.Row) -> Turn:
    return Turn(position=row["position"], question=row["question"], standalone=row["standalone"], sql=row["sql"] or "",
                run_id=row["run_id"], columns=json.loads(row["columns"] or "[]"),
                preview=json.loads(row["preview"] or "[]"), row_count=row["row_count"], error=row["error"],
                created_at=row["created_at"])


def _history_text(turns: list[Turn], preview_rows: int) -> str:
    blocks = []
    for index, turn in enumerate(turns, 1):
        lines = [f"{index}. Question: {turn.standalone}"]
        if turn.sql:
            lines.append(f"   SQL: {turn.sql}")
        if turn.error:
            lines.append(f"   It failed: {turn.error}")
        elif turn.columns:
            shown = "; ".join(", ".join("NULL" if v is None else str(v) for v in row)
                              for row in turn.preview[:preview_rows])
            lines.append(f"   Result: {turn.row_count} row(s) of {', '.join(turn.columns)}"
                         + (f"; first: {shown}" if shown else ""))
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


#: Lead-ins a model puts before the question it was asked for; stripped, never kept as the question.
_LEAD_INS = ("standalone question:", "rewritten question:", "question:", "rewritten:", "standalone:")
_REFUSALS = ("i'm sorry", "i am sorry", "sorry, i", "i cannot", "i can't", "i can not", "as an ai")
_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
#: A rewritten question longer than this is prose or a runaway reply, not one question.
MAX_REWRITE_CHARS = 400


def parse_rewrite(text: str, *, truncated: bool = False) -> tuple[str, str | None]:
    """The standalone question in a rewrite reply, or ('', why the reply does not fit).

    Only a reply that reads as one plain-language question is taken: a fenced block, SQL, JSON without a
    question in it, an empty or cut-off reply, a runaway paragraph or a reply in another script (judged by the
    caller) is refused, and the caller asks the user's own question instead.
    """
    text = "".join(c for c in text or "" if c in "\n\t" or unicodedata.category(c) != "Cc")
    text = _THINK.sub("", text).strip()
    if not text:
        return "", "empty reply"
    if truncated or "<think>" in text.lower():
        return "", "the reply was cut at its token limit"
    if "```" in text:
        return "", "a fenced block, not a question"
    if "{" in text:  # a JSON object, maybe with prose around it: only its question field counts
        found, problem = _question_in_json(text)
        if found or text[0] == "{":
            return found, problem
    if text[0] == "[":
        return "", "JSON without a question (a list)"
    for line in text.splitlines():
        line = _unquote(line)
        lowered = line.lower()
        for prefix in _LEAD_INS:
            if lowered.startswith(prefix):
                line = _unquote(line[len(prefix):])
                break
        if not any(c.isalnum() for c in line) or line.startswith("#") or (line.endswith(":") and "?" not in line):
            continue  # a blank line, a heading or a lead-in ("Sure, here is the rewritten question:")
        if lowered.startswith(_REFUSALS):
            return "", "a refusal, not a question"
        if _is_sql(line):
            return "", "SQL where a question was asked"
        if len(line) > MAX_REWRITE_CHARS:
            return "", f"longer than {MAX_REWRITE_CHARS} characters: not one question"
        return line, None
    return "", "no question in the reply"


def _first_question_line(text: str) -> str:
    """The question in a rewrite reply, or '' (see `parse_rewrite`)."""
    return parse_rewrite(text)[0]


def _unquote(line: str) -> str:
    return line.strip().strip("*_").strip().strip("\"'`“”‘’«»").strip()


def _is_sql(line: str) -> bool:
    import sqlglot
    from sqlglot.errors import SqlglotError

    first = line.split(None, 1)[0].upper() if line.split() else ""
    if first not in {"SELECT", "WITH", "INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "ALTER", "PRAGMA"}:
        return False
    try:
        return any(p is not None for p in sqlglot.parse(line.rstrip(";")))
    except (SqlglotError, ValueError):
        return first in {"SELECT", "WITH"}  # a cut or broken query is still no question


def _question_in_json(text: str) -> tuple[str, str | None]:
    from groundsql.models.base import parse_json

    value, problem = parse_json(text)
    if isinstance(value, dict):
        for key in ("standalone_question", "standalone", "question", "rewritten_question", "rewritten"):
            found = value.get(key)
            if isinstance(found, str) and found.strip():
                return parse_rewrite(found)
    return "", f"JSON without a question ({problem or 'no question field'})"


def _script(text: str) -> str:
    """'latin', 'other' or '' (no letters): enough to tell a reply that switched language from one that did not."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return ""
    latin = sum(1 for c in letters if ord(c) < 0x250)
    return "latin" if latin >= 0.5 * len(letters) else "other"
