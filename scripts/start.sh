#!/usr/bin/env bash
# Install Speakeasy into .venv, then start the Discord bot (reads DISCORD_TOKEN from .env).
# Without a token it explains what to set and how to play locally in the terminal.
# Extra arguments go to `python -m bot` (e.g. scripts/start.sh play gang-of-dice).
set -euo pipefail
# paths typed on the command line (--db, --deck, --images, --out, --from) are taken from here
export SPEAKEASY_CALLER_DIR="$PWD"
cd "$(dirname "$0")/.."
source scripts/_venv.sh
install_project '.'
SPEAKEASY_COMMAND="${SPEAKEASY_COMMAND:-./scripts/start.sh}" exec .venv/bin/python -m bot "$@"
