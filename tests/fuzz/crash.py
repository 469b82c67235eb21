"""Crash consistency of `groundsql serve`: SIGKILL under load, restarted, N times.

Each round starts a real `groundsql serve` (loopback, the instant OpenAI-compatible model of
benchmarks/server_soak.py) on the same state folder, loads it with clients asking questions (a quarter of them
turns of conversations), kills it with SIGKILL at a random moment while requests are in flight, and checks the
stores without the server: SQLite's integrity check, the run store and the conversation store open (their
migrations run), every ask the server answered (200 with a run id) is there with its question and a readable
trace, no run is half-written (a trace that does not decompress, a prompt block a run names that is missing), and
every conversation turn the server answered is there and names a stored run. The next round's server must
start on what the kill left.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from pathlib import Path
from typing import Any

QUESTIONS = ["How many customers per region?", "How many orders per month?", "How many orders are there?",
             "How many customers are in each country?", "What is the revenue by price?"]


def _client(url: str, stop: threading.Event, seed: int, done: dict, lock: threading.Lock, counts: dict) -> None:
    import httpx

    rng = random.Random(seed)
    conversation = None
    with httpx.Client(base_url=url, timeout=30) as http:
        while not stop.is_set():
            try:
                if rng.random() < 0.25:
                    if conversation is None:
                        created = http.post("/v1/conversations", json={})
                        if created.status_code != 201:
                            continue
                        conversation = created.json()["id"]
                    response = http.post(f"/v1/conversations/{conversation}/ask",
                                         json={"question": rng.choice(QUESTIONS)})
                else:
                    response = http.post("/v1/ask", json={"question": rng.choice(QUESTIONS)})
                    conversation = None if rng.random() < 0.3 else conversation
            except httpx.HTTPError:
                with lock:
                    counts["connection_errors"] += 1
                time.sleep(0.05)
                continue
            with lock:
                counts[response.status_code] = counts.get(response.status_code, 0) + 1
                if response.status_code == 200:
                    payload = response.json()
                    if payload.get("run_id") is not None:
                        done["runs"][payload["run_id"]] = payload.get("question")
                    if "/conversations/" in str(response.request.url):
                        done["turns"].setdefault(conversation, 0)
                        done["turns"][conversation] += 1


def check_stores(path: Path, done: dict) -> dict[str, Any]:
    """The stores as the kill left them, read without the server."""
    from groundsql.conversations import ConversationStore
    from groundsql.runs import RunStore

    problems: list[str] = []
    with sqlite3.connect(path) as conn:
        integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
        if integrity != "ok":
            problems.append(f"integrity_check: {integrity}")
        rows = conn.execute("SELECT id, question, trace_z FROM runs").fetchall()
        for run_id, question, trace_z in rows:
            try:
                json.loads(zlib.decompress(trace_z)) if trace_z is not None else None
            except Exception as exc:
                problems.append(f"run {run_id}: unreadable trace ({type(exc).__name__})")
            if not question:
                problems.append(f"run {run_id}: no question")
        missing_blocks = conn.execute("SELECT count(*) FROM run_prompt_blocks AS r LEFT JOIN prompt_blocks AS p "
                                      "ON p.hash = r.hash WHERE p.hash IS NULL").fetchone()[0]
        if missing_blocks:
            problems.append(f"{missing_blocks} prompt block(s) named by runs are missing")
        dangling = conn.execute("SELECT count(*) FROM conversation_turns AS t LEFT JOIN runs AS r ON r.id = t.run_id "
                                "WHERE t.run_id IS NOT NULL AND r.id IS NULL").fetchone()[0]
        if dangling:
            problems.append(f"{dangling} conversation turn(s) name a run that is not stored")
    conn.close()
    store = RunStore(path)  # opens and migrates: the server's own path
    lost = [run_id for run_id in done["runs"] if store.get(run_id) is None]
    if lost:
        problems.append(f"{len(lost)} answered run(s) lost: {lost[:5]}")
    conversations = ConversationStore(store)
    for conversation_id, turns in done["turns"].items():
        if conversation_id is None:
            continue
        stored = len(conversations.get(conversation_id).turns)
        if stored < turns:
            problems.append(f"conversation {conversation_id}: {stored} turns stored, {turns} answered")
    store.close()
    return {"integrity": integrity, "runs_stored": len(rows), "problems": problems}


def run_crash(args: Any, out: Path, command: str, commit: str, machine: str) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from server_soak import InstantModel, free_port  # benchmarks/server_soak.py

    from groundsql.demo import generate_demo_database
    from groundsql.server.testing import wait_healthy

    rng = random.Random(args.seed)
    model = InstantModel()
    model.server.handle_error = lambda *args: None  # a client killed mid-reply: a broken pipe, expected here
    work = Path(tempfile.mkdtemp(prefix="groundsql-crash-"))
    state, db = work / "state", work / "shop.sqlite"
    generate_demo_database(db, seed=7)
    env = {**os.environ, "GROUNDSQL_STATE_DIR": str(state), "GROUNDSQL_CACHE_DIR": str(work / "cache"),
           "OPENAI_API_KEY": "crash"}
    done: dict = {"runs": {}, "turns": {}}
    rounds = []
    started = time.monotonic()
    for number in range(args.restarts + 1):
        port = free_port()
        log_path = work / f"server_{number}.log"
        with open(log_path, "w", encoding="utf-8") as log_file:
            server = subprocess.Popen([sys.executable, "-m", "groundsql", "serve", "--host", "127.0.0.1", "--db",
                                       f"shop={db}", "--port", str(port), "--model",
                                       f"openai:instant@{model.url}"], env=env, stdout=log_file,
                                      stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        boot = time.monotonic()
        wait_healthy(url, server, log_path, timeout_s=120)
        boot_s = time.monotonic() - boot
        if number == args.restarts:  # the last start only shows the server comes up on what the kills left
            server.send_signal(signal.SIGINT)
            server.wait(timeout=60)
            rounds.append({"round": number, "boot_s": round(boot_s, 1), "killed": False})
            break
        stop, lock = threading.Event(), threading.Lock()
        counts: dict = {"connection_errors": 0}
        before = len(done["runs"])
        clients = [threading.Thread(target=_client, args=(url, stop, rng.randrange(1 << 30), done, lock, counts),
                                    daemon=True) for _ in range(8)]
        for client in clients:
            client.start()
        load_s = rng.uniform(2.0, 6.0)
        time.sleep(load_s)
        os.kill(server.pid, signal.SIGKILL)
        server.wait(timeout=30)
        stop.set()
        for client in clients:
            client.join(timeout=40)
        check = check_stores(state / "runs.sqlite", done)
        traceback = "Traceback" in log_path.read_text(encoding="utf-8", errors="replace")
        rounds.append({"round": number, "boot_s": round(boot_s, 1), "load_s": round(load_s, 1), "killed": True,
                       "answered": len(done["runs"]) - before, "statuses": {str(k): v for k, v in counts.items()},
                       "traceback_in_log": traceback, **check})
        print(f"round {number}: killed after {load_s:.1f} s, {len(done['runs']) - before} answered, "
              f"{check['runs_stored']} runs stored, integrity {check['integrity']}, problems {check['problems']}",
              flush=True)
    model.close()
    elapsed = time.monotonic() - started
    problems = [p for r in rounds for p in r.get("problems", [])]
    killed = [r for r in rounds if r.get("killed")]
    out.mkdir(parents=True, exist_ok=True)
    (out / "crash.json").write_text(json.dumps({"command": command, "commit": commit, "machine": machine,
                                                "rounds": rounds, "elapsed_s": round(elapsed, 1)}, indent=1))
    statuses: dict[str, int] = {}
    for r in killed:
        for k, v in r["statuses"].items():
            statuses[k] = statuses.get(k, 0) + v
    lines = ["## kill -9 of `groundsql serve` under load", "",
             f"Command: `{command}` at {commit}. Machine: {machine}.  ",
             f"{len(killed)} rounds: a real `groundsql serve` on one state folder, 8 clients asking (a quarter in "
             "conversations) through an instant loopback model, SIGKILL after 2–6 s of load (seeded), the stores "
             f"checked without the server, then the next start on what the kill left ({elapsed / 60:.1f} min in all).",
             "", "| measure | value |", "|---|---:|",
             f"| SIGKILL restarts | {len(killed)} (+1 final clean start) |",
             f"| asks answered (200 with a run id) | {len(done['runs']):,} |",
             f"| answered runs lost | {sum(1 for p in problems if 'lost' in p)} rounds with losses |",
             f"| corrupt stores (integrity check not ok) | {sum(1 for r in killed if r['integrity'] != 'ok')} |",
             f"| half-written runs (unreadable trace, missing prompt block, turn without its run) | "
             f"{sum(1 for p in problems if 'trace' in p or 'block' in p or 'turn' in p)} |",
             f"| server starts after a kill that failed | 0 of {len(rounds) - 1} |",
             f"| slowest start after a kill | {max(r['boot_s'] for r in rounds[1:]) if len(rounds) > 1 else 0:.1f} s |",
             "", "Client-side statuses over all rounds: " + ", ".join(f"{k} × {v}" for k, v in sorted(statuses.items()))
             + " (connection errors are the requests in flight when the server was killed).", ""]
    for p in problems[:20]:
        lines.append(f"- {p}")
    (out / "crash.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 1 if problems else 0
