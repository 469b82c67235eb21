"""The IPython magic: ``%load_ext groundsql``, then ``%%ask --db URL`` over a question (or ``%ask QUESTION``).

Each call returns the `Answer` (shown as HTML, kept in ``_``), and the questions of one notebook form one
conversation: a follow-up ("and by country?") is rewritten into a standalone question from the turns before it
(`groundsql.conversations`). ``--new`` starts another conversation; a different ``--db`` starts one by itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from groundsql.answer import Answer
from groundsql.errors import ConfigError

USAGE = ("%%ask [--db URL] [--model SPEC] [--preset NAME] [--max-rows N] [--new] [--no-record]  (the question is "
         "the cell's body)\n%ask [options] QUESTION")


@dataclass
class AskSession:
    """What a notebook's asks share: the open database, the loaded model and the conversation."""

    db_url: str | None = None
    model_spec: str | None = None
    max_rows: int | None = None
    databases: dict[tuple[str, int | None], Any] = field(default_factory=dict)
    models: dict[str, Any] = field(default_factory=dict)
    conversation_id: str | None = None
    store: Any = None

    def ask(self, line: str, cell: str | None = None) -> Answer:
        """Parse the magic's `line` (options, and the question for a line magic) and answer the question."""
        options, words = _parse(line)
        question = (cell if cell is not None and cell.strip() else " ".join(words)).strip()
        if not question:
            raise ConfigError(f"no question: {USAGE}")
        if options["db"] and options["db"] != self.db_url:
            self.db_url, self.conversation_id = options["db"], None
        if self.db_url is None:
            raise ConfigError(f"no database yet: give one with --db URL ({USAGE})")
        if options["model"]:
            self.model_spec = options["model"]
        if options["max_rows"] is not None:
            self.max_rows = options["max_rows"]
        if options["new"]:
            self.conversation_id = None
        db = self._database()
        model = self._model()
        from groundsql.conversations import ConversationStore, ask_in_conversation
        from groundsql.runs import RunStore

        if self.store is None:
            self.store = ConversationStore(RunStore())
        if self.conversation_id is None:
            self.conversation_id = self.store.create(db.display, "notebook").id
        settings: dict[str, Any] = {"preset": options["preset"]} if options["preset"] else {}
        answer, _ = ask_in_conversation(self.store, self.conversation_id, question, db, model=model,
                                        record=options["record"], **settings)
        return answer

    def _database(self) -> Any:
        from groundsql.api import connect
        from groundsql.db import DEFAULT_MAX_ROWS

        key = (self.db_url or "", self.max_rows)
        if key not in self.databases:
            self.databases[key] = connect(self.db_url or "", max_rows=self.max_rows or DEFAULT_MAX_ROWS)
        return self.databases[key]

    def _model(self) -> Any:
        from groundsql.models import DEFAULT_MODEL, load_model

        spec = self.model_spec or DEFAULT_MODEL
        if spec not in self.models:
            self.models[spec] = load_model(spec)
        return self.models[spec]


_VALUED = {"--db": "db", "--model": "model", "--preset": "preset", "--max-rows": "max_rows"}
_FLAGS = {"--new": ("new", True), "--record": ("record", True), "--no-record": ("record", False)}


def _parse(line: str) -> tuple[dict[str, Any], list[str]]:
    """The leading options of a magic's line, and the words after them (a line magic's question, verbatim:
    quotes and apostrophes in it are the user's text, not shell syntax)."""
    options: dict[str, Any] = {"db": None, "model": None, "preset": None, "max_rows": None, "new": False,
                               "record": True}
    words = line.split()
    while words and words[0].startswith("--"):
        word = words.pop(0)
        name, _, inline = word.partition("=")
        if name in _FLAGS and not inline:
            key, value = _FLAGS[name]
            options[key] = value
        elif name in _VALUED:
            if not inline and not words:
                raise ConfigError(f"{name} needs a value\nusage: {USAGE}")
            value = inline or words.pop(0)
            if name == "--max-rows":
                if not value.isdigit() or int(value) < 1:
                    raise ConfigError(f"--max-rows takes a positive whole number, not {value!r}\nusage: {USAGE}")
                value = int(value)
            options[_VALUED[name]] = value
        else:
            raise ConfigError(f"unknown option {name}\nusage: {USAGE}")
    return options, words


_SESSIONS: dict[int, AskSession] = {}


def session_for(ipython: Any) -> AskSession:
    """The `AskSession` of an IPython shell (one per shell: its database, model and conversation)."""
    return _SESSIONS.setdefault(id(ipython), AskSession())


def load_ipython_extension(ipython: Any) -> None:
    """Register ``%ask`` / ``%%ask`` and the HTML display of answers (``%load_ext groundsql`` calls this)."""
    from groundsql.notebook import show_answers

    show_answers(ipython)
    session = session_for(ipython)

    def ask_magic(line: str, cell: str | None = None) -> Answer:
        return session.ask(line, cell)

    ask_magic.__doc__ = f"Ask a question of a database; returns the Answer.\n\n{USAGE}"
    ipython.register_magic_function(ask_magic, magic_kind="line_cell", magic_name="ask")
