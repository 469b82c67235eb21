"""Run one benchmark by name with the project's defaults: `python -m benchmarks NAME [options]`.

    python -m benchmarks --list                     # every benchmark: what it measures, its figure, its time
    python -m benchmarks accuracy                   # the registry's command (benchmarks/registry.py)
    python -m benchmarks accuracy --limit 20        # options after the name go to the benchmark's script(s)
    python -m benchmarks --dry-run engines          # print the commands, run nothing

The run is labelled with its commit (`git rev-parse --short HEAD`, `-dirty` when tracked files differ), written
with the command and the machine into `benchmarks/results/NAME/command.txt` and handed to the scripts in
GROUNDSQL_BENCH_COMMIT, which put it into each run's own `command.txt`. Scripts whose runs are resumable continue
where a previous run of the same command stopped. The worktree's `src/` comes first on PYTHONPATH, so the code
measured is the code the label names.
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.provenance import COMMIT_ENV, current_commit
from benchmarks.registry import BENCHMARKS, Benchmark, Step, readme_rows

REPO = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    own = []
    while argv and argv[0].startswith("-"):  # the entry point's own flags come before the name
        own.append(argv.pop(0))
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0],
                                     epilog="benchmarks: " + ", ".join(BENCHMARKS))
    parser.add_argument("--list", action="store_true", help="print the benchmark table and exit")
    parser.add_argument("--dry-run", action="store_true", help="print the commands the benchmark would run")
    flags = parser.parse_args(own)
    if flags.list:
        print(table())
        return 0
    if not argv:
        parser.print_usage(sys.stderr)
        print(f"error: name a benchmark ({', '.join(BENCHMARKS)}), or --list", file=sys.stderr)
        return 2
    name, options = argv[0], argv[1:]
    if name not in BENCHMARKS:
        print(f"error: no benchmark named {name!r}; known: {', '.join(BENCHMARKS)}", file=sys.stderr)
        return 2
    return run(BENCHMARKS[name], options, dry_run=flags.dry_run)


def run(benchmark: Benchmark, options: list[str], *, dry_run: bool = False) -> int:
    """Run the benchmark's steps in order (stopping at the first that fails); returns the exit status."""
    commit = current_commit()
    given = f"python -m benchmarks {shlex.join([benchmark.name, *options])}"
    commands = [(step, command(step, options)) for step in benchmark.steps]
    print(f"$ {given}\n# code: {commit}\n# resumes: {benchmark.resumes}", flush=True)
    for step, args in commands:
        print(f"$ {shown(benchmark, step, args)}", flush=True)
    if dry_run:
        return 0
    helping = any(option in ("-h", "--help") for option in options)
    record = benchmark.folder / "command.txt"
    started = time.time()
    lines = [given, f"# code: {commit}", f"# machine: {machine()}",
             f"# started: {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime(started))}",
             *(f"# step: {shown(benchmark, step, args)}" for step, args in commands)]
    if not helping:
        benchmark.folder.mkdir(parents=True, exist_ok=True)
        record.write_text("\n".join(lines) + "\n", encoding="utf-8")
    status = 0
    for step, args in commands:
        status = run_step(benchmark, step, args, commit)
        if status != 0:
            break
    if not helping:
        lines.append(f"# finished: after {time.time() - started:.0f} s, exit status {status}")
        record.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return status


def command(step: Step, options: list[str]) -> list[str]:
    """The script's argument list: the registry's defaults, then the caller's options where the step takes them."""
    return [str(Path("benchmarks") / step.script), *step.args, *(options if step.forward else [])]


def shown(benchmark: Benchmark, step: Step, args: list[str]) -> str:
    """The step as a shell line: the default environment the caller has not set, the script, its output file."""
    env = " ".join(f"{key}={value}" for key, value in step.env.items() if key not in os.environ)
    redirect = f" > benchmarks/results/{benchmark.name}/{step.stdout}" if step.stdout else ""
    return f"{env + ' ' if env else ''}python {shlex.join(args)}{redirect}"


def run_step(benchmark: Benchmark, step: Step, args: list[str], commit: str) -> int:
    python_path = [str(REPO / "src"), str(REPO), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    env = {**step.env, **os.environ, COMMIT_ENV: commit, "PYTHONPATH": os.pathsep.join(python_path)}
    argv = [sys.executable, *args]
    if step.stdout is None:
        return subprocess.run(argv, cwd=REPO, env=env, check=False).returncode
    target = benchmark.folder / step.stdout
    partial = target.with_name(target.name + ".partial")  # the committed report stays until the run succeeds
    with partial.open("w", encoding="utf-8") as out:
        status = subprocess.run(argv, cwd=REPO, env=env, stdout=out, check=False).returncode
    if status == 0:
        partial.replace(target)
    else:
        print(f"{step.script} failed (exit {status}); its output is in {partial}", file=sys.stderr)
    return status


def machine() -> str:
    return (f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPU cores, Python "
            f"{platform.python_version()}, GROUNDSQL_THREADS={os.environ.get('GROUNDSQL_THREADS', 'default')}")


def table() -> str:
    """The README's table as plain text: name, headline figure, commit and date, time on 2 cores."""
    rows = {row["name"]: row for row in readme_rows()}
    out = []
    for name, benchmark in BENCHMARKS.items():
        row = rows.get(name, {})
        figure = row.get("current figure (commit, date)", "– (no row in benchmarks/README.md)")
        out.append(f"{name}\n    measures: {benchmark.measures}\n    command:  python -m benchmarks {name}\n"
                   f"    figure:   {_plain(figure)}\n    time:     {_plain(row.get('time on 2 cores', '–'))}\n"
                   f"    report:   benchmarks/results/{name}/{benchmark.report}")
    return "\n".join(out)


def _plain(cell: str) -> str:
    return cell.replace("**", "").replace("`", "").replace("\\|", "|")


if __name__ == "__main__":
    raise SystemExit(main())
