#!/usr/bin/env bash
# Install Speakeasy with its test dependencies into .venv, check the layers, the style and the
# types, start a throwaway PostgreSQL server, then run the whole test suite on both storage
# backends. Extra arguments go to pytest (e.g. scripts/test.sh -k gang); with arguments the checks
# still run first (they take a few seconds once cached).
#
# PostgreSQL: the server's binaries (initdb, pg_ctl) are looked for in /usr/lib/postgresql/*/bin
# and on PATH, and installed with apt-get (the Debian postgresql package) when missing and we are
# root. The server lives in a temporary folder, listens only on a unix socket there, and is
# stopped at exit; its URL goes to the tests in TEST_DATABASE_URL. Set TEST_DATABASE_URL yourself
# to use another server instead; SPEAKEASY_NO_POSTGRES=1 starts none (the PostgreSQL tests are
# then skipped, or fail when CI is set).
#
# Chromium (scripts/_browser.sh): the screenshot and browser tests drive Debian's chromium through
# Playwright; it is installed with apt-get when missing and we are root, and its path exported in
# CHROMIUM and SPEAKEASY_CHROMIUM; without it those tests are skipped (or fail when CI is set).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_venv.sh
source scripts/_postgres.sh
source scripts/_browser.sh
install_project '.[test]'
ensure_browser

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

if [ -z "${TEST_DATABASE_URL:-}" ] && [ -z "${SPEAKEASY_NO_POSTGRES:-}" ]; then
  start_postgres
fi

# not exec: the trap stops the server when pytest ends
# one pytest worker per core (pytest-xdist; PYTEST_WORKERS=0 runs in one process); with
# worksteal an idle worker takes tests still queued for a busy one
rc=0
.venv/bin/python -m pytest -n "${PYTEST_WORKERS:-auto}" --dist worksteal "$@" || rc=$?
exit "$rc"
