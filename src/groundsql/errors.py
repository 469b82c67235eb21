"""Typed errors. Every message says what went wrong and what the user can do about it."""

from __future__ import annotations


class GroundsqlError(Exception):
    """Base class for every error groundsql raises on purpose."""


class ConfigError(GroundsqlError):
    """Bad input from the user: an unknown preset, a malformed URL, a missing file."""


class DatabaseError(GroundsqlError):
    """The database refused or failed a statement."""


class RefusedStatement(DatabaseError):
    """The guard refused a statement before it reached the engine."""


class UnknownRelation(DatabaseError):
    """A statement names a table or view the connected database does not have (checked before it runs)."""


class QueryTimeout(DatabaseError):
    """A statement ran past its time limit and was cancelled."""


class ModelError(GroundsqlError):
    """A model call failed after its retries."""


class ModelNotInstalled(ModelError):
    """The model's weights or client library are not installed here."""


class TransientModelError(ModelError):
    """A failure worth retrying: rate limits, timeouts, overloaded servers, unreadable replies.

    `retry_after_s` is the wait the server asked for (its Retry-After header), when it named one.
    """

    def __init__(self, message: str, *, retry_after_s: float | None = None):
        super().__init__(message)
        self.retry_after_s = retry_after_s


class ModelTimeout(ModelError):
    """A model call passed its total deadline (retries and slow replies included) and was abandoned."""


class RunInterrupted(GroundsqlError):
    """A run was stopped before it finished: cancelled by its caller or past its time limit. A preset that had
    announced an answer returns that answer (marked partial) instead of raising this."""


class ViewError(GroundsqlError):
    """A view definition of the analysis DSL names something unknown or says something a view may not.

    Attributes:
        view: the view's name; where: the field at fault (e.g. ``dimensions[1].expr``); problem: what is wrong;
        suggestions: the nearest real names (or allowed choices), best first.
    """

    def __init__(self, view: str, where: str, problem: str, suggestions: list[str] | None = None):
        self.view, self.where, self.problem = view, where, problem
        self.suggestions = list(suggestions or [])
        hint = f"; did you mean: {', '.join(self.suggestions)}?" if self.suggestions else ""
        super().__init__(f"view {view!r}, {where}: {problem}{hint}")

    def to_dict(self) -> dict[str, object]:
        return {"view": self.view, "where": self.where, "problem": self.problem, "suggestions": self.suggestions}


class KnowledgeError(ConfigError):
    """A knowledge folder holds a file that cannot be used: broken YAML, an example that writes or fails."""
