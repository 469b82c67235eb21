"""A loopback OpenAI-compatible server that misbehaves on purpose, one scripted fault per request.

Faults: one choice whatever n asks (servers that ignore n), empty choices, empty content, a malformed or non-UTF-8 body, JSON of the wrong shape, 429 with or without
`Retry-After`, 5xx, a reset connection, a server that never answers, and one that trickles its reply. After
the script runs out, requests get `ok` replies from the responder (by default a fixed SQL answer).
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Responder = Callable[[list[dict[str, str]]], str]

FAULTS = ("ok", "one_choice", "empty_choices", "empty_content", "malformed", "non_utf8", "wrong_shape", "429", "503", "reset",
          "silent", "trickle", "trickle_headers")


class FaultServer:
    """Serve /v1/chat/completions (and Anthropic's /v1/messages) on 127.0.0.1; `script` lists the fault of each request in order.

    Args:
        script: faults for the first requests (see `FAULTS`); later requests get `default`.
        respond: the text of an `ok` reply, from the request's messages.
        retry_after: the `Retry-After` header value sent with 429 replies (None: no header).
        trickle_interval_s: the gap between bytes for `trickle` faults.
        delay_s: a pause before every `ok` reply (to make a run slow enough to interrupt).
    """

    def __init__(self, script: list[str] | None = None, *, respond: Responder | None = None,
                 default: str = "ok", retry_after: str | None = None, trickle_interval_s: float = 0.2,
                 delay_s: float = 0.0):
        for fault in [*(script or []), default]:
            if fault not in FAULTS:
                raise ValueError(f"unknown fault {fault!r}")
        self.script = list(script or [])
        self.default = default
        self.respond = respond or (lambda messages: "```sql\nSELECT 1\n```")
        self.retry_after = retry_after
        self.trickle_interval_s = trickle_interval_s
        self.delay_s = delay_s
        self.times: list[float] = []  # monotonic arrival time of each request
        self.bodies: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server API)
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                with server._lock:
                    server.times.append(time.monotonic())
                    server.bodies.append(body)
                    fault = server.script.pop(0) if server.script else server.default
                getattr(self, f"_fault_{fault}")(body)

            # -- faults ---------------------------------------------------------------------------------

            def _fault_ok(self, body: dict[str, Any]) -> None:
                if server.delay_s:
                    time.sleep(server.delay_s)
                if self.path.endswith("/messages"):  # Anthropic's messages API: one completion per call
                    self._json(200, _message(body, server.respond(body.get("messages", []))))
                    return
                texts = [server.respond(body.get("messages", [])) for _ in range(int(body.get("n", 1)))]
                self._json(200, _completion(body, texts))

            def _fault_one_choice(self, body: dict[str, Any]) -> None:  # a server that ignores n
                self._json(200, _completion(body, [server.respond(body.get("messages", []))]))

            def _fault_empty_choices(self, body: dict[str, Any]) -> None:
                self._json(200, _completion(body, []))

            def _fault_empty_content(self, body: dict[str, Any]) -> None:
                self._json(200, _completion(body, [""] * int(body.get("n", 1))))

            def _fault_malformed(self, body: dict[str, Any]) -> None:
                self._raw(200, b'{"id": "x", "choices": [{"message": {"content": "SEL')

            def _fault_non_utf8(self, body: dict[str, Any]) -> None:
                self._raw(200, b'{"id": "x", "choices": [{"index": 0, "message": {"role": "assistant", '
                               b'"content": "\xff\xfe\xfa"}}]}')

            def _fault_wrong_shape(self, body: dict[str, Any]) -> None:
                self._json(200, {"result": "SELECT 1"})

            def _fault_429(self, body: dict[str, Any]) -> None:
                headers = {"retry-after": server.retry_after} if server.retry_after is not None else {}
                self._json(429, {"error": {"message": "slow down", "type": "rate_limit"}}, headers)

            def _fault_503(self, body: dict[str, Any]) -> None:
                self._json(503, {"error": {"message": "overloaded", "type": "server_error"}})

            def _fault_reset(self, body: dict[str, Any]) -> None:
                # SO_LINGER 0: close() sends RST instead of FIN.
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.close_connection = True

            def _fault_silent(self, body: dict[str, Any]) -> None:
                server._stop.wait(60)
                self.close_connection = True

            def _fault_trickle(self, body: dict[str, Any]) -> None:
                data = json.dumps(_completion(body, ["SELECT 1"])).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self._drip(data)

            def _fault_trickle_headers(self, body: dict[str, Any]) -> None:
                self._drip(b"HTTP/1.1 200 OK\r\nx-padding: " + b"a" * 10_000 + b"\r\n\r\n")

            # -- helpers ----------------------------------------------------------------------------------

            def _drip(self, data: bytes) -> None:
                try:
                    for byte in data:
                        if server._stop.wait(server.trickle_interval_s):
                            break
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                except OSError:  # the client gave up: that is the point
                    pass
                self.close_connection = True

            def _json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
                self._raw(status, json.dumps(payload).encode(), headers)

            def _raw(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    @property
    def spec(self) -> str:
        return f"openai:fake@{self.base_url}"

    @property
    def anthropic_spec(self) -> str:
        """The spec of an Anthropic model served here (the SDK adds /v1/messages itself)."""
        return f"anthropic:fake@http://127.0.0.1:{self.httpd.server_address[1]}"

    def gaps(self) -> list[float]:
        """Seconds between consecutive requests."""
        return [later - earlier for earlier, later in zip(self.times, self.times[1:])]

    def __enter__(self) -> FaultServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def _completion(body: dict[str, Any], texts: list[str]) -> dict[str, Any]:
    return {"id": "x", "object": "chat.completion", "created": 0, "model": body.get("model", "fake"),
            "choices": [{"index": i, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}
                        for i, text in enumerate(texts)],
            "usage": {"prompt_tokens": 7, "completion_tokens": 3 * len(texts), "total_tokens": 7 + 3 * len(texts)}}


def _message(body: dict[str, Any], text: str) -> dict[str, Any]:
    return {"id": "m", "type": "message", "role": "assistant", "model": body.get("model", "fake"),
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
            "usage": {"input_tokens": 7, "output_tokens": 3}}
