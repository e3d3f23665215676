#!/usr/bin/env bash
# Install Speakeasy with its test dependencies into .venv, check the layers, the style and the
# types, then run the whole test suite. Extra arguments go to pytest (e.g. scripts/test.sh -k gang);
# with arguments the checks still run first (they take a few seconds once cached).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_venv.sh
install_project '.[test]'

check() {  # check NAME COMMAND...: run a static check, show its output only when it fails
  local out
  if ! out=$("${@:2}" 2>&1); then
    printf '%s\n' "$out" >&2
    echo "$1 failed (see above)." >&2
    exit 1
  fi
}
check "lint-imports (layer contracts in pyproject.toml)" .venv/bin/lint-imports
check "ruff" .venv/bin/ruff check .
check "mypy" .venv/bin/mypy
echo "Checks passed: lint-imports, ruff, mypy." >&2

exec .venv/bin/python -m pytest "$@"
