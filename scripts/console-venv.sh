#!/usr/bin/env bash
# Prepares the Python venv of the console's browser tests: Playwright (its
# Python package; it drives Debian's Chromium, never a downloaded browser) and
# pytest. The venv lives outside the clone, in
# ${XDG_CACHE_HOME:-$HOME/.cache}/equip/console-venv, and is created once
# (concurrent callers wait on a lock). Prints the venv's python on stdout.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=lib/venv.sh
. "$here/lib/venv.sh"
command -v python3 >/dev/null || { echo "console-venv: python3 not found" >&2; exit 1; }
cache="${XDG_CACHE_HOME:-$HOME/.cache}/equip"
mkdir -p "$cache"
exec 9>"$cache/console-venv.lock"
flock 9
ensure_venv console-venv "playwright==1.65.2 pytest==9.2.0 axe-playwright-python==0.1.8" python pytest >&2
"$VENV/bin/python" -c 'import playwright.sync_api, pytest, axe_playwright_python' >&2 \
  || { echo "console-venv: playwright is not importable in $VENV" >&2; exit 1; }
echo "$VENV/bin/python"
