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
    """A failure worth retrying: rate limits, timeouts, overloaded servers."""
