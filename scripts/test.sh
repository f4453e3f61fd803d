#!/usr/bin/env bash
# Runs the test suite (set-up included). Extra arguments go to pytest, e.g. `-m slow`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
exec .venv/bin/python -m pytest "$@"
