"""Soak `groundsql serve`: N clients for M minutes; does memory stay flat, latency steady, the run store bounded?

    .venv/bin/python benchmarks/server_soak.py [--minutes 30] [--clients 16] [--sample-s 10] [--warmup-minutes 5]

A real `groundsql serve` process (a subprocess, its default retention and options) serves the demo shop
database generated in a temporary folder; its model is an OpenAI-compatible server in this script (loopback HTTP)
that answers instantly: SQL for the demo questions, a standalone question for follow-up rewrites, and for one
rewrite in eight a fenced block, so the malformed-reply fallback is exercised too. The clients loop on asks (a
fifth of them follow-ups in conversations) and guarded SQL. Every `--sample-s` seconds the server's RSS, the run
store's size and the asks' latency are sampled.

Reported: the memory slope after warm-up (a least-squares line through the RSS samples), the ask p99 drift (the
p99 of the last third of the run after warm-up against the first third), errors of every kind (any status but
200 and 201, timeouts, refused connections, tracebacks in the server's log), the run store's size against its
limit, and follow-up runs stored with a fence as their question. Writes results/server_soak/server_soak.md and .png.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from groundsql.demo import generate_demo_database
from groundsql.runs import Retention
from groundsql.server.testing import demo_reply, percentile, wait_healthy

HERE = Path(__file__).resolve().parent
QUESTIONS = ["How many customers per region?", "How many orders per month?", "How many orders are there?",
             "How many customers are in each country?", "What is the revenue by price?"]
FOLLOW_UPS = ["and only for 2024?", "and by country?", "only the top 5", "sorted the other way"]
SQL = ["SELECT status, COUNT(*) FROM orders GROUP BY status",
       "SELECT r.region_name, COUNT(*) AS customers FROM customers c JOIN regions r USING (region_id) GROUP BY 1"]


# -- the model: an OpenAI-compatible server that answers at once ------------------------------------------


class InstantModel:
    """/v1/chat/completions on loopback; replies from `demo_reply`, a fenced block for one rewrite in eight."""

    def __init__(self) -> None:
        self.calls = 0
        self.fenced_rewrites = 0
        self._lock = threading.Lock()
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server API)
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                text = model.reply(body.get("messages") or [])
                n = int(body.get("n") or 1)
                payload = json.dumps({
                    "id": "soak", "object": "chat.completion", "created": int(time.time()), "model": "instant",
                    "choices": [{"index": i, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": text}} for i in range(n)],
                    "usage": {"prompt_tokens": sum(len(str(m.get("content", ""))) // 4 for m in body.get("messages")
                                                   or []), "completion_tokens": len(text) // 4,
                              "total_tokens": 0}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def reply(self, messages: list[dict]) -> str:
        with self._lock:
            self.calls += 1
            rewrite = "Their next message is:" in str(messages[-1].get("content", "")) if messages else False
            fenced = rewrite and self.calls % 8 == 0
            self.fenced_rewrites += fenced
        if fenced:  # the finding: a fenced block where one question was asked
            return "```sql\nSELECT COUNT(*) FROM orders\n```"
        return demo_reply([{"role": m.get("role", "user"), "content": str(m.get("content", ""))}
                           for m in messages] or [{"role": "user", "content": ""}])

    def close(self) -> None:
        self.server.shutdown()


# -- the server under test -------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def store_mb(state: Path) -> float:
    return sum(p.stat().st_size for p in state.glob("runs.sqlite*")) / 1e6


# -- the clients -----------------------------------------------------------------------------------------


class Log:
    def __init__(self) -> None:
        self.requests: list[tuple[float, str, int, float]] = []  # (time since start, kind, status, seconds)
        self.failures: dict[str, int] = {}

    def failure(self, kind: str) -> None:
        self.failures[kind] = self.failures.get(kind, 0) + 1


async def client(number: int, url: str, stop_at: float, started: float, log: Log) -> None:
    import httpx

    rng = random.Random(number)
    conversation: str | None = None
    turns = 0
    async with httpx.AsyncClient(base_url=url, timeout=120.0) as http:
        while time.monotonic() < stop_at:
            roll = rng.random()
            try:
                if roll < 0.1:
                    kind, path, body = "sql", "/v1/sql", {"sql": rng.choice(SQL)}
                elif roll < 0.3 and conversation is not None and turns < 6:
                    kind, path, body = "follow-up", f"/v1/conversations/{conversation}/ask", {
                        "question": rng.choice(FOLLOW_UPS)}
                elif roll < 0.35 or conversation is None:
                    response = await http.post("/v1/conversations", json={})
                    log.requests.append((time.monotonic() - started, "conversation", response.status_code, 0.0))
                    conversation, turns = response.json().get("id"), 0
                    kind, path, body = "ask", f"/v1/conversations/{conversation}/ask", {
                        "question": rng.choice(QUESTIONS)}
                else:
                    kind, path, body = "ask", "/v1/ask", {"question": rng.choice(QUESTIONS)}
                begun = time.perf_counter()
                response = await http.post(path, json=body)
                log.requests.append((time.monotonic() - started, kind, response.status_code,
                                     time.perf_counter() - begun))
                if response.status_code == 429:
                    await asyncio.sleep(float(response.headers.get("retry-after", "1")))
                if path.startswith("/v1/conversations/"):
                    turns += 1
            except httpx.TimeoutException:
                log.failure("timeout")
            except httpx.HTTPError as exc:
                log.failure(type(exc).__name__)


# -- the report ------------------------------------------------------------------------------------------


def slope_per_minute(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, value) points, per minute."""
    if len(points) < 2:
        return float("nan")
    xs, ys = [p[0] / 60 for p in points], [p[1] for p in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    var = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / var if var else float("nan")


def git_commit() -> str:
    if os.environ.get("GROUNDSQL_BENCH_COMMIT"):  # the label `python -m benchmarks` gave the run
        return os.environ["GROUNDSQL_BENCH_COMMIT"]
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=HERE,
                               capture_output=True, text=True).stdout.strip()
        return out.stdout.strip() + (" (with uncommitted changes)" if dirty else "")
    except OSError:
        return "unknown"


def plot(samples: list[dict], warmup_s: float, out: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    minutes = [s["t"] / 60 for s in samples]
    fig, (mem, lat) = plt.subplots(2, 1, figsize=(9, 6.5), sharex=True)
    mem.plot(minutes, [s["rss_mb"] for s in samples], label="server RSS (MB, left)")
    mem.axvline(warmup_s / 60, color="grey", linestyle=":", label="end of warm-up")
    mem.set_ylabel("server RSS (MB)")
    store = mem.twinx()  # its own scale: the RSS slope must stay visible
    store.plot(minutes, [s["store_mb"] for s in samples], color="tab:orange", label="run store on disk (MB, right)")
    store.set_ylabel("run store (MB)")
    store.set_ylim(bottom=0)
    mem.legend(handles=mem.get_lines() + store.get_lines(), loc="upper left")
    mem.set_title(title, fontsize=10)
    lat.plot(minutes, [s["ask_p50"] for s in samples], label="ask p50 (s)")
    lat.plot(minutes, [s["ask_p99"] for s in samples], label="ask p99 (s)")
    lat.axvline(warmup_s / 60, color="grey", linestyle=":")
    lat.set_xlabel("minutes")
    lat.set_ylabel("seconds (per 10 s window)")
    lat.legend(loc="upper left")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=30.0, help="how long the clients run")
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients")
    parser.add_argument("--sample-s", type=float, default=10.0, help="seconds between samples")
    parser.add_argument("--warmup-minutes", type=float, default=None,
                        help="samples before this are left out of the slope and drift (default: a sixth of the run)")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "server_soak" / "server_soak.md", help="the report (a .png "
                        "beside it)")
    args = parser.parse_args()
    warmup_s = 60 * (args.warmup_minutes if args.warmup_minutes is not None else args.minutes / 6)
    command = " ".join(["taskset -c 1", Path(sys.executable).name, "benchmarks/server_soak.py", *sys.argv[1:]])
    print(f"command: {command}", flush=True)
    commit = git_commit()  # before the run writes its own results (which would read as uncommitted changes)
    model = InstantModel()
    work = Path(tempfile.mkdtemp(prefix="groundsql-soak-"))
    state = work / "state"
    db = work / "shop.sqlite"
    generate_demo_database(db, seed=7)
    port = free_port()
    env = {**os.environ, "GROUNDSQL_STATE_DIR": str(state), "GROUNDSQL_CACHE_DIR": str(work / "cache"),
           "OPENAI_API_KEY": "soak"}
    server_log = work / "server.log"
    with open(server_log, "w", encoding="utf-8") as log_file:
        server = subprocess.Popen([sys.executable, "-m", "groundsql", "serve", "--db", f"shop={db}", "--port", str(port),
                                   "--model", f"openai:instant@{model.url}"], env=env, stdout=log_file,
                                  stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    wait_healthy(url, server, server_log, timeout_s=90)

    log = Log()
    samples: list[dict] = []
    started = time.monotonic()
    stop_at = started + args.minutes * 60

    async def run_clients() -> None:
        await asyncio.gather(*(client(i, url, stop_at, started, log) for i in range(args.clients)))

    clients = threading.Thread(target=lambda: asyncio.run(run_clients()), daemon=True)
    clients.start()
    seen = 0
    while clients.is_alive():
        clients.join(timeout=args.sample_s)
        now = time.monotonic() - started
        window = log.requests[seen:]
        seen += len(window)
        asks = [s for _, kind, status, s in window if kind in ("ask", "follow-up") and status == 200]
        sample = {"t": now, "rss_mb": rss_mb(server.pid), "store_mb": store_mb(state), "requests": len(window),
                  "asks": len(asks), "ask_p50": percentile(asks, 50), "ask_p99": percentile(asks, 99),
                  "not_ok": sum(1 for _, _, status, _ in window if status not in (200, 201))}
        samples.append(sample)
        print(f"{now / 60:5.1f} min  rss {sample['rss_mb']:6.1f} MB  store {sample['store_mb']:6.1f} MB  "
              f"{sample['requests']:4d} req  ask p50 {sample['ask_p50']:.3f} s p99 {sample['ask_p99']:.3f} s  "
              f"not ok {sample['not_ok']}", flush=True)

    stopping = time.monotonic()
    server.send_signal(signal.SIGINT)
    try:
        server.wait(timeout=60)
    except subprocess.TimeoutExpired:
        server.kill()
    exit_s = time.monotonic() - stopping
    model.close()

    # -- numbers --------------------------------------------------------------------------------------------
    after = [s for s in samples if s["t"] >= warmup_s]
    slope = slope_per_minute([(s["t"], s["rss_mb"]) for s in after])
    asks_after = [(t, s) for t, kind, status, s in log.requests if kind in ("ask", "follow-up") and status == 200
                  and t >= warmup_s]
    span = (args.minutes * 60 - warmup_s) / 3
    first = [s for t, s in asks_after if t < warmup_s + span]
    last = [s for t, s in asks_after if t >= warmup_s + 2 * span]
    p99_first, p99_last = percentile(first, 99), percentile(last, 99)
    drift = (p99_last - p99_first) / p99_first * 100 if first and last else float("nan")
    statuses: dict[int, int] = {}
    for _, _, status, _ in log.requests:
        statuses[status] = statuses.get(status, 0) + 1
    server_text = server_log.read_text(encoding="utf-8", errors="replace")
    tracebacks = server_text.count("Traceback")
    errors = sum(n for status, n in statuses.items() if status not in (200, 201, 429)) + sum(log.failures.values()) \
        + tracebacks
    with sqlite3.connect(state / "runs.sqlite") as conn:
        runs = conn.execute("SELECT count(*) FROM runs").fetchone()[0]
        fenced = conn.execute("SELECT count(*) FROM conversation_turns WHERE standalone LIKE '%```%'").fetchone()[0]
        fallbacks = conn.execute("SELECT count(*) FROM conversation_turns WHERE position > 1 AND "
                                 "standalone = question").fetchone()[0]
        pages = conn.execute("PRAGMA page_count").fetchone()[0] - conn.execute("PRAGMA freelist_count").fetchone()[0]
        live_mb = pages * conn.execute("PRAGMA page_size").fetchone()[0] / 1e6
    retention = Retention.from_env()
    asks_total = sum(1 for _, kind, status, _ in log.requests if kind in ("ask", "follow-up") and status == 200)
    all_asks = [s for _, kind, status, s in log.requests if kind in ("ask", "follow-up") and status == 200]
    rss_first, rss_last = (after[0]["rss_mb"], after[-1]["rss_mb"]) if after else (float("nan"),) * 2

    title = (f"groundsql serve soak: {args.clients} clients, {args.minutes:g} min, instant OpenAI-compatible model, "
             f"commit {commit}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    plot(samples, warmup_s, args.out.with_suffix(".png"), title)
    verdict = lambda ok: "yes" if ok else "**no**"  # noqa: E731
    lines = [
        f"# Server soak: {args.minutes:g} minutes, {args.clients} clients", "",
        f"Command: `{command}`  ",
        f"Commit: {commit}; run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.  ",
        f"Machine: {platform.platform()}, {os.cpu_count()} CPUs (everything pinned to one core with taskset: server, "
        f"clients and model share it), Python {platform.python_version()}; load average at the end "
        f"{os.getloadavg()[0]:.1f} (a shared machine).  ",
        f"`groundsql serve` with its defaults (preset auto, 4 model slots, queue 16, run store retention "
        f"{retention.max_age_days:g} days / {retention.max_runs} runs / {retention.max_mb:g} MB) on the demo shop; "
        f"the model answers instantly over loopback HTTP, one rewrite reply in eight is a fenced SQL block. "
        f"Samples every {args.sample_s:g} s; the first {warmup_s / 60:g} minutes are warm-up.", "",
        "| measure | value | target (issue 37, 30-minute run) | met |",
        "|---|---:|---:|---|",
        f"| server memory slope after warm-up | {slope:+.3f} MB/min ({rss_first:.1f} → {rss_last:.1f} MB) | "
        f"≤ 0.1 MB/min | {verdict(slope <= 0.1)} |",
        f"| ask p99 drift (last third vs first third after warm-up) | {drift:+.1f}% ({p99_first:.3f} s → "
        f"{p99_last:.3f} s) | ≤ +10% | {verdict(drift <= 10)} |",
        f"| errors (non-2xx but 429, timeouts, connection errors, tracebacks) | {errors} | 0 | {verdict(errors == 0)} |",
        f"| run store: data / file on disk (with WAL) | {live_mb:.1f} MB / {samples[-1]['store_mb']:.1f} MB | "
        f"≤ {retention.max_mb:g} MB | {verdict(live_mb <= (retention.max_mb or float('inf')))} |",
        f"| follow-ups stored with a fence as their question | {fenced} | 0 | {verdict(fenced == 0)} |", "",
        f"Requests: {len(log.requests):,} ({', '.join(f'{n:,} × {s}' for s, n in sorted(statuses.items()))}); "
        f"client-side failures: {log.failures or 'none'}; tracebacks in the server log: {tracebacks}.  ",
        f"Asks answered: {asks_total:,}, p50 {percentile(all_asks, 50):.3f} s, p99 {percentile(all_asks, 99):.3f} s; "
        f"runs stored: {runs:,} ({live_mb * 1e3 / max(runs, 1):.1f} KB each with the store's indexes and "
        f"prompt blocks).  ",
        f"Model calls: {model.calls:,}; fenced rewrite replies sent: {model.fenced_rewrites:,}; follow-ups asked as "
        f"written (the rewrite fell back, or the model repeated the question): {fallbacks:,}.  ",
        f"SIGINT to exit: {exit_s:.1f} s.", "",
        f"![memory and latency]({args.out.with_suffix('.png').name})", "",
        "| minute | RSS (MB) | store (MB) | requests | asks | ask p50 (s) | ask p99 (s) | not ok |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    step = max(1, len(samples) // 30)
    for sample in samples[::step]:
        lines.append(f"| {sample['t'] / 60:.1f} | {sample['rss_mb']:.1f} | {sample['store_mb']:.1f} | "
                     f"{sample['requests']} | {sample['asks']} | {sample['ask_p50']:.3f} | {sample['ask_p99']:.3f} | "
                     f"{sample['not_ok']} |")
    text = "\n".join(lines) + "\n"
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    (args.out.with_suffix(".json")).write_text(json.dumps({"samples": samples, "statuses": statuses,
                                                            "failures": log.failures}, indent=1), encoding="utf-8")
    if re.search(r"Traceback", server_text):
        print(server_text[-4000:], file=sys.stderr)
    return 0 if errors == 0 and fenced == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
