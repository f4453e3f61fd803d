#!/usr/bin/env bash
# Creates .venv with Python 3.11 and installs reasonlake with its test and Spark Connect extras, once per
# change of pyproject.toml. Sourced by example.sh and test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null || PYTHON=python3
"$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else 1)' || {
  echo "reasonlake needs Python 3.11 (found $("$PYTHON" --version 2>&1)); set PYTHON=/path/to/python3.11" >&2
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
  .venv/bin/python -m pip install --quiet -e ".[test,connect]"
  rm -f .venv/.installed-*
  touch "$stamp"
fi
