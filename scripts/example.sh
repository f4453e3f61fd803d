#!/usr/bin/env bash
# The main job on the embedded default: an example view over an example stream.
# Ingests the stream, slides through several window closes, prints the view and a SQL query.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
export REASONLAKE_HOME=${REASONLAKE_HOME:-./lakehouse-example}
# a script: every command on its embedded session, no command server left running after it
export REASONLAKE_SERVER=${REASONLAKE_SERVER:-off}
rm -rf "$REASONLAKE_HOME"
rl() { echo "\$ reasonlake $*" >&2; .venv/bin/reasonlake "$@"; }
rl init
rl view create views/active_users.yaml
rl ingest social examples/streams/social.jsonl
rl slide active_users --until 2026-11-22T10:08:00Z
echo "--- the view at close 10:08 (window 10:03–10:08]:"
rl export active_users
rl slide active_users --until 2026-11-22T10:12:00Z
echo "--- who is an agent now, and until when:"
rl sql "SELECT subject, origin, expires, inferred FROM active_users WHERE object = '<http://example.org/social#Agent>' ORDER BY subject"
echo "--- history:"
rl history active_users
