#!/usr/bin/env bash
# Creates .venv with Python 3.11, 3.12 or 3.13 and installs reasonlake with its embedded Spark
# (the `local` extra), test and Spark Connect extras, once per change of pyproject.toml.
# Sourced by example.sh and test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
supported='import sys; sys.exit(0 if (3, 11) <= sys.version_info[:2] <= (3, 13) else 1)'
if [ -z "${PYTHON:-}" ]; then
  # the first that runs: a name on the PATH may be a version manager's shim for a version it lacks
  for candidate in python3.11 python3.12 python3.13 python3; do
    if "$candidate" -c "$supported" 2>/dev/null; then
      PYTHON=$candidate
      break
    fi
  done
  PYTHON=${PYTHON:-python3}
fi
"$PYTHON" -c "$supported" 2>/dev/null || {
  found=$("$PYTHON" --version 2>&1 || true)
  found=${found%%$'\n'*}
  echo "reasonlake needs Python 3.11, 3.12 or 3.13 (found: $found); set PYTHON=/path/to/python3.12" >&2
  exit 1
}
command -v java >/dev/null || [ -n "${JAVA_HOME:-}" ] || {
  echo "reasonlake needs a Java 17 runtime for Spark: install openjdk-17-jre (or set JAVA_HOME)" >&2
  exit 1
}
stamp=".venv/.installed-$(sha256sum pyproject.toml | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  [ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e ".[local,test,connect]"
  rm -f .venv/.installed-*
  touch "$stamp"
fi
