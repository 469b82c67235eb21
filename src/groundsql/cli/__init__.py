"""The `groundsql` command: a thin shell over the library. Each command group lives in its own module."""

from __future__ import annotations

from groundsql.cli import (
    chat,  # noqa: F401,E402  (registers chat)
    commands,  # noqa: F401,E402  (registers ask, sql, models, demo-db)
    eval,  # noqa: F401,E402  (registers the eval group)
    knowledge,  # noqa: F401,E402  (registers the knowledge group)
    profile,  # noqa: F401,E402  (registers profile)
    serve,  # noqa: F401,E402  (registers serve, mcp)
)
from groundsql.cli.app import cli, main  # noqa: F401

__all__ = ["cli", "main"]
