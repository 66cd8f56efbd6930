#!/usr/bin/env bash
# Type-checks the console's JavaScript modules: TypeScript's `tsc --noEmit`
# over crates/console/assets/js/*.js with checkJs (the modules carry
# `// @ts-check` and JSDoc types; nothing is compiled, bundled or served
# differently). TypeScript comes from the npm registry at the version
# crates/console/typecheck/package-lock.json pins (`npm ci --ignore-scripts`,
# into that directory's node_modules, which git ignores).
#
#   bash scripts/console-typecheck.sh
#
# Without node and npm it is skipped with a message, except in CI (CI=true),
# where it fails.
set -euo pipefail
cd "$(dirname "$0")/../crates/console/typecheck"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  if [ "${CI:-}" = "true" ]; then echo "console-typecheck: node and npm are needed" >&2; exit 1; fi
  echo "console-typecheck: skipped (no node/npm)" >&2
  exit 0
fi
want="Version $(node -p "require('./package.json').devDependencies.typescript")"
if [ "$(node_modules/.bin/tsc -v 2>/dev/null || true)" != "$want" ]; then
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2
fi
node_modules/.bin/tsc -p tsconfig.json
echo "console-typecheck: ok ($(ls ../assets/js/*.js | wc -l) modules)"
