"""Bearer-token checks (constant-time) for the HTTP API and the MCP HTTP transport."""

from __future__ import annotations

import hmac
import json
from typing import Any

TOKEN_MESSAGE = "a valid bearer token is required (Authorization: Bearer $GROUNDSQL_API_TOKEN)"
UNAUTHORIZED = {"error": {"type": "Unauthorized", "message": TOKEN_MESSAGE}}
#: The same refusal as a JSON-RPC error, for the MCP endpoint: the official SDK's client reports its message (a
#: plain 401 surfaces there only as "Server returned an error response").
UNAUTHORIZED_MCP = {"jsonrpc": "2.0", "id": None,
                    "error": {"code": -32001, "message": f"unauthorized: {TOKEN_MESSAGE}",
                              "data": {"type": "Unauthorized"}}}


def token_matches(header: str | None, token: str) -> bool:
    """Whether an Authorization header carries `token` as a bearer token (compared in constant time)."""
    scheme, _, given = (header or "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode())


def require_token(app: Any, token: str) -> Any:
    """Wrap an MCP ASGI app so every HTTP request must carry the bearer token (401 with `UNAUTHORIZED_MCP`)."""

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
            if not token_matches(headers.get("authorization"), token):
                body = json.dumps(UNAUTHORIZED_MCP).encode()
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"application/json"), (b"www-authenticate", b"Bearer"),
                    (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
        await app(scope, receive, send)

    return guarded
