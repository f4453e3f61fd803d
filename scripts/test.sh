#!/usr/bin/env bash
# Runs the test suite (set-up included). Extra arguments go to pytest, e.g. `-m slow`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
# the layers' import rules and undefined names (pyproject.toml, [tool.ruff]): under a second
.venv/bin/ruff check --quiet src tests bench jobs
# the generated cases' seed (tests/engine/packed.py): a new one each run unless given, printed
# here and beside any failure with the command that replays it; a seed that once failed is kept
# as a fixed case in the tests (e.g. tests/engine/test_repair_matches_definition7.py, seed 777)
if [ -z "${REASONLAKE_PROPERTY_SEED:-}" ] || [ "${REASONLAKE_PROPERTY_SEED}" = random ]; then
  export REASONLAKE_PROPERTY_SEED=$(( $(date +%s%N) % 1000000000 ))
fi
echo "property seed: $REASONLAKE_PROPERTY_SEED (replay: REASONLAKE_PROPERTY_SEED=$REASONLAKE_PROPERTY_SEED bash scripts/test.sh ...)"
exec .venv/bin/python -m pytest "$@"
