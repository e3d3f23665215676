# Sourced by test.sh: start_postgres starts a throwaway PostgreSQL server for the tests in a
# temporary folder (unix socket only, stopped at exit by a trap) and exports TEST_DATABASE_URL.
# initdb refuses to run as root: as root the server runs as the postgres user (created if
# missing); otherwise as the current user. The fresh cluster initdb makes is kept in
# .venv/postgres-cluster-<uid> and copied on later runs (start-up well under a second). The binaries are installed with apt-get when missing
# and we are root; without them (and not root) the PostgreSQL tests are skipped.

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
  local base=/tmp
  [ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm  # in memory when there is a tmpfs: no disk waits
  PG_DIR=$(mktemp -d "$base/speakeasy-pg.XXXXXX")
  trap stop_postgres EXIT
  if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
    chown postgres "$PG_DIR"
  fi
  # initdb takes a second or more: its result is kept in .venv (per server version) and copied
  local cache=".venv/postgres-cluster-$(id -u)" want
  want="$("$PG_BIN/initdb" --version)"
  if [ -d "$cache" ] && [ "$(cat "$cache.version" 2>/dev/null)" = "$want" ]; then
    cp -a "$cache" "$PG_DIR/data"
  else
    as_pg "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres --auth=trust -N -E UTF8 --locale=C >"$PG_DIR/initdb.log" 2>&1 \
      || { cat "$PG_DIR/initdb.log" >&2; echo "initdb failed (see above)." >&2; return 1; }
    if [ -w .venv ]; then
      { rm -rf "$cache" "$cache.version" && cp -a "$PG_DIR/data" "$cache" && echo "$want" >"$cache.version"; } 2>/dev/null || true
    fi
  fi
  # A throwaway server: unix socket only, no durability (a killed client loses nothing; the
  # server itself is never killed by the tests).
  as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -s \
    -o "-k $PG_DIR -c listen_addresses='' -F -c full_page_writes=off -c synchronous_commit=off -c max_connections=200" \
    start || { cat "$PG_DIR/server.log" >&2; echo "Starting PostgreSQL failed (see above)." >&2; return 1; }
  export TEST_DATABASE_URL="postgresql://postgres@/postgres?host=$PG_DIR"
}
