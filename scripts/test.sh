#!/usr/bin/env bash
# The whole test suite: installs what it needs (the 0.5B test model included), then runs pytest.
# Extra arguments go to pytest, e.g. `bash scripts/test.sh -m unit`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh "local,api,dev,server,analysis,spark"
export GROUNDSQL_THREADS="${GROUNDSQL_THREADS:-2}"
exec .venv/bin/python -m pytest "$@"
