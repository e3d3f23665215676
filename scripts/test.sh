#!/usr/bin/env bash
# Install Speakeasy with its test dependencies into .venv, then run the whole test suite.
# Extra arguments go to pytest (e.g. scripts/test.sh -k gang).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_venv.sh
install_project '.[test]'
exec .venv/bin/python -m pytest "$@"
