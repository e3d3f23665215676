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

find_pg_bin() {  # the folder holding initdb and pg_ctl, or nothing
  local d
  for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && { echo "$d"; return 0; }
  done
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(command -v initdb)"; return 0
  fi
  return 1
}

PG_DIR=""
stop_postgres() {
  if [ -n "$PG_DIR" ] && [ -d "$PG_DIR" ]; then
    as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -s stop >/dev/null 2>&1 || true
    rm -rf "$PG_DIR"
  fi
}

as_pg() {  # run a server command as the postgres user when we are root (initdb refuses root)
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start_postgres() {
  if ! PG_BIN=$(find_pg_bin); then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      echo "Installing PostgreSQL for the tests (apt-get install postgresql, first time only)..." >&2
      { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql; } >/tmp/speakeasy-apt.log 2>&1 \
        || { cat /tmp/speakeasy-apt.log >&2; echo "Installing PostgreSQL failed (see above)." >&2; return 1; }
      PG_BIN=$(find_pg_bin) || { echo "PostgreSQL installed but initdb/pg_ctl not found." >&2; return 1; }
    else
      echo "No PostgreSQL server binaries (initdb, pg_ctl): the PostgreSQL tests will be skipped." >&2
      echo "Install them (Debian: apt-get install postgresql) or set TEST_DATABASE_URL." >&2
      return 0
    fi
  fi
  PG_DIR=$(mktemp -d /tmp/speakeasy-pg.XXXXXX)
  trap stop_postgres EXIT
  if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
    chown postgres "$PG_DIR"
  fi
  as_pg "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres --auth=trust -N -E UTF8 --locale=C >"$PG_DIR/initdb.log" 2>&1 \
    || { cat "$PG_DIR/initdb.log" >&2; echo "initdb failed (see above)." >&2; return 1; }
  # A throwaway server: unix socket only, no durability (a killed client loses nothing; the
  # server itself is never killed by the tests).
  as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -s \
    -o "-k $PG_DIR -c listen_addresses='' -F -c full_page_writes=off -c synchronous_commit=off -c max_connections=200" \
    start || { cat "$PG_DIR/server.log" >&2; echo "Starting PostgreSQL failed (see above)." >&2; return 1; }
  export TEST_DATABASE_URL="postgresql://postgres@/postgres?host=$PG_DIR"
}

if [ -z "${TEST_DATABASE_URL:-}" ] && [ -z "${SPEAKEASY_NO_POSTGRES:-}" ]; then
  start_postgres
fi

# not exec: the trap stops the server when pytest ends
rc=0
.venv/bin/python -m pytest "$@" || rc=$?
exit "$rc"
