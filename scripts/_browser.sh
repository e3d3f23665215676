# Sourced by test.sh: ensure_browser makes the system Chromium available to the tests that drive
# it through Playwright (the screenshot tests and the web pages' browser tests,
# tests/test_web_browser.py), which are given its path (executable_path) and never download a
# browser of their own. Idempotent: does nothing but export its path when Chromium is already
# there. When it is missing and we are root, Debian's chromium package is installed with apt-get
# (waiting for another apt-get to finish); otherwise those tests are skipped with one line saying
# why (they fail instead when CI is set). Exports the browser's path as CHROMIUM and
# SPEAKEASY_CHROMIUM (the same path: both names are read) when one is found. find_browser is
# the same function under its older name.

find_chromium() {  # the first Chromium executable found, or nothing
  local c
  for c in "${CHROMIUM:-}" "${SPEAKEASY_CHROMIUM:-}" /usr/bin/chromium /usr/bin/chromium-browser \
           /usr/lib/chromium/chromium chromium chromium-browser; do
    [ -n "$c" ] || continue
    if [ -x "$c" ] && [ "${c#/}" != "$c" ]; then echo "$c"; return 0; fi
    command -v "$c" >/dev/null 2>&1 && { command -v "$c"; return 0; }
  done
  return 1
}

_export_browser() {
  export CHROMIUM="$1" SPEAKEASY_CHROMIUM="$1"
}

ensure_browser() {
  local path
  if path=$(find_chromium); then _export_browser "$path"; return 0; fi
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing Chromium for the browser tests (apt-get install chromium, first time only)..." >&2
    if { apt-get -o DPkg::Lock::Timeout=600 update -q \
         && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends \
              chromium fonts-dejavu-core; } >/tmp/speakeasy-apt-chromium.log 2>&1 \
       && path=$(find_chromium); then
      _export_browser "$path"; return 0
    fi
    tail -5 /tmp/speakeasy-apt-chromium.log >&2
    echo "Installing Chromium failed (see /tmp/speakeasy-apt-chromium.log): the browser tests will be skipped." >&2
    return 0
  fi
  echo "No Chromium (apt-get install chromium, or set CHROMIUM): the browser tests will be skipped." >&2
  return 0
}

find_browser() { ensure_browser; }
