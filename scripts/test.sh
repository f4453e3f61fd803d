#!/usr/bin/env bash
# Runs the test suite (set-up included). Extra arguments go to pytest, e.g. `-m slow`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
# the layers' import rules and undefined names (pyproject.toml, [tool.ruff]): under a second
.venv/bin/ruff check --quiet src tests bench jobs
exec .venv/bin/python -m pytest "$@"
