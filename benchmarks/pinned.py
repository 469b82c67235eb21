"""Run a long `groundsql eval` from a worktree pinned at one commit, on one core, resumable.

    python benchmarks/pinned.py --commit 8ec2d28 --core 1 --store ../replies/store.sqlite -- \\
        ../shared/data/spider --preset auto --model local:qwen2.5-coder-1.5b --out runs/auto-dev --ids @ids.txt
    python benchmarks/pinned.py --commit HEAD --dry-run -- ../shared/data/spider --out runs/x   # print, run nothing

The commit is checked out once as a detached worktree (`../groundsql-pins/<commit>/` by default) and the run
imports only that worktree's `src/`, so the checkout can move on while the run goes on. Everything after `--` is
`groundsql eval`'s arguments; `--ids @FILE` reads a comma-separated id list from FILE, and the dataset, `--out`,
`--predictions`, `--knowledge` and `--previous` are read from the directory the command is started in. The run's
`command.txt` gets the command, `# code: <commit>`, how it was pinned, and a line when it resumes, stops or ends;
the same command continues a stopped run.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: `groundsql eval run` options whose value is a path, and those that take no value
PATH_OPTIONS = ("--out", "--predictions", "--knowledge", "--previous")
FLAGS = ("--keep-distinct", "--json", "--help", "-h")


class Refused(Exception):
    """The run cannot start as asked; the message says why in one line."""


@dataclass
class PinnedRun:
    """What one pinned run is: its commit, worktree, environment and the `groundsql eval` arguments."""

    commit: str
    worktree: Path
    eval_args: list[str]
    out: Path
    core: int | None = None
    store: Path | None = None
    env: dict[str, str] = field(default_factory=dict)

    def argv(self, python: str = sys.executable) -> list[str]:
        """The child's command line: taskset (when a core is named), the interpreter, `-m groundsql eval …`."""
        pin = ["taskset", "-c", str(self.core)] if self.core is not None else []
        return [*pin, python, "-m", "groundsql", "eval", *self.eval_args]


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    own, eval_args = (argv[: argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, [])
    parser = argparse.ArgumentParser(prog="python benchmarks/pinned.py", description=__doc__.splitlines()[0],
                                     usage="%(prog)s --commit REV [options] -- EVAL_ARGS...")
    parser.add_argument("--commit", required=True, metavar="REV", help="the commit to run (any git revision)")
    parser.add_argument("--core", type=int, default=None, metavar="N", help="pin the run to this CPU core (taskset)")
    parser.add_argument("--store", type=Path, default=None, metavar="PATH",
                        help="GROUNDSQL_REPLY_STORE: a reply store shared by the runs of one benchmark")
    parser.add_argument("--worktrees", type=Path, default=REPO.parent / "groundsql-pins", metavar="DIR",
                        help="where the pinned worktrees live, one per commit (default: %(default)s)")
    parser.add_argument("--repo", type=Path, default=REPO, help="the checkout whose history holds REV")
    parser.add_argument("--dry-run", action="store_true", help="print the worktree, environment and command")
    args = parser.parse_args(own)
    try:
        run = plan(args.repo, args.commit, eval_args, worktrees=args.worktrees, core=args.core, store=args.store)
        if args.dry_run:
            print(describe(run))
            return 0
        ensure_worktree(args.repo, run)
    except Refused as refusal:
        print(f"error: {refusal}", file=sys.stderr)
        return 2
    return execute(run, typed_command(run, args.worktrees, args.repo))


def plan(repo: Path, rev: str, eval_args: list[str], *, worktrees: Path, core: int | None = None,
         store: Path | None = None) -> PinnedRun:
    """Resolve REV, the eval arguments and the environment into a run; raises Refused when it cannot start."""
    commit = resolve_commit(repo, rev)
    if commit is None:
        raise Refused(f"{rev!r} names no commit in {repo}")
    if core is not None:
        check_core(core)
    args = absolute_paths(expand_ids(eval_args))
    out = option_value(args, "--out")
    if out is None:
        raise Refused("EVAL_ARGS name no --out DIR: a pinned run needs its run folder to record and resume it")
    worktree = (worktrees / commit).absolute()
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env["PYTHONPATH"] = str(worktree / "src")
    env.setdefault("GROUNDSQL_THREADS", "1")
    env["GROUNDSQL_BENCH_COMMIT"] = commit
    store = store.absolute() if store is not None else None
    if store is not None:
        env["GROUNDSQL_REPLY_STORE"] = str(store)
    return PinnedRun(commit, worktree, args, Path(out), core, store, env)


def resolve_commit(repo: Path, rev: str) -> str | None:
    """The short hash of the commit REV names in REPO (None when it names none)."""
    done = subprocess.run(["git", "-C", str(repo), "rev-parse", "--verify", "--quiet", "--short", f"{rev}^{{commit}}"],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0 or not done.stdout.strip():
        return None
    return done.stdout.strip()


def check_core(core: int) -> None:
    """Refuse a core the run cannot be pinned to: no taskset, or a core this process may not use."""
    if shutil.which("taskset") is None:
        raise Refused("--core needs taskset (util-linux), which is not on PATH; install it or leave out --core")
    allowed = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    if allowed is not None and core not in allowed:
        raise Refused(f"core {core} is not one this process may run on ({', '.join(map(str, sorted(allowed)))})")


def expand_ids(args: list[str]) -> list[str]:
    """`--ids @FILE` (or `--ids=@FILE`) with FILE's comma-separated ids (newlines count as commas)."""
    out = list(args)
    for i, arg in enumerate(out):
        if arg == "--ids" and i + 1 < len(out) and out[i + 1].startswith("@"):
            out[i + 1] = _read_ids(Path(out[i + 1][1:]))
        elif arg.startswith("--ids=@"):
            out[i] = "--ids=" + _read_ids(Path(arg.removeprefix("--ids=@")))
    return out


def _read_ids(path: Path) -> str:
    if not path.is_file():
        raise Refused(f"--ids @{path}: no such file")
    ids = [part.strip() for part in path.read_text(encoding="utf-8").replace("\n", ",").split(",")]
    return ",".join(part for part in ids if part)


def absolute_paths(args: list[str]) -> list[str]:
    """The dataset and the path options made absolute, since the run's working directory is the worktree."""
    out, i = [], 0
    while i < len(args):
        arg = args[i]
        name, eq, value = arg.partition("=")
        if arg.startswith("--") and eq:
            out.append(f"{name}={_absolute(value)}" if name in PATH_OPTIONS else arg)
        elif arg.startswith("-") and arg not in FLAGS and i + 1 < len(args):
            out += [arg, _absolute(args[i + 1]) if arg in PATH_OPTIONS else args[i + 1]]
            i += 1
        elif arg.startswith("-") or (arg == "run" and not out):
            out.append(arg)
        else:
            out.append(_absolute(arg))  # the dataset
        i += 1
    return out


def _absolute(path: str) -> str:
    return os.path.abspath(os.path.expanduser(path))


def option_value(args: list[str], name: str) -> str | None:
    """The value of `name` in an argument list (`--out DIR` or `--out=DIR`), the last one given."""
    value = None
    for i, arg in enumerate(args):
        if arg == name and i + 1 < len(args):
            value = args[i + 1]
        elif arg.startswith(name + "="):
            value = arg.split("=", 1)[1]
    return value


def ensure_worktree(repo: Path, run: PinnedRun) -> None:
    """Create the detached worktree at the run's commit, or check that the existing one is that commit, clean."""
    if not run.worktree.exists():
        run.worktree.parent.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(["git", "-C", str(repo), "worktree", "add", "--detach", str(run.worktree), run.commit],
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise Refused(f"git worktree add failed: {done.stderr.strip().splitlines()[-1:]}")
        return
    head = subprocess.run(["git", "-C", str(run.worktree), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True, check=False).stdout.strip()
    if head != run.commit:
        raise Refused(f"{run.worktree} exists but is at {head or 'no commit'}, not {run.commit}")
    changed = subprocess.run(["git", "-C", str(run.worktree), "status", "--porcelain", "--untracked-files=no"],
                             capture_output=True, text=True, check=False).stdout.strip()
    if changed:
        raise Refused(f"{run.worktree} has changes to tracked files: it no longer runs {run.commit}")


def describe(run: PinnedRun) -> str:
    """The dry run's text: the worktree, the environment the run gets, its working directory and command."""
    state = "exists" if run.worktree.exists() else "would be created"
    env = ["PYTHONPATH", "GROUNDSQL_THREADS", "GROUNDSQL_BENCH_COMMIT", "GROUNDSQL_REPLY_STORE"]
    return "\n".join([f"# worktree: {run.worktree} ({state}, detached at {run.commit})",
                      *(f"{key}={run.env[key]}" for key in env if key in run.env),
                      f"cd {shlex.quote(str(run.worktree))}", f"$ {shlex.join(run.argv())}",
                      f"# record: {run.out / 'command.txt'}"])


def typed_command(run: PinnedRun, worktrees: Path, repo: Path) -> str:
    """The run as a user types it again to resume it: this script at the resolved commit, ids expanded."""
    own = ["--commit", run.commit]
    own += ["--core", str(run.core)] if run.core is not None else []
    own += ["--store", str(run.store)] if run.store is not None else []
    own += ["--worktrees", str(run.worktree.parent)] if worktrees != REPO.parent / "groundsql-pins" else []
    own += ["--repo", os.path.abspath(repo)] if repo != REPO else []
    return f"GROUNDSQL_THREADS={run.env['GROUNDSQL_THREADS']} python benchmarks/pinned.py {shlex.join(own)} -- " \
           f"{shlex.join(run.eval_args)}"


def answered(out: Path) -> int:
    """How many questions a run folder's `results.jsonl` holds (distinct ids; a torn last line is not one)."""
    path = out / "results.jsonl"
    if not path.is_file():
        return 0
    ids = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            ids.add(str(json.loads(line)["id"]))
        except (ValueError, KeyError, TypeError):
            continue
    return len(ids)


def record(out: Path, *lines: str) -> None:
    """Append lines to the run's `command.txt` (creating the run folder)."""
    out.mkdir(parents=True, exist_ok=True)
    with (out / "command.txt").open("a", encoding="utf-8") as handle:
        handle.write("".join(line + "\n" for line in lines))


def start_lines(run: PinnedRun, command: str, now: str) -> list[str]:
    """What a start adds to `command.txt`: the command, `# code: <commit>` (read by the reports), how it is pinned,
    and whether it resumes."""
    core = f"core {run.core}" if run.core is not None else "no core pinning"
    store = f"reply store {run.store}" if run.store is not None else "no shared reply store"
    lines = [command, f"# code: {run.commit}",
             f"# pinned: worktree {run.worktree}, {core}, {store}, GROUNDSQL_THREADS={run.env['GROUNDSQL_THREADS']}"]
    done = answered(run.out)
    if done:
        lines.append(f"# resumed at {now} with {done} questions already answered")
    return lines


def execute(run: PinnedRun, command: str) -> int:
    """Run the child in the worktree, forwarding SIGINT/SIGTERM to it, and record its start and end; returns its
    exit status (128 + the signal when a signal ended it)."""
    record(run.out, *start_lines(run, command, utc_now()))
    stopped: list[int] = []
    children: list[subprocess.Popen] = []

    def forward(signum: int, _frame: object) -> None:
        stopped.append(signum)
        for child in children:
            child.send_signal(signum)

    previous = {sig: signal.signal(sig, forward) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:  # its own session: a Ctrl-C reaches the child once, through this process
        children.append(subprocess.Popen(run.argv(), cwd=run.worktree, env=run.env, start_new_session=True))
        if stopped:
            children[0].send_signal(stopped[0])
        status = children[0].wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    status = 128 - status if status < 0 else status
    done = answered(run.out)
    if stopped:
        record(run.out, f"# stopped at {utc_now()} after {done} questions ({signal.Signals(stopped[0]).name}, "
                        f"exit status {status})")
    else:
        record(run.out, f"# ended at {utc_now()}: {done} questions, exit status {status}")
    return status


def utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


if __name__ == "__main__":
    raise SystemExit(main())
