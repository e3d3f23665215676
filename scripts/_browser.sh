# Sourced by test.sh: find_browser exports SPEAKEASY_CHROMIUM, the path of a Chromium the
# browser tests (tests/test_web_browser.py) drive through Playwright (pip package; Playwright's
# own browser download is never used: the tests launch this executable). Idempotent: a browser
# already on the machine is used as is; when none is and we are root, Debian's chromium package
# is installed with apt-get (waiting for another apt-get to finish). Without one (not root, or
# the install failed) SPEAKEASY_CHROMIUM stays unset and the browser tests are skipped with one
# line saying why (they fail instead when CI is set). Self-contained: it needs only bash and,
# for the install, apt-get.

chromium_path() {  # the first Chromium executable found, or nothing
  local c
  for c in "${SPEAKEASY_CHROMIUM:-}" /usr/bin/chromium /usr/bin/chromium-browser /usr/lib/chromium/chromium; do
    [ -n "$c" ] && [ -x "$c" ] && { echo "$c"; return 0; }
  done
  for c in chromium chromium-browser; do
    command -v "$c" >/dev/null 2>&1 && { command -v "$c"; return 0; }
  done
  return 1
}

find_browser() {
  local path
  if path=$(chromium_path); then
    export SPEAKEASY_CHROMIUM="$path"
    return 0
  fi
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing Chromium for the browser tests (apt-get install chromium, first time only)..." >&2
    { apt-get -o DPkg::Lock::Timeout=600 update -q \
        && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends \
             chromium fonts-dejavu-core; } >/tmp/speakeasy-apt-browser.log 2>&1 \
      || { tail -5 /tmp/speakeasy-apt-browser.log >&2; echo "Installing Chromium failed: the browser tests will be skipped." >&2; return 0; }
    if path=$(chromium_path); then
      export SPEAKEASY_CHROMIUM="$path"
      return 0
    fi
  fi
  echo "No Chromium (Debian: apt-get install chromium): the browser tests will be skipped." >&2
  return 0
}
