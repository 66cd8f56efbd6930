#!/usr/bin/env bash
# Starts the local test OpenID provider (scripts/oidc-provider/provider.mjs) on 127.0.0.1.
# Its first stdout line is the issuer URL http://127.0.0.1:PORT, printed once it listens;
# logs go to stderr. SIGTERM stops it (this script execs node, so the signal reaches it).
#
#   scripts/oidc-provider.sh           install the npm dependencies when missing, then run
#   scripts/oidc-provider.sh --check   only install them and check they load (for CI)
#
# Environment: OIDC_PORT (default 0: a free port), OIDC_ACCOUNTS (JSON file, default
# scripts/oidc-provider/accounts.json), and an optional fixed client: OIDC_CLIENT_ID,
# OIDC_CLIENT_SECRET, OIDC_REDIRECT_URIS (space separated). See provider.mjs.
set -euo pipefail

dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/oidc-provider" && pwd)"
node="${NODE:-node}"

# npm ci writes node_modules/.package-lock.json; reinstall when it is missing or older than
# the committed lock file. npm's output goes to stderr: stdout carries only the issuer.
if [ ! -f "$dir/node_modules/.package-lock.json" ] \
  || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
  echo "oidc-provider.sh: installing npm dependencies in $dir" >&2
  (cd "$dir" && npm ci --no-audit --no-fund >&2)
fi

if [ "${1:-}" = "--check" ]; then
  exec "$node" "$dir/provider.mjs" --check
fi
exec "$node" "$dir/provider.mjs" "$@"
