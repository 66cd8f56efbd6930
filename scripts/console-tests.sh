#!/usr/bin/env bash
# The web console's browser tests (docs/console.md): Playwright (Python)
# driving Debian's Chromium against a real `equip serve` with demo data, on
# SQLite and on PostgreSQL (crates/console/browser_tests).
#
#   bash scripts/console-tests.sh            # both backends
#   EQUIP_CONSOLE_BACKENDS=sqlite bash scripts/console-tests.sh -k upload
#   bash scripts/console-tests.sh test_items.py -k assign   # one file of tests
#   EQUIP_CONSOLE_SCREENSHOTS=docs/console bash scripts/console-tests.sh   # refresh the screenshots
#
# Chromium comes from Debian's `chromium` package: installed here when
# missing and this runs as root (CI), never downloaded by a test tool. Without
# it (and outside CI) the tests are skipped with a message; in CI
# (CI=true) a missing browser or database fails the run.
#
# The single sign-on tests (test_sso.py) start the test OpenID provider with
# scripts/oidc-provider.sh (node; npm installs its pinned dependencies on
# the first run). Without node and npm they are skipped with a message, except
# in CI (or with EQUIP_REQUIRE_NODE=1), where that fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
in_ci() { [ "${CI:-}" = "true" ] || [ "${EQUIP_REQUIRE_POSTGRES:-}" = "1" ]; }

chromium=${CHROMIUM:-$(command -v chromium || true)}
if [ -z "$chromium" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "console-tests: installing Debian's chromium" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null \
    || { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null; }
  chromium=$(command -v chromium || true)
fi
if [ -z "$chromium" ]; then
  if in_ci; then echo "console-tests: no chromium and it could not be installed" >&2; exit 1; fi
  echo "console-tests: skipped (no chromium: apt-get install chromium)" >&2
  exit 0
fi

backends=${EQUIP_CONSOLE_BACKENDS:-sqlite,postgres}
if [[ ",$backends," == *",postgres,"* ]]; then
  if ! bash scripts/ensure-postgres.sh >&2; then
    if in_ci; then exit 1; fi
    echo "console-tests: PostgreSQL is not reachable; running on SQLite only" >&2
    backends=sqlite
  fi
fi

python=$(bash scripts/console-venv.sh)
cargo build -q --locked --bin equip
target=${CARGO_TARGET_DIR:-target}
case "$target" in /*) ;; *) target="$PWD/$target" ;; esac
export EQUIP_BIN="$target/debug/equip"
export CHROMIUM="$chromium" EQUIP_CONSOLE_BACKENDS="$backends"
export PYTHONDONTWRITEBYTECODE=1
# A screenshot directory is given from the repository's root.
if [ -n "${EQUIP_CONSOLE_SCREENSHOTS:-}" ]; then
  EQUIP_CONSOLE_SCREENSHOTS=$(realpath -m "$EQUIP_CONSOLE_SCREENSHOTS")
  export EQUIP_CONSOLE_SCREENSHOTS
fi
cd crates/console/browser_tests
# Test files given as arguments (test_x.py) run alone; else every test_*.py.
files=()
args=()
for a in "$@"; do
  case "$a" in test_*.py) files+=("$a") ;; *) args+=("$a") ;; esac
done
[ ${#files[@]} -gt 0 ] || files=(test_*.py)
if [[ " ${files[*]} " == *" test_sso.py "* ]] && { ! command -v node >/dev/null || ! command -v npm >/dev/null; }; then
  if in_ci || [ "${EQUIP_REQUIRE_NODE:-}" = "1" ]; then
    echo "console-tests: FAILED: the single sign-on tests need node and npm for the test OpenID provider (apt-get install nodejs npm)" >&2
    exit 1
  fi
  echo "console-tests: no node/npm: test_sso.py will be skipped (apt-get install nodejs npm to run it)" >&2
fi
# -rs: every skipped test is listed with its reason, never skipped silently.
exec "$python" -m pytest -q -rs -p no:cacheprovider "${args[@]}" "${files[@]}"
