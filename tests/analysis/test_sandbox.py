"""Attacks on the analysis sandbox: each one contained with a clear error, the parent unharmed."""

from __future__ import annotations

import hashlib
import os
import socket
import tempfile
from pathlib import Path

import pytest

from groundsql.analysis.sandbox import SandboxLimits, run_python

pytestmark = pytest.mark.integration

FAST = SandboxLimits(timeout_s=8, cpu_s=4, memory_mb=512, file_mb=4, preload=())


def sandbox_folders() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("groundsql-sandbox-*")}


@pytest.fixture(autouse=True)
def leaves_nothing_behind():
    before = sandbox_folders()
    yield
    assert sandbox_folders() <= before, "the sandbox left its folder behind"


def test_ordinary_code_reads_its_inputs_and_writes_the_result() -> None:
    code = "rows = open('data.csv').read().split()\nopen('result.csv', 'w').write('n\\n' + str(len(rows) - 1))\n"
    result = run_python(code, {"data.csv": "x\n1\n2\n3\n"}, limits=FAST)
    assert result.ok and result.files == {"result.csv": b"n\n3"}


def test_pandas_works_inside() -> None:
    pytest.importorskip("pandas")
    code = ("import pandas as pd\ndf = pd.read_csv('v.csv')\n"
            "df.groupby('k', as_index=False)['x'].sum().to_csv('result.csv', index=False)\n")
    result = run_python(code, {"v.csv": "k,x\na,1\na,2\nb,5\n"}, limits=SandboxLimits(timeout_s=60))
    assert result.ok, result.error
    assert result.files["result.csv"].decode().split() == ["k,x", "a,3", "b,5"]


@pytest.mark.parametrize("code", [
    "import socket; socket.create_connection(('127.0.0.1', 5432), timeout=2)",
    "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM)",
    "import urllib.request; urllib.request.urlopen('http://127.0.0.1:5432/', timeout=2)",
], ids=["tcp", "udp", "http"])
def test_network_is_refused(code: str) -> None:
    result = run_python(code, limits=FAST)
    assert not result.ok and "network access is not allowed" in result.error


def test_secrets_of_the_parent_environment_are_not_passed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-test")
    result = run_python("import os; print(sorted(os.environ))", limits=FAST)
    assert result.ok and "OPENAI_API_KEY" not in result.stdout and "sk-secret" not in result.stdout


def test_reading_etc_passwd_is_refused() -> None:
    result = run_python("print(open('/etc/passwd').read())", limits=FAST)
    assert not result.ok and "reading outside the working folder is not allowed" in result.error
    assert "root:" not in result.stdout


def test_reading_the_database_file_is_refused(music_db: Path) -> None:
    result = run_python(f"print(open({str(music_db)!r}, 'rb').read(16))", limits=FAST, denied_paths=(music_db,))
    assert not result.ok and "not allowed" in result.error and "SQLite" not in result.stdout


def test_a_symlink_out_of_the_folder_does_not_help() -> None:
    code = "import os\nos.symlink('/etc/passwd', 'p')\nprint(open('p').read())"
    result = run_python(code, limits=FAST)
    assert not result.ok and "not allowed" in result.error and "root:" not in result.stdout


def test_writing_outside_the_folder_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "escaped.txt"
    result = run_python(f"open({str(target)!r}, 'w').write('x')", limits=FAST)
    assert not result.ok and "writing outside the working folder is not allowed" in result.error
    assert not target.exists()
    result = run_python(f"import os; os.remove({str(tmp_path)!r})", limits=FAST)
    assert not result.ok and tmp_path.exists()


def test_fork_bomb_is_contained() -> None:
    result = run_python("import os\nwhile True:\n    os.fork()\n", limits=FAST)
    assert not result.ok and "starting processes is not allowed" in result.error


@pytest.mark.parametrize("code", [
    "import os; os.system('touch /tmp/groundsql-pwned')",
    "import subprocess; subprocess.run(['touch', '/tmp/groundsql-pwned'])",
    "import os; os.execv('/bin/touch', ['touch', '/tmp/groundsql-pwned'])",
    "import os; os.posix_spawn('/bin/touch', ['touch', '/tmp/groundsql-pwned'], {})",
    "import multiprocessing; multiprocessing.Process(target=print).start()",
    "import _posixsubprocess; _posixsubprocess.fork_exec()",
], ids=["os.system", "subprocess", "exec", "posix_spawn", "multiprocessing", "posixsubprocess"])
def test_starting_processes_is_refused(code: str) -> None:
    result = run_python(code, limits=FAST)
    assert not result.ok and "not allowed" in result.error
    assert not Path("/tmp/groundsql-pwned").exists()


@pytest.mark.parametrize("code", [
    "import ctypes; ctypes.CDLL('libc.so.6').system(b'touch /tmp/groundsql-pwned')",
    "import ctypes; ctypes.CDLL(None).system(b'touch /tmp/groundsql-pwned')",
], ids=["dlopen", "dlsym"])
def test_ctypes_is_refused(code: str) -> None:
    result = run_python(code, limits=FAST)
    assert not result.ok and "ctypes" in result.error
    assert not Path("/tmp/groundsql-pwned").exists()


def test_memory_bomb_is_contained() -> None:
    result = run_python("x = bytearray(8 * 1024 ** 3)", limits=FAST)
    assert not result.ok and "ran out of memory" in result.error


def test_infinite_loop_is_stopped() -> None:
    result = run_python("while True:\n    pass\n", limits=SandboxLimits(timeout_s=2, cpu_s=60, preload=()))
    assert not result.ok and "time limit" in result.error and result.elapsed_s < 10


def test_cpu_limit_stops_a_busy_process() -> None:
    result = run_python("while True:\n    pass\n", limits=SandboxLimits(timeout_s=30, cpu_s=1, preload=()))
    assert not result.ok and ("CPU time" in result.error or "time limit" in result.error)


def test_huge_files_are_refused() -> None:
    result = run_python("open('big', 'wb').write(b'x' * (16 * 1024 * 1024))", limits=FAST)
    assert not result.ok and "larger than 4 MiB" in result.error


def test_killing_the_parent_or_raising_limits_is_refused() -> None:
    result = run_python(f"import os, signal; os.kill({os.getpid()}, signal.SIGKILL)", limits=FAST)
    assert not result.ok and "signalling processes is not allowed" in result.error
    result = run_python("import resource; resource.setrlimit(resource.RLIMIT_CPU, (1000, 1000))", limits=FAST)
    assert not result.ok and "changing limits is not allowed" in result.error


def test_the_parent_is_unharmed(music_db: Path) -> None:
    digest = hashlib.sha256(music_db.read_bytes()).hexdigest()
    for code in ("import os\nwhile True: os.fork()", "x = bytearray(8 * 1024 ** 3)", "raise SystemExit(3)",
                 "import sys; sys.stdout.write('y' * 10_000_000)"):
        result = run_python(code, limits=FAST, denied_paths=(music_db,))
        assert not result.ok or code.startswith("import sys")
    assert hashlib.sha256(music_db.read_bytes()).hexdigest() == digest
    with socket.create_server(("127.0.0.1", 0)):  # the parent still has its network
        pass
    assert run_python("print(6 * 7)", limits=FAST).stdout.strip() == "42"


def test_output_names_cannot_point_outside() -> None:
    with pytest.raises(ValueError):
        run_python("pass", {"..": "a"}, limits=FAST)
