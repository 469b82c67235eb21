"""Helpers for tests, benchmarks and demos: a real uvicorn server on loopback in a background thread, and a
scripted model that answers a few questions about the demo shop database (control flow only, no language model)."""

from __future__ import annotations

import math
import re
import sys
import threading
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from groundsql.models import Message, ScriptedModel

T = TypeVar("T")

DEMO_QUERIES: list[tuple[tuple[str, ...], str]] = [
    (("country",), "SELECT r.country, COUNT(*) AS customers FROM customers AS c JOIN regions AS r "
                   "ON r.region_id = c.region_id GROUP BY r.country ORDER BY customers DESC"),
    (("region",), "SELECT r.region_name, COUNT(*) AS customers FROM customers AS c JOIN regions AS r "
                  "ON r.region_id = c.region_id GROUP BY r.region_name ORDER BY customers DESC"),
    (("month",), "SELECT substr(order_date, 1, 7) AS month, COUNT(*) AS orders FROM orders "
                 "WHERE order_date LIKE '____-__-__' GROUP BY month ORDER BY month"),
    (("price", "revenue"), "SELECT p.unit_price, SUM(l.quantity) AS units FROM products AS p "
                           "JOIN order_lines AS l ON l.product_id = p.product_id GROUP BY p.product_id"),
    (("orders",), "SELECT COUNT(*) AS orders FROM orders"),
]
DEFAULT_QUERY = "SELECT COUNT(*) AS customers FROM customers"


def demo_reply(messages: list[Message]) -> str:
    """A reply for the demo database: a standalone question for a follow-up prompt, else SQL for the question."""
    text = messages[-1]["content"]
    follow_up = re.search(r"Their next message is: (.*)", text)
    if follow_up:
        message = follow_up.group(1).strip()
        earlier = re.findall(r"\d+\. Question: (.*)", text)
        if "country" in message.lower():
            return "How many customers are there in each country?"
        return f"{earlier[-1].rstrip('?')}, {message}" if earlier else message
    question = re.findall(r"Question: (.*)", text)
    asked = question[-1].lower() if question else ""
    for words, sql in DEMO_QUERIES:
        if any(w in asked for w in words):
            return f"```sql\n{sql}\n```"
    return f"```sql\n{DEFAULT_QUERY}\n```"


def demo_model(delay_s: float = 0.0) -> ScriptedModel:
    """A scripted model for the demo database; `delay_s` makes each call take that long (load tests)."""
    def reply(messages: list[Message]) -> str:
        if delay_s:
            time.sleep(delay_s)
        return demo_reply(messages)

    return ScriptedModel(default=reply, name="demo")


class BackgroundServer:
    """Serve an ASGI app with uvicorn on 127.0.0.1 (a free port) in a thread; use as a context manager.

    `url` is the base URL once started; leaving the block shuts the server down gracefully.
    """

    def __init__(self, app: Any, *, host: str = "127.0.0.1", port: int = 0, grace_s: float = 5.0):
        import uvicorn

        self.config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on",
                                     timeout_graceful_shutdown=grace_s)
        self.server = uvicorn.Server(self.config)
        self.thread = threading.Thread(target=self.server.run, name="groundsql-uvicorn", daemon=True)
        self.url = ""

    def __enter__(self) -> BackgroundServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        host, port = self.server.servers[0].sockets[0].getsockname()[:2]
        self.url = f"http://{host}:{port}"
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


def fire(url: str, path: str, bodies: list[dict[str, Any]], *, timeout_s: float = 120.0) -> list[tuple[int, float]]:
    """POST every body to `url + path` at the same time; returns (status, seconds) per request, in order."""
    import asyncio

    import httpx

    async def one(client: httpx.AsyncClient, body: dict[str, Any]) -> tuple[int, float]:
        started = time.perf_counter()
        response = await client.post(path, json=body)
        return response.status_code, time.perf_counter() - started

    async def run() -> list[tuple[int, float]]:
        limits = httpx.Limits(max_connections=len(bodies) + 1, max_keepalive_connections=len(bodies) + 1)
        async with httpx.AsyncClient(base_url=url, timeout=timeout_s, limits=limits) as client:
            return list(await asyncio.gather(*(one(client, body) for body in bodies)))

    return run_async(run)


def run_async(factory: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """`asyncio.run(factory())` on a fresh thread, so it works even where this thread already runs an event loop
    (Playwright's sync API keeps one on the main thread)."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: asyncio.run(factory())).result()


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100) by nearest rank."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = max(1, min(len(ordered), math.ceil(q / 100 * len(ordered))))
    return ordered[rank - 1]


def wait_healthy(url: str, server: Any, log_path: Path | str, *, timeout_s: float = 90.0) -> None:
    """Wait until a `groundsql serve` child answers /v1/health; if it exits or the time runs out, print its log
    and stop the calling script."""
    import httpx

    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if httpx.get(f"{url}/v1/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if server.poll() is not None or time.monotonic() > deadline:
            print(Path(log_path).read_text(encoding="utf-8"), file=sys.stderr)
            raise SystemExit("the server did not start")
        time.sleep(0.5)
