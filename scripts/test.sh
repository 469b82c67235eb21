#!/usr/bin/env bash
# The whole test suite: installs what it needs (the 0.5B test model included), then runs pytest on two workers
# (pytest-xdist; one on a single-core machine; GROUNDSQL_TEST_WORKERS=1 runs it in one process).
# Extra arguments go to pytest, e.g. `bash scripts/test.sh -m unit`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh "local,api,dev,server,analysis,spark,dataframes,notebook"
cores=$(nproc 2>/dev/null || echo 1)
workers="${GROUNDSQL_TEST_WORKERS:-$(( cores >= 2 ? 2 : 1 ))}"  # two where there are two cores or more
if [ "$workers" -gt 1 ]; then
  # One model thread a worker: two workers already fill two cores, and llama.cpp threads that share a core stall.
  export GROUNDSQL_THREADS="${GROUNDSQL_THREADS:-1}"
  exec .venv/bin/python -m pytest -n "$workers" --dist loadfile "$@"
fi
export GROUNDSQL_THREADS="${GROUNDSQL_THREADS:-2}"
exec .venv/bin/python -m pytest "$@"
