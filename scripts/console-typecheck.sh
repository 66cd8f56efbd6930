#!/usr/bin/env bash
# Type-checks the console's JavaScript modules: TypeScript's `tsc --noEmit`
# over crates/console/assets/js/*.js with checkJs (the modules carry
# `// @ts-check` and JSDoc types; nothing is compiled, bundled or served
# differently). TypeScript comes from the npm registry at the version
# crates/console/typecheck/package-lock.json pins (`npm ci --ignore-scripts`,
# into that directory's node_modules, which git ignores).
#
#   bash scripts/console-typecheck.sh             # skipped with a message without node/npm
#   bash scripts/console-typecheck.sh --required  # fails without node/npm (.ci/run)
#
# Without node and npm it is skipped with a message, except when it is
# required: given `--required` (as .ci/run runs it), or in CI (CI=true), or
# with EQUIP_REQUIRE_NODE=1; then it fails, saying what to install.
set -euo pipefail
required=0
for a in "$@"; do
  case "$a" in
    --required) required=1 ;;
    *) echo "console-typecheck: unknown argument $a (only --required)" >&2; exit 2 ;;
  esac
done
if [ "${CI:-}" = "true" ] || [ "${EQUIP_REQUIRE_NODE:-}" = "1" ]; then required=1; fi
cd "$(dirname "$0")/../crates/console/typecheck"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  if [ "$required" = 1 ]; then
    echo "console-typecheck: FAILED: node and npm are needed to type-check the console's modules (apt-get install nodejs npm), and this run requires them" >&2
    exit 1
  fi
  echo "console-typecheck: skipped (no node/npm; apt-get install nodejs npm to run it)" >&2
  exit 0
fi
want="Version $(node -p "require('./package.json').devDependencies.typescript")"
if [ "$(node_modules/.bin/tsc -v 2>/dev/null || true)" != "$want" ]; then
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2
fi
node_modules/.bin/tsc -p tsconfig.json
echo "console-typecheck: ok ($(ls ../assets/js/*.js | wc -l) modules)"
