"""Loopback HTTP servers speaking the OpenAI and Anthropic chat APIs, answered by a real model.

They let the API providers be tested end to end without the network: requests go over a real socket to
127.0.0.1, and replies come from the embedded model (or a fixed function for failure injection).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Responder = Callable[[list[dict[str, str]], float, int], tuple[str, int, int]]


class ChatServer:
    """Serve /v1/chat/completions (OpenAI) and /v1/messages (Anthropic) on an ephemeral loopback port."""

    def __init__(self, respond: Responder, *, fail_first: int = 0, fail_status: int = 429,
                 cached_tokens: int | None = None):
        self.respond = respond
        self.cached_tokens = cached_tokens  # reported as usage.prompt_tokens_details.cached_tokens when set
        self.fail_first = fail_first
        self.fail_status = fail_status
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server API)
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                server.requests.append(body)
                server.headers.append(dict(self.headers))
                if server.fail_first > 0:
                    server.fail_first -= 1
                    self._send(server.fail_status, {"error": {"message": "slow down", "type": "rate_limit"}})
                    return
                messages = list(body.get("messages", []))
                if body.get("system"):
                    messages.insert(0, {"role": "system", "content": body["system"]})
                if self.path.endswith("/chat/completions"):
                    choices, prompt_tokens, completion_tokens = [], 0, 0
                    for index in range(int(body.get("n", 1))):
                        text, p, c = server.respond(messages, float(body.get("temperature", 0)), index)
                        choices.append({"index": index, "finish_reason": "stop",
                                        "message": {"role": "assistant", "content": text}})
                        prompt_tokens, completion_tokens = p, completion_tokens + c
                    usage: dict[str, Any] = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                                             "total_tokens": prompt_tokens + completion_tokens}
                    if server.cached_tokens is not None:
                        usage["prompt_tokens_details"] = {"cached_tokens": server.cached_tokens}
                    self._send(200, {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                                     "choices": choices, "usage": usage})
                elif self.path.endswith("/messages"):
                    text, p, c = server.respond(messages, float(body.get("temperature", 0)), 0)
                    self._send(200, {"id": "m", "type": "message", "role": "assistant", "model": body["model"],
                                     "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                                     "usage": {"input_tokens": p, "output_tokens": c}})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> ChatServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
