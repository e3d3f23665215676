# Shared by start.sh and test.sh: find Python >= 3.11, make .venv, install the project into it.
find_python() {
  for py in "${PYTHON:-}" python3.13 python3.12 python3.11 python3; do
    [ -n "$py" ] || continue
    if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      echo "$py"; return 0
    fi
  done
  echo "Speakeasy needs Python 3.11 or newer (set PYTHON=/path/to/python3.11)." >&2
  return 1
}

install_project() {
  if [ ! -x .venv/bin/python ]; then
    echo "Creating .venv and installing Speakeasy (first time only, about a minute)..." >&2
    "$(find_python)" -m venv .venv
  fi
  # Reinstall only when pyproject.toml (or the extras asked for) changed since the last install.
  local stamp=".venv/.installed-$(echo "$1" | tr -c 'a-z' '_')"
  local want
  want="$(cat pyproject.toml | sha256sum | cut -d' ' -f1)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    return 0
  fi
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -e "$1" >.venv/install.log 2>&1 || {
    cat .venv/install.log >&2
    echo "Installing the dependencies failed (see above)." >&2
    return 1
  }
  echo "$want" >"$stamp"
}
