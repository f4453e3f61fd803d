#!/usr/bin/env bash
# Runs the test suite (set-up included). Extra arguments go to pytest, e.g. `-m slow`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
# the layers' import rules and undefined names (pyproject.toml, [tool.ruff]): under a second
.venv/bin/ruff check --quiet src tests bench jobs
# the generated cases' seed (tests/engine/packed.py): the fixed one unless given, a new one
# with REASONLAKE_PROPERTY_SEED=random; printed beside any failure with the command that replays
# it. Not yet random by default: seed 777 draws a Definition 7 case whose disjointness depends on
# itself (a recursive negative inclusion), which the generator must learn to avoid first.
if [ "${REASONLAKE_PROPERTY_SEED:-}" = random ]; then
  export REASONLAKE_PROPERTY_SEED=$(( $(date +%s%N) % 1000000000 ))
  echo "property seed: $REASONLAKE_PROPERTY_SEED (replay: REASONLAKE_PROPERTY_SEED=$REASONLAKE_PROPERTY_SEED bash scripts/test.sh ...)"
fi
exec .venv/bin/python -m pytest "$@"
