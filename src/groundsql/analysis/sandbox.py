"""Run model-written Python in a separate, limited interpreter process inside a fresh temporary folder.

What it enforces (docs/analysis.md says plainly what it does not):
- a separate `python -I` process in its own session, started in a new empty folder holding only the inputs;
- wall-clock timeout (the whole process group is killed), and rlimits on CPU time, address space, file size,
  open files and processes;
- an environment built from scratch (no variables of the parent: no keys, no tokens, no PYTHONPATH);
- an audit hook, installed before the code runs, that refuses sockets, new processes (fork, exec, spawn,
  subprocess, os.system), ctypes library loading, signals to other processes, raising rlimits, and any file
  access outside the folder other than reading Python's own installation;
- where the OS allows it (root, Linux), a private network namespace with no interfaces at all;
- the folder and everything in it deleted afterwards.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

log = logging.getLogger("groundsql")

SCRIPT_NAME = "analysis.py"
PRELUDE_NAME = ".prelude.py"  # the bootstrap's name for it too
OUTPUT_LIMIT = 20_000  # characters of stdout/stderr kept


class SandboxLimits(BaseModel):
    """Limits of one sandboxed run."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    timeout_s: float = Field(30.0, gt=0, description="wall-clock limit; the process group is killed after it")
    cpu_s: int = Field(20, gt=0, description="CPU seconds (RLIMIT_CPU)")
    memory_mb: int = Field(2048, gt=64, description="address space in MiB (RLIMIT_AS)")
    file_mb: int = Field(64, gt=0, description="largest file the code may write, MiB (RLIMIT_FSIZE)")
    open_files: int = Field(256, gt=16, description="open file descriptors (RLIMIT_NOFILE)")
    processes: int = Field(64, gt=0, description="processes of the user (RLIMIT_NPROC; not enforced for root)")
    preload: tuple[str, ...] = Field(("pandas",), description="modules imported before the hook (if installed)")


@dataclass
class SandboxResult:
    """What a sandboxed run left behind: its output files (by name), stdout, stderr and how it ended."""

    ok: bool
    returncode: int | None
    stdout: str
    stderr: str
    error: str | None
    elapsed_s: float
    files: dict[str, bytes] = field(default_factory=dict)


# The bootstrap runs inside the child: limits its own imports, installs the audit hook, then runs the code.
_BOOTSTRAP = r'''
import os, sys
ROOT = os.path.realpath(os.getcwd())
SCRIPT = sys.argv[1]
PRELUDE = ".prelude.py"
DENIED = tuple(os.path.realpath(p) for p in sys.argv[2:])

def _limit():
    import resource
    names = ("RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_NPROC", "RLIMIT_CORE")
    for name, pair in zip(names, os.environ.pop("GROUNDSQL_SANDBOX_LIMITS").split(";")):
        soft, hard = (int(v) for v in pair.split(","))
        try:
            resource.setrlimit(getattr(resource, name), (soft, hard))
        except (ValueError, OSError):
            pass
    if os.environ.pop("GROUNDSQL_SANDBOX_NETNS", "") == "1":
        try:
            import ctypes
            ctypes.CDLL(None, use_errno=True).unshare(0x40000000)  # CLONE_NEWNET: no interfaces at all
        except Exception:
            pass
_limit()
del _limit
for name in os.environ.get("GROUNDSQL_SANDBOX_PRELOAD", "").split(","):
    if name:
        try:
            __import__(name)
        except Exception:
            pass
import _posixsubprocess
def _no_fork_exec(*args, **kwargs):
    raise PermissionError("sandbox: starting processes is not allowed")
_posixsubprocess.fork_exec = _no_fork_exec
if "subprocess" in sys.modules:
    sys.modules["subprocess"]._fork_exec = _no_fork_exec

def _install():
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, "/usr/share/zoneinfo"}
    paths.update(p for p in sys.path if p)
    read_roots = (ROOT,) + tuple(sorted({os.path.realpath(p) for p in paths}))
    write_flags = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
    net, proc, sig, cty, lim = ("network access", "starting processes", "signalling processes",
                                "calling C functions (ctypes)", "changing limits")
    refused = tuple({
        "socket.__new__": net, "socket.connect": net, "socket.bind": net, "socket.getaddrinfo": net,
        "socket.gethostbyname": net, "socket.sendto": net, "socket.socketpair": net,
        "os.system": proc, "os.fork": proc, "os.forkpty": proc, "os.exec": proc, "os.posix_spawn": proc,
        "os.spawn": proc, "subprocess.Popen": proc, "pty.spawn": proc,
        "os.kill": sig, "os.killpg": sig, "signal.pthread_kill": sig,
        "ctypes.dlsym": cty, "ctypes.dlsym/handle": cty, "ctypes.call_function": cty,
        "resource.setrlimit": lim, "resource.prlimit": lim, "sys.remote_exec": "debugging other processes",
        "webbrowser.open": "opening a browser",
    }.items())
    path_writes = frozenset({"os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.chmod", "os.chown", "os.link",
                             "os.symlink", "os.truncate", "os.utime", "os.mkfifo", "os.mknod", "shutil.rmtree",
                             "shutil.copyfile", "shutil.move"})
    path_reads = frozenset({"os.listdir", "os.scandir", "glob.glob", "os.chdir"})
    modules = frozenset({"_posixsubprocess", "_ctypes_test"})
    root, denied, realpath, fsdecode, sep = ROOT, DENIED, os.path.realpath, os.fsdecode, os.sep

    def inside(path, roots):
        return any(path == r or path.startswith(r.rstrip(sep) + sep) for r in roots)

    def check_path(path, write):
        if path is None or isinstance(path, int):
            return
        real = realpath(fsdecode(path))
        if inside(real, denied):
            raise PermissionError(f"sandbox: reading {real} is not allowed")
        if write and not inside(real, (root,)):
            raise PermissionError(f"sandbox: writing outside the working folder is not allowed ({real})")
        if not write and not inside(real, read_roots):
            raise PermissionError(f"sandbox: reading outside the working folder is not allowed ({real})")

    def hook(event, args):
        for name, what in refused:
            if event == name:
                raise PermissionError(f"sandbox: {what} is not allowed")
        if event == "open":
            path, mode, flags = (tuple(args) + (None, None, 0))[:3]
            writing = bool((flags or 0) & write_flags) or any(c in (mode or "") for c in "wax+")
            check_path(path, writing)
        elif event in path_writes:
            for arg in args[:2]:
                if isinstance(arg, (str, bytes, os.PathLike)):
                    check_path(arg, True)
        elif event in path_reads:
            if args and isinstance(args[0], (str, bytes, os.PathLike)):
                check_path(args[0], False)
        elif event == "ctypes.dlopen" and args and args[0] is not None:
            raise PermissionError("sandbox: loading C libraries (ctypes) is not allowed")
        elif event == "import" and args and args[0] in modules:
            raise PermissionError(f"sandbox: importing {args[0]} is not allowed")
        elif event == "object.__setattr__" and args and getattr(args[0], "__name__", "") in ("hook", "check_path", "inside"):
            raise PermissionError("sandbox: changing the sandbox is not allowed")

    sys.addaudithook(hook)

_install()
del _install, ROOT, DENIED
if os.path.exists(PRELUDE):
    exec(compile(open(PRELUDE, encoding="utf-8").read(), "prelude", "exec"), {"__name__": "prelude"})
del PRELUDE
_code = open(SCRIPT, encoding="utf-8").read()
_globals = {"__name__": "__main__", "__file__": SCRIPT, "__builtins__": __builtins__}
del SCRIPT
exec(compile(_code, "analysis.py", "exec"), _globals)
'''


def run_python(code: str, inputs: Mapping[str, Path | bytes | str] | None = None, *,
               outputs: tuple[str, ...] = ("result.csv",), limits: SandboxLimits | None = None,
               denied_paths: tuple[Path | str, ...] = (), prelude: str = "") -> SandboxResult:
    """Run `code` in the sandbox and return what it printed and the `outputs` files it wrote.

    Args:
        code: Python source; it runs with the working folder as its current directory.
        inputs: file name → path to copy, or the file's content; the only files the code finds in its folder.
        outputs: names of files to read back after the run (missing ones are simply absent).
        limits: time, CPU, memory, file-size and process limits.
        denied_paths: files to refuse even where reading would otherwise be allowed (the database file).
        prelude: Python source run first, under the same limits and hook, in its own namespace (the caller's
            guards, such as `answer_frame`'s result.csv writer).

    Returns:
        A `SandboxResult`; `error` is one clear line when the run failed, hit a limit or was refused.
    """
    limits = limits or SandboxLimits()
    folder = Path(tempfile.mkdtemp(prefix="groundsql-sandbox-"))
    started = time.perf_counter()
    try:
        for name, content in (inputs or {}).items():
            target = folder / _plain_name(name)
            if isinstance(content, Path):
                shutil.copyfile(content, target)
            else:
                target.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
        (folder / SCRIPT_NAME).write_text(code, encoding="utf-8")
        if prelude:
            (folder / PRELUDE_NAME).write_text(prelude, encoding="utf-8")
        returncode, timed_out = _spawn(folder, limits, denied_paths)
        stdout = _read_text(folder / ".stdout")
        stderr = _read_text(folder / ".stderr")
        files = {}
        for name in outputs:
            path = folder / _plain_name(name)
            if path.is_file() and not path.is_symlink():
                files[name] = path.read_bytes()[: limits.file_mb * 1024 * 1024]
        error = _diagnose(returncode, timed_out, stderr, limits)
        return SandboxResult(ok=error is None, returncode=returncode, stdout=stdout, stderr=stderr, error=error,
                             elapsed_s=time.perf_counter() - started, files=files)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _spawn(folder: Path, limits: SandboxLimits, denied: tuple[Path | str, ...]) -> tuple[int | None, bool]:
    mib = 1024 * 1024
    rlimits = ((limits.cpu_s, limits.cpu_s + 1),  # SIGXCPU at the soft limit, SIGKILL a second later
               (limits.memory_mb * mib,) * 2, (limits.file_mb * mib,) * 2, (limits.open_files,) * 2,
               (limits.processes,) * 2, (0, 0))
    env = {"PATH": "/usr/bin:/bin", "HOME": str(folder), "TMPDIR": str(folder), "LANG": "C.UTF-8",
           "LC_ALL": "C.UTF-8", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "NUMEXPR_MAX_THREADS": "1", "MPLCONFIGDIR": str(folder), "PYTHONDONTWRITEBYTECODE": "1",
           "GROUNDSQL_SANDBOX_PRELOAD": ",".join(limits.preload),
           "GROUNDSQL_SANDBOX_LIMITS": ";".join(f"{soft},{hard}" for soft, hard in rlimits),
           "GROUNDSQL_SANDBOX_NETNS": "1" if sys.platform.startswith("linux") else "0"}
    command = [sys.executable, "-I", "-c", _BOOTSTRAP, SCRIPT_NAME, *(str(Path(p).resolve()) for p in denied)]
    with open(folder / ".stdout", "wb") as out, open(folder / ".stderr", "wb") as err:
        # The child sets its own limits first thing (no preexec_fn: it is unsafe in a threaded parent).
        process = subprocess.Popen(command, cwd=folder, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                   start_new_session=True, close_fds=True)
        try:
            process.wait(timeout=limits.timeout_s)
            timed_out = False
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            _kill_group(process.pid)
            process.wait()
    return process.returncode, timed_out


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _diagnose(returncode: int | None, timed_out: bool, stderr: str, limits: SandboxLimits) -> str | None:
    if timed_out:
        return f"the code ran past the {limits.timeout_s:g} s time limit and was stopped"
    if returncode == 0:
        return None
    if returncode is not None and returncode < 0:
        name = signal.Signals(-returncode).name if -returncode in signal.Signals._value2member_map_ else str(-returncode)
        if name == "SIGXCPU":
            return f"the code used more than {limits.cpu_s} s of CPU time and was stopped"
        if name == "SIGXFSZ":
            return f"the code wrote a file larger than {limits.file_mb} MiB and was stopped"
        return f"the code was killed by {name}"
    last = _last_error_line(stderr)
    if "MemoryError" in last:
        return f"the code ran out of memory (limit {limits.memory_mb} MiB): {last}"
    if "File too large" in last:
        return f"the code wrote a file larger than {limits.file_mb} MiB: {last}"
    return last or f"the code exited with status {returncode}"


def _last_error_line(stderr: str) -> str:
    lines = [line.strip() for line in stderr.strip().splitlines() if line.strip()]
    return lines[-1][:400] if lines else ""


def _read_text(path: Path) -> str:
    try:
        with open(path, "rb") as handle:
            data = handle.read(OUTPUT_LIMIT * 4)
    except OSError:
        return ""
    return data.decode("utf-8", errors="replace")[-OUTPUT_LIMIT:]


def _plain_name(name: str) -> str:
    """A file name without any folder part, so inputs and outputs stay inside the sandbox folder."""
    plain = os.path.basename(str(name).replace("\\", "/"))
    if plain in ("", ".", "..") or plain.startswith("."):
        raise ValueError(f"not a plain file name: {name!r}")
    return plain
