#!/usr/bin/env bash
# Supply-chain checks with cargo-deny (config: deny.toml): licences, banned and
# duplicate crates, and sources fail CI. RustSec advisories are checked when the
# advisory database can be fetched (or a copy is already in
# ~/.cargo/advisory-dbs); when it cannot be, this says so loudly and, unless
# EQUIP_REQUIRE_ADVISORIES=1, goes on: this project's machines cannot reach
# GitHub, where the database lives (docs/reliability.md, "Supply chain").
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo-deny >/dev/null; then
  echo "== installing cargo-deny (once per machine)"
  cargo install cargo-deny --locked --version "${CARGO_DENY_VERSION:-0.20.2}"
fi
cargo deny --version

echo "== cargo deny: licenses, bans (duplicates, wildcards), sources"
cargo deny --locked check licenses bans sources

echo "== cargo deny: advisories"
if out=$(timeout 120 cargo deny --locked check advisories 2>&1); then
  echo "$out" | tail -n 3
else
  if echo "$out" | grep -qiE "failed to (fetch|open|clone)|advisory database|could not resolve|network|unable to"; then
    echo "!! ADVISORIES NOT CHECKED: the RustSec advisory database could not be fetched from this machine." >&2
    echo "$out" | grep -iE "error|failed" | head -n 5 >&2
    if [ "${EQUIP_REQUIRE_ADVISORIES:-0}" = 1 ]; then
      exit 1
    fi
  else
    echo "$out" >&2
    exit 1
  fi
fi
