"""HTTP plumbing shared by the API providers: a deadline-bound transport and reading `Retry-After`.

The SDKs' own timeouts bound each socket read, not the whole reply: a server that trickles one byte at a time
never trips them. Here every connect, read and write is bounded by what is left of the call's deadline
(see `groundsql.models.deadline`), so no reply, however slow, outlives it.
"""

from __future__ import annotations

import email.utils
import importlib
import logging
import math
import time
from typing import Any

from groundsql.models.deadline import remaining_s

log = logging.getLogger("groundsql")

#: Reply bodies are cut here in error messages.
_SNIPPET_CHARS = 120


def bound_by_deadline(client: Any) -> Any:
    """Make every socket operation of an SDK's httpx client end by the current call's deadline; return it.

    The client is built as usual (so proxies from the environment still apply); the network backend below each
    of its transports is wrapped. SDKs ship on `httpx` or its successor `httpx2` (over `httpcore` or
    `httpcore2`, the same API): the wrappers come from the library the client was built with.
    """
    library = next((c.__module__.split(".")[0] for c in type(client).__mro__
                    if c.__module__.split(".")[0].startswith("httpx")), "httpx")
    httpcore = importlib.import_module(library.replace("httpx", "httpcore", 1))
    transports = [getattr(client, "_transport", None), *getattr(client, "_mounts", {}).values()]
    pools = [getattr(t, "_pool", None) for t in transports if t is not None]
    backends = [p for p in pools if p is not None and hasattr(p, "_network_backend")]
    if not backends:  # an httpx layout we do not know: keep the SDK's per-read timeouts only
        log.warning("cannot bound HTTP reads by the model deadline with this %s version", library)
        return client
    wrapper = _deadline_backend_class(httpcore)
    for pool in backends:
        if not isinstance(pool._network_backend, wrapper):
            pool._network_backend = wrapper(pool._network_backend)
    return client


def _deadline_backend_class(httpcore: Any) -> type:
    """The network backend wrapper for one httpcore library (built once per library)."""
    if httpcore.__name__ in _BACKENDS:
        return _BACKENDS[httpcore.__name__]

    def bounded(timeout: float | None, error: type[Exception]) -> float | None:
        left = remaining_s()
        if left is None:
            return timeout
        if left <= 0:
            raise error("the model call's deadline has passed")
        return left if timeout is None else min(timeout, left)

    class DeadlineStream(httpcore.NetworkStream):
        def __init__(self, stream: Any) -> None:
            self._stream = stream

        def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
            return self._stream.read(max_bytes, bounded(timeout, httpcore.ReadTimeout))

        def write(self, buffer: bytes, timeout: float | None = None) -> None:
            self._stream.write(buffer, bounded(timeout, httpcore.WriteTimeout))

        def close(self) -> None:
            self._stream.close()

        def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                      timeout: float | None = None) -> Any:
            return DeadlineStream(self._stream.start_tls(ssl_context, server_hostname,
                                                         bounded(timeout, httpcore.ConnectTimeout)))

        def get_extra_info(self, info: str) -> Any:
            return self._stream.get_extra_info(info)

    class DeadlineBackend(httpcore.NetworkBackend):
        def __init__(self, inner: Any) -> None:
            self._inner = inner

        def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                        socket_options: Any = None) -> Any:
            return DeadlineStream(self._inner.connect_tcp(host, port, bounded(timeout, httpcore.ConnectTimeout),
                                                          local_address, socket_options))

        def connect_unix_socket(self, path: str, timeout: float | None = None, socket_options: Any = None) -> Any:
            return DeadlineStream(self._inner.connect_unix_socket(path, bounded(timeout, httpcore.ConnectTimeout),
                                                                  socket_options))

        def sleep(self, seconds: float) -> None:
            self._inner.sleep(seconds)

    _BACKENDS[httpcore.__name__] = DeadlineBackend
    return DeadlineBackend


_BACKENDS: dict[str, type] = {}


def retry_after_s(exc: BaseException) -> float | None:
    """The wait a failed reply asked for (`retry-after-ms` or `Retry-After`: seconds or an HTTP date)."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    value = headers.get("retry-after-ms")
    if value:
        try:
            seconds = float(value) / 1000
            return seconds if math.isfinite(seconds) and seconds >= 0 else None
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    return max(0.0, seconds) if math.isfinite(seconds) else None


def unreadable(server: str, exc: BaseException) -> str:
    """The message for a reply that could not be read (bad JSON, bad bytes, an unexpected shape)."""
    if isinstance(exc, UnicodeDecodeError):
        cause = f"bytes that are not UTF-8 at position {exc.start}"
    else:
        cause = (str(exc).splitlines() or [type(exc).__name__])[0][:_SNIPPET_CHARS]
    return f"model server {server} sent an unreadable reply ({cause})"
