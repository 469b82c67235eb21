"""Thin shells over the library: the HTTP API and web UI (`groundsql serve`) and the MCP server (`groundsql mcp`).

Both call one `Workspace` (named databases, the model behind a bounded queue, the run and conversation stores),
which calls the library; nothing here re-implements a stage.
"""

from groundsql.server.gate import ModelGate, QueueFull
from groundsql.server.options import ServerOptions
from groundsql.server.workspace import Workspace

__all__ = ["ModelGate", "QueueFull", "ServerOptions", "Workspace"]
