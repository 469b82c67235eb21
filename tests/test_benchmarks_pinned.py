"""benchmarks/pinned.py: a run from a worktree pinned at one commit, recorded in its command.txt, with real git and a
stand-in for `groundsql eval` (no model)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmarks import pinned

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[1]
#: what the pinned worktree's `python -m groundsql eval …` does here: note where it ran, answer one question, then
#: exit with FAKE_EXIT or, with FAKE_WAIT, wait to be stopped
FAKE_EVAL = """\
import json, os, sys, time
from pathlib import Path
args = sys.argv[1:]
out = Path(args[args.index("--out") + 1])
out.mkdir(parents=True, exist_ok=True)
seen = {"cwd": os.getcwd(), "argv": args, "module": __file__, "pythonpath": os.environ["PYTHONPATH"],
        "threads": os.environ.get("GROUNDSQL_THREADS"), "store": os.environ.get("GROUNDSQL_REPLY_STORE")}
(out / "seen.json").write_text(json.dumps(seen))
results = out / "results.jsonl"
done = len(results.read_text().splitlines()) if results.exists() else 0
with results.open("a") as handle:
    handle.write(json.dumps({"id": done}) + "\\n")
if os.environ.get("FAKE_WAIT"):
    (out / "waiting").touch()
    time.sleep(60)
sys.exit(int(os.environ.get("FAKE_EXIT", "0")))
"""


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture
def fake_repo(tmp_path: Path):
    """A git repository whose one commit holds a stand-in `groundsql` package; its worktrees are removed after."""
    repo = tmp_path / "repo"
    (repo / "src" / "groundsql").mkdir(parents=True)
    (repo / "src" / "groundsql" / "__init__.py").write_text("")
    (repo / "src" / "groundsql" / "__main__.py").write_text(FAKE_EVAL)
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "a stand-in for groundsql eval")
    yield repo, git(repo, "rev-parse", "--short", "HEAD"), tmp_path / "pins"
    for line in git(repo, "worktree", "list", "--porcelain").splitlines():
        path = line.removeprefix("worktree ")
        if line.startswith("worktree ") and Path(path) != repo:
            git(repo, "worktree", "remove", "--force", path)


def test_dry_run_names_the_pinned_worktree_and_its_pythonpath(tmp_path: Path, capsys) -> None:
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    if head.returncode != 0:
        pytest.skip("not a git checkout")
    commit = head.stdout.strip()
    status = pinned.main(["--commit", "HEAD", "--worktrees", str(tmp_path), "--store", str(tmp_path / "store.sqlite"),
                          "--dry-run", "--", "data", "--preset", "auto", "--out", str(tmp_path / "run")])
    shown = capsys.readouterr().out
    assert status == 0
    assert f"# worktree: {tmp_path / commit} (would be created, detached at {commit})" in shown
    assert f"PYTHONPATH={tmp_path / commit / 'src'}" in shown
    assert f"GROUNDSQL_REPLY_STORE={tmp_path / 'store.sqlite'}" in shown
    assert f"-m groundsql eval {Path('data').absolute()} --preset auto --out {tmp_path / 'run'}" in shown
    assert not (tmp_path / commit).exists() and not (tmp_path / "run").exists()  # a dry run creates nothing


def test_refuses_a_run_without_out_or_a_commit_that_does_not_resolve(tmp_path: Path, capsys) -> None:
    assert pinned.main(["--commit", "HEAD", "--worktrees", str(tmp_path), "--", "data", "--preset", "auto"]) == 2
    assert capsys.readouterr().err.startswith("error: EVAL_ARGS name no --out DIR")
    assert pinned.main(["--commit", "no-such-rev", "--worktrees", str(tmp_path), "--", "data", "--out", "x"]) == 2
    err = capsys.readouterr().err
    assert "'no-such-rev' names no commit" in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_paths_become_absolute_and_ids_are_read_from_a_file(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ids.txt").write_text("3, 17,\n42\n")
    args = pinned.absolute_paths(pinned.expand_ids(["run", "../data", "--preset", "auto", "--keep-distinct",
                                                    "--out=runs/a", "--ids", "@ids.txt", "--knowledge", "k"]))
    assert args == ["run", str(tmp_path.parent / "data"), "--preset", "auto", "--keep-distinct",
                    f"--out={tmp_path / 'runs' / 'a'}", "--ids", "3,17,42", "--knowledge", str(tmp_path / "k")]
    assert pinned.option_value(args, "--out") == str(tmp_path / "runs" / "a")


def test_a_run_records_its_commit_resumes_and_passes_on_the_exit_status(fake_repo, tmp_path, monkeypatch) -> None:
    repo, commit, pins = fake_repo
    out = tmp_path / "run"
    (tmp_path / "ids.txt").write_text("1,2,3")
    argv = ["--commit", "HEAD", "--repo", str(repo), "--worktrees", str(pins), "--store", str(tmp_path / "s.sqlite"),
            "--", str(tmp_path), "--preset", "auto", "--out", str(out), "--ids", f"@{tmp_path / 'ids.txt'}"]
    monkeypatch.delenv("GROUNDSQL_THREADS", raising=False)
    monkeypatch.setenv("FAKE_EXIT", "0")
    assert pinned.main(argv) == 0
    worktree = pins / commit
    seen = json.loads((out / "seen.json").read_text())
    assert seen["cwd"] == str(worktree) and seen["pythonpath"] == str(worktree / "src")
    assert seen["module"].startswith(str(worktree / "src" / "groundsql"))  # the pinned code, not this checkout's
    assert seen["threads"] == "1" and seen["store"] == str(tmp_path / "s.sqlite")
    assert seen["argv"][-2:] == ["--ids", "1,2,3"]
    first = (out / "command.txt").read_text().splitlines()
    assert first[0].startswith(f"GROUNDSQL_THREADS=1 python benchmarks/pinned.py --commit {commit} ")
    assert first[0].endswith(f"--out {out} --ids 1,2,3")
    assert first[1] == f"# code: {commit}"
    assert first[2].startswith(f"# pinned: worktree {worktree}, no core pinning, reply store {tmp_path / 's.sqlite'}")
    assert first[3].startswith("# ended at ") and first[3].endswith(": 1 questions, exit status 0")
    assert not any("# resumed" in line for line in first)

    monkeypatch.setenv("FAKE_EXIT", "3")  # the same command again: the worktree is reused, the run resumed
    assert pinned.main(argv) == 3
    again = (out / "command.txt").read_text().splitlines()[len(first):]
    assert again[1] == f"# code: {commit}"
    assert again[3].startswith("# resumed at ") and again[3].endswith(" with 1 questions already answered")
    assert again[4].startswith("# ended at ") and again[4].endswith(": 2 questions, exit status 3")


def test_a_stopped_run_forwards_the_signal_and_says_so(fake_repo, tmp_path) -> None:
    repo, commit, pins = fake_repo
    out = tmp_path / "run"
    env = {**os.environ, "FAKE_WAIT": "1"}
    runner = subprocess.Popen([sys.executable, str(REPO / "benchmarks" / "pinned.py"), "--commit", commit, "--repo",
                               str(repo), "--worktrees", str(pins), "--", str(tmp_path), "--out", str(out)], env=env)
    deadline = time.monotonic() + 60
    while not (out / "waiting").exists() and runner.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    runner.send_signal(signal.SIGTERM)
    assert runner.wait(timeout=60) == 128 + signal.SIGTERM
    last = (out / "command.txt").read_text().splitlines()[-1]
    assert last.startswith("# stopped at ") and " after 1 questions (SIGTERM" in last


def test_an_existing_folder_that_is_not_the_commit_is_refused(fake_repo, tmp_path, capsys) -> None:
    repo, commit, pins = fake_repo
    (pins / commit).mkdir(parents=True)
    assert pinned.main(["--commit", commit, "--repo", str(repo), "--worktrees", str(pins), "--", str(tmp_path),
                        "--out", str(tmp_path / "run")]) == 2
    assert f"is at no commit, not {commit}" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()
