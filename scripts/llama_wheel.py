"""Put llama.cpp's shared libraries, built apart, into a llama-cpp-python wheel built without them.

`scripts/setup.sh` compiles only the libraries groundsql loads (`libllama` and ggml, from the llama.cpp sources
inside the llama-cpp-python sdist) instead of the package's own build, which also compiles llama.cpp's
`llama-common` tool library; the Python package is then built with `LLAMA_BUILD=OFF` and this script adds the
libraries under `llama_cpp/lib/`, where the package loads them, with their hashes in the wheel's RECORD.

    python scripts/llama_wheel.py WHEEL LIBRARY_DIR
"""

from __future__ import annotations

import base64
import hashlib
import sys
import zipfile
from pathlib import Path


def add_libraries(wheel: Path, library_dir: Path) -> list[str]:
    """Rewrite `wheel` with every `lib*.so*` of `library_dir` added under llama_cpp/lib; the names added."""
    libraries = sorted(library_dir.glob("lib*.so*"))
    if not any(lib.name == "libllama.so" for lib in libraries):
        raise SystemExit(f"no libllama.so in {library_dir}: the llama.cpp build did not finish")
    rewritten = wheel.with_name(wheel.name + ".partial")
    added = []
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(rewritten, "w", zipfile.ZIP_DEFLATED) as target:
        record = next(name for name in source.namelist() if name.endswith(".dist-info/RECORD"))
        lines = [line for line in source.read(record).decode().splitlines() if line and not line.startswith(record)]
        for item in source.infolist():
            if item.filename != record:
                target.writestr(item, source.read(item))
        for library in libraries:
            data = library.read_bytes()  # a symbolic link is stored as a file, as the package's own build does
            name = f"llama_cpp/lib/{library.name}"
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = 0o755 << 16
            target.writestr(info, data, zipfile.ZIP_DEFLATED)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            lines.append(f"{name},sha256={digest},{len(data)}")
            added.append(library.name)
        lines.append(f"{record},,")
        target.writestr(record, "\n".join(lines) + "\n")
    rewritten.replace(wheel)
    return added


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    names = add_libraries(Path(sys.argv[1]), Path(sys.argv[2]))
    print(f"    added {len(names)} libraries to {Path(sys.argv[1]).name}")
