"""Where does a soaked server's memory go? The soak's load against a `groundsql serve` that watches itself.

    taskset -c 1 .venv/bin/python benchmarks/server_memory.py [--minutes 5] [--warmup-minutes 1.5] [--clients 16]

The same server, model and clients as `server_soak.py`, but the server watches itself: every `--every-s`
seconds it records its RSS, the Python heap tracemalloc sees, SQLite's own heap (`sqlite3_memory_used`)
and glibc's arena counters (`mallinfo2`); from the end of warm-up on it runs under tracemalloc and dumps a
snapshot at each sample. The report splits the growth after
warm-up into those parts and lists the Python allocation sites (by traceback) that grew most between the first
snapshot after warm-up and the last. tracemalloc slows the server down severalfold, so the request counts are
lower than the soak's; the split is what this measures. Writes results/server_memory/server_memory.md.
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path

HERE = Path(__file__).resolve().parent


# -- inside the server process -----------------------------------------------------------------------------


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                     "fsmblks", "uordblks", "fordblks", "keepcost")]


def native_counters() -> dict[str, float]:
    """SQLite's heap and glibc's arena counters in MB ({} where neither library can be reached)."""
    found: dict[str, float] = {}
    try:
        sqlite = ctypes.CDLL("libsqlite3.so.0")
        sqlite.sqlite3_memory_used.restype = ctypes.c_int64
        found["sqlite_mb"] = sqlite.sqlite3_memory_used() / 1e6
    except (OSError, AttributeError):
        pass
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallinfo2.restype = _Mallinfo2
        info = libc.mallinfo2()
        found.update({"malloc_in_use_mb": (info.uordblks + info.hblkhd) / 1e6, "malloc_free_mb": info.fordblks / 1e6,
                      "malloc_arena_mb": info.arena / 1e6, "malloc_mmap_mb": info.hblkhd / 1e6})
    except (OSError, AttributeError):
        pass
    return found


def rss_parts(pid: int | str = "self") -> dict[str, float]:
    """RSS in MB, and its anonymous (heap, stacks) and file-backed (code of the libraries, mapped files) parts."""
    names = {"VmRSS:": "rss_mb", "RssAnon:": "rss_anon_mb", "RssFile:": "rss_file_mb"}
    found = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.split(None, 1)[0] in names:
                found[names[line.split(None, 1)[0]]] = int(line.split()[1]) / 1024
    return found


def serve_traced(out: Path, every_s: float, frames: int, trace_after_s: float, argv: list[str]) -> int:
    """Run `groundsql` with `argv`, recording counters every `every_s`; from `trace_after_s` on (the end of warm-up:
    tracing imports and warm-up would take minutes) under tracemalloc, with a snapshot at each sample."""
    out.mkdir(parents=True, exist_ok=True)
    began = time.monotonic()

    def watch() -> None:
        number = 0
        while True:
            time.sleep(every_s)
            number += 1
            if not tracemalloc.is_tracing() and time.monotonic() - began >= trace_after_s:
                tracemalloc.start(frames)
            if tracemalloc.is_tracing():
                tracemalloc.take_snapshot().dump(str(out / f"snapshot-{number:03d}.pickle"))
            sample = {"n": number, "t": time.monotonic() - began, **rss_parts(),
                      "python_mb": tracemalloc.get_traced_memory()[0] / 1e6,
                      "tracemalloc_mb": tracemalloc.get_tracemalloc_memory() / 1e6,
                      "threads": threading.active_count(), **native_counters()}
            with open(out / "samples.jsonl", "a", encoding="utf-8") as samples:
                samples.write(json.dumps(sample) + "\n")

    threading.Thread(target=watch, name="memory-watch", daemon=True).start()
    from groundsql.cli import main as groundsql_main

    sys.argv = ["groundsql", *argv]
    return groundsql_main()


# -- the driver ----------------------------------------------------------------------------------------------


def top_growth(first: Path, last: Path, limit: int = 25) -> list[tuple[float, int, list[str]]]:
    """(KB grown, blocks grown, traceback lines) of the allocation sites that grew most from `first` to `last`."""
    ignore = [tracemalloc.Filter(False, tracemalloc.__file__), tracemalloc.Filter(False, "<frozen importlib._bootstrap>"),
              tracemalloc.Filter(False, "<frozen importlib._bootstrap_external>"), tracemalloc.Filter(False, "<unknown>")]
    old = tracemalloc.Snapshot.load(str(first)).filter_traces(ignore)
    new = tracemalloc.Snapshot.load(str(last)).filter_traces(ignore)
    rows = []
    for stat in new.compare_to(old, "traceback")[:limit]:
        lines = [f"{frame.filename.split('site-packages/')[-1].split('/src/')[-1]}:{frame.lineno}"
                 for frame in stat.traceback]
        rows.append((stat.size_diff / 1e3, stat.count_diff, lines))
    return rows


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--serve-traced":  # the server process
        out, every_s, frames, trace_after_s, *argv = sys.argv[2:]
        return serve_traced(Path(out), float(every_s), int(frames), float(trace_after_s), argv)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--warmup-minutes", type=float, default=1.5)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--every-s", type=float, default=30.0, help="seconds between samples and snapshots")
    parser.add_argument("--frames", type=int, default=12, help="traceback depth tracemalloc keeps")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "server_memory" / "server_memory.md")
    parser.add_argument("--report", type=Path, default=None, metavar="WORK",
                        help="only write the report again from a finished run's folder (it prints its path)")
    args = parser.parse_args()
    if args.report is not None:
        return write_report(args.report, args.out)
    sys.path.insert(0, str(HERE))
    from server_soak import InstantModel, Log, client, free_port, git_commit

    from groundsql.demo import generate_demo_database
    from groundsql.server.testing import wait_healthy

    command = " ".join(["taskset -c 1", Path(sys.executable).name, "benchmarks/server_memory.py", *sys.argv[1:]])
    print(f"command: {command}", flush=True)
    commit = git_commit()
    model = InstantModel()
    work = Path(tempfile.mkdtemp(prefix="groundsql-memory-"))
    print(f"work folder: {work}", flush=True)
    db = work / "shop.sqlite"
    generate_demo_database(db, seed=7)
    port = free_port()
    env = {**os.environ, "GROUNDSQL_STATE_DIR": str(work / "state"), "GROUNDSQL_CACHE_DIR": str(work / "cache"),
           "OPENAI_API_KEY": "soak"}
    snapshots = work / "snapshots"
    server_log = work / "server.log"
    launched = time.monotonic()  # the server's clock starts about now: its samples' times are from here
    with open(server_log, "w", encoding="utf-8") as log_file:
        server = subprocess.Popen(
            [sys.executable, __file__, "--serve-traced", str(snapshots), str(args.every_s), str(args.frames),
             str(args.warmup_minutes * 60), "serve",
             "--db", f"shop={db}", "--port", str(port), "--model", f"openai:instant@{model.url}"],
            env=env, stdout=log_file, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    wait_healthy(url, server, server_log, timeout_s=120)
    log = Log()
    started = time.monotonic()
    offset = started - launched
    stop_at = started + args.minutes * 60

    async def run_clients() -> None:
        await asyncio.gather(*(client(i, url, stop_at, started, log) for i in range(args.clients)))

    asyncio.run(run_clients())
    time.sleep(args.every_s + 2)  # one more sample with the server idle
    server.send_signal(signal.SIGINT)
    try:
        server.wait(timeout=60)
    except subprocess.TimeoutExpired:
        server.kill()
    model.close()

    run = {"command": command, "commit": commit, "minutes": args.minutes, "clients": args.clients,
           "frames": args.frames, "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "requests": [t + offset for t, *_ in log.requests], "failures": log.failures}
    (work / "run.json").write_text(json.dumps(run), encoding="utf-8")
    return write_report(work, args.out)


def write_report(work: Path, out: Path) -> int:
    """The report of the run kept in `work` (its samples, snapshots and run.json) to `out`."""
    run = json.loads((work / "run.json").read_text(encoding="utf-8"))
    snapshots = work / "snapshots"
    samples = [json.loads(line) for line in (snapshots / "samples.jsonl").read_text().splitlines()]
    traced = [s for s in samples if (snapshots / f"snapshot-{s['n']:03d}.pickle").exists()]
    warm = traced[1:] if len(traced) > 2 else traced or samples  # tracemalloc's start allocates: not the server's
    first, last = warm[0], warm[-1]
    minutes = (last["t"] - first["t"]) / 60 or float("nan")
    requests = run.get("requests")
    served = sum(1 for t in requests if first["t"] <= t <= last["t"]) if requests is not None else None
    for s in samples:  # tracemalloc's own tables are malloc'd too: left out of what the server holds
        s["malloc_in_use_mb"] = s.get("malloc_in_use_mb", 0.0) - s.get("tracemalloc_mb", 0.0)
        s["rss_mb"] -= s.get("tracemalloc_mb", 0.0)
        s["rss_anon_mb"] = s.get("rss_anon_mb", 0.0) - s.get("tracemalloc_mb", 0.0)
    parts = [("RSS (less tracemalloc's own tables)", "rss_mb"), ("of it anonymous (heap, stacks)", "rss_anon_mb"),
             ("of it file-backed (library code)", "rss_file_mb"), ("Python heap (tracemalloc)", "python_mb"), ("SQLite heap", "sqlite_mb"),
             ("malloc in use (all arenas + mmap)", "malloc_in_use_mb"), ("malloc free, kept in arenas",
                                                                         "malloc_free_mb")]
    lines = [
        f"# Server memory: where a soak's growth goes ({run['minutes']:g} minutes, {run['clients']} clients)", "",
        f"Command: `{run['command']}`  ",
        f"Commit: {run['commit']}; run {run['when']}.  ",
        f"Machine: {platform.platform()}, Python {platform.python_version()}, load average {os.getloadavg()[0]:.1f} "
        "(a shared machine; everything on one core).  ",
        f"Requests: {run.get('total', len(requests or [])):,} in all"
        + (f", {served:,} between the samples compared" if served is not None else "")
        + f" (minute {first['t'] / 60:.1f} → {last['t'] / 60:.1f} of the server's life, under tracemalloc with "
        f"{run['frames']} frames from the sample before); failures: {run['failures'] or 'none'}.", "",
        "| part | after warm-up (MB) | at the end (MB) | growth (MB/min) | per request (KB) |",
        "|---|---:|---:|---:|---:|",
    ]
    for label, key in parts:
        if key in first and key in last:
            grown = last[key] - first[key]
            per_request = f"{grown * 1e3 / served:+.2f}" if served else "–"
            lines.append(f"| {label} | {first[key]:.2f} | {last[key]:.2f} | {grown / minutes:+.3f} | {per_request} |")
    lines += ["", "Samples (MB):", "", "| minute | RSS | anon | file | Python | SQLite | malloc in use | malloc free | "
              "threads |", "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in samples:
        lines.append(f"| {s['t'] / 60:.1f} | {s['rss_mb']:.1f} | {s.get('rss_anon_mb', 0):.1f} | "
                     f"{s.get('rss_file_mb', 0):.1f} | {s['python_mb']:.2f} | {s.get('sqlite_mb', 0):.2f} | "
                     f"{s.get('malloc_in_use_mb', 0):.2f} | {s.get('malloc_free_mb', 0):.2f} | {s['threads']} |")
    lines += ["", f"Python allocation sites that grew most (snapshot {first['n']} → {last['n']}), newest frame "
              "first:", ""]
    for size_kb, count, frames in top_growth(snapshots / f"snapshot-{first['n']:03d}.pickle",
                                             snapshots / f"snapshot-{last['n']:03d}.pickle"):
        lines.append(f"- {size_kb:+.1f} KB, {count:+d} blocks: " + " ← ".join(reversed(frames[-6:])))
    text = "\n".join(lines) + "\n"
    print(text)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
