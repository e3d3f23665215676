# Sourced by test.sh: ensure_browser makes the system Chromium available to the tests that take
# screenshots through Playwright (which is given its path, executable_path, and never downloads a
# browser of its own). Idempotent: does nothing when Chromium is already there. When it is
# missing and we are root, it is installed with apt-get (Debian's chromium package); otherwise the
# screenshot tests are skipped with one line saying why (they fail instead when CI is set).
# Exports CHROMIUM (the browser's path) when one is found.

find_chromium() {
  local c
  for c in "${CHROMIUM:-}" chromium chromium-browser; do
    [ -n "$c" ] || continue
    command -v "$c" >/dev/null 2>&1 && { command -v "$c"; return 0; }
  done
  return 1
}

ensure_browser() {
  local path
  if path=$(find_chromium); then export CHROMIUM="$path"; return 0; fi
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing Chromium for the screenshot tests (apt-get install chromium, first time only)..." >&2
    if { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; } >/tmp/speakeasy-apt-chromium.log 2>&1 \
      && path=$(find_chromium); then
      export CHROMIUM="$path"; return 0
    fi
    echo "Installing Chromium failed (see /tmp/speakeasy-apt-chromium.log): the screenshot tests will be skipped." >&2
    return 0
  fi
  echo "No Chromium (apt-get install chromium, or set CHROMIUM): the screenshot tests will be skipped." >&2
}
