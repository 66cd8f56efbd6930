#!/usr/bin/env bash
# Prepares the Python venv of the console's browser tests: Playwright (its
# Python package; it drives Debian's Chromium, never a downloaded browser),
# pytest and axe-core's Playwright binding. The venv lives outside the clone,
# in ${XDG_CACHE_HOME:-$HOME/.cache}/equip/console-venv, and is created once
# (concurrent callers wait on a lock). Prints the venv's python on stdout.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=lib/venv.sh
. "$here/lib/venv.sh"
prepare_venv console-venv "playwright==1.65.2 pytest==9.2.0 axe-playwright-python==0.1.8" \
  'import playwright.sync_api, pytest, axe_playwright_python' python pytest
