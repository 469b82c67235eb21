"""`scripts/llama_wheel.py`: the llama.cpp libraries built apart go into the package's wheel, which pip installs
with every file's hash checked against its RECORD."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "llama_wheel.py"


def load_script():
    spec = importlib.util.spec_from_file_location("llama_wheel", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def python_only_wheel(folder: Path) -> Path:
    """A wheel shaped like llama-cpp-python built with LLAMA_BUILD=OFF: Python files, no libraries."""
    wheel = folder / "llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl"
    files = {
        "llama_cpp/__init__.py": b"from pathlib import Path\nLIB = Path(__file__).parent / 'lib'\n",
        "llama_cpp_python-0.3.36.dist-info/METADATA": b"Metadata-Version: 2.1\nName: llama_cpp_python\n"
                                                      b"Version: 0.3.36\n",
        "llama_cpp_python-0.3.36.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\n"
                                                   b"Tag: py3-none-linux_x86_64\n",
    }
    record = "llama_cpp_python-0.3.36.dist-info/RECORD"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
        archive.writestr(record, "\n".join([record_line(n, d) for n, d in files.items()] + [f"{record},,"]) + "\n")
    return wheel


@pytest.mark.unit
def test_the_libraries_land_in_the_wheel_with_their_hashes(tmp_path: Path) -> None:
    wheel = python_only_wheel(tmp_path)
    libraries = tmp_path / "bin"
    libraries.mkdir()
    (libraries / "libllama.so.0.5.0").write_bytes(b"\x7fELF llama")
    (libraries / "libllama.so").symlink_to("libllama.so.0.5.0")
    (libraries / "libggml.so").write_bytes(b"\x7fELF ggml")
    added = load_script().add_libraries(wheel, libraries)
    assert added == ["libggml.so", "libllama.so", "libllama.so.0.5.0"]
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read("llama_cpp/lib/libllama.so") == b"\x7fELF llama"  # the link stored as the file
        record = archive.read("llama_cpp_python-0.3.36.dist-info/RECORD").decode().splitlines()
    assert record_line("llama_cpp/lib/libggml.so", b"\x7fELF ggml") in record
    assert record[-1] == "llama_cpp_python-0.3.36.dist-info/RECORD,,"
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target",
                    str(target), str(wheel)], check=True)
    assert (target / "llama_cpp" / "lib" / "libllama.so.0.5.0").read_bytes() == b"\x7fELF llama"
    assert (target / "llama_cpp" / "__init__.py").exists()


@pytest.mark.unit
def test_a_build_without_libllama_is_refused(tmp_path: Path) -> None:
    wheel = python_only_wheel(tmp_path)
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "libggml.so").write_bytes(b"ggml")
    with pytest.raises(SystemExit, match="no libllama.so"):
        load_script().add_libraries(wheel, tmp_path / "bin")
    with zipfile.ZipFile(wheel) as archive:
        assert not [n for n in archive.namelist() if n.startswith("llama_cpp/lib/")]
