"""Which code a benchmark's numbers came from: the commit a run is labelled with, and the rule every report writer
follows — a report whose rows come from different commits must say, on each row, which commit it is.

The entry point (`python -m benchmarks NAME`) labels a run with `current_commit()` and hands it to the script in
`GROUNDSQL_BENCH_COMMIT`, so the commit in a run's `command.txt` is the one the entry point saw before the run
wrote anything (a run's own outputs would otherwise read as uncommitted changes).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
COMMIT_ENV = "GROUNDSQL_BENCH_COMMIT"
UNKNOWN = "unknown"


class MixedCommits(ValueError):
    """A report would put rows from different commits side by side without saying which row is which."""


def current_commit(repo: Path = REPO) -> str:
    """The commit a run is made at: `GROUNDSQL_BENCH_COMMIT` when the entry point set it, else `git rev-parse
    --short HEAD` with `-dirty` appended when tracked files differ from it ('unknown' outside a git checkout)."""
    if os.environ.get(COMMIT_ENV):
        return os.environ[COMMIT_ENV]

    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=False)
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = git("rev-parse", "--short", "HEAD")
    if not commit:
        return UNKNOWN
    return commit + ("-dirty" if git("status", "--porcelain", "--untracked-files=no") else "")


def commit_of_run(run_dir: Path) -> str | None:
    """The commit a recorded run says it ran at: the `# code: COMMIT …` line of its `command.txt` (written by the
    scripts since the line exists) or a `commit` in its `run.json`; None when it records none."""
    command = run_dir / "command.txt"
    if command.exists():
        for line in command.read_text(encoding="utf-8").splitlines():
            if line.startswith("# code:"):
                words = line.split(":", 1)[1].split()
                if words:
                    return words[0].rstrip(",;")
    config = run_dir / "run.json"
    if config.exists():
        import json

        value = json.loads(config.read_text(encoding="utf-8")).get("commit")
        if value:
            return str(value)
    return None


def check_row_commits(rows: Iterable[tuple[str, str | None]]) -> str | None:
    """Refuse a report whose rows mix commits unless each row states its own.

    Args:
        rows: (the row as the report writes it, the commit its numbers came from or None when unknown).

    Returns:
        The one commit every row shares (None when they share none, or it is unknown), for the report's header.

    Raises:
        MixedCommits: the rows come from more than one commit (an unknown one counts as another) and some row does
            not name its commit in its own text.
    """
    rows = list(rows)
    commits = {commit for _, commit in rows}
    if len(commits) <= 1:
        return next(iter(commits), None)
    silent = [text for text, commit in rows if commit is None or _short(commit) not in text]
    if silent:
        shown = sorted(str(c) for c in commits)
        raise MixedCommits(f"the report's rows come from {len(commits)} commits ({', '.join(shown)}) and "
                           f"{len(silent)} row(s) do not say which: {silent[0][:120]!r}; name each row's commit in "
                           "the row, or report runs of one commit")
    return None


def _short(commit: str) -> str:
    """The part of a commit label a row must show: its hash, at most 7 characters (`85585ec`, `9039152-dirty`)."""
    head, _, tail = commit.partition("-")
    return head[:7] + (f"-{tail}" if tail else "")


def label_if_mixed(rows: list[tuple[str, str | None]]) -> list[str]:
    """Each row's label, with its commit appended (`label @ abc1234`) when the rows come from more than one commit,
    so that a report built from them passes `check_row_commits`; a row of an unknown commit is said to be one."""
    if len({commit for _, commit in rows}) <= 1:
        return [label for label, _ in rows]
    return [f"{label} @ {_short(commit) if commit else 'commit unknown'}" for label, commit in rows]
