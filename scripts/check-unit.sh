#!/usr/bin/env bash
# The systemd unit as shipped (deploy/equip.service, shown in
# docs/operations.md): the docs show the file as it is, `systemd-analyze
# verify` finds nothing wrong with it, and `systemd-analyze security
# --offline=true` scores its exposure at most 3.0 ("OK"). systemd-analyze
# comes with Debian's `systemd` package, installed when missing (as root);
# where it cannot be, the script says so and exits 0 (CI=true: exits 1).
set -euo pipefail
. "$(dirname "$0")/lib/apt.sh"
cd "$(dirname "$0")/.."

fail() { echo "check-unit: FAILED: $*" >&2; exit 1; }
skip() {
  case "${CI:-}" in true|1) fail "$*" ;; esac
  echo "check-unit: SKIPPED: $*" >&2; exit 0
}
limit=3.0
unit=deploy/equip.service

# The docs show the unit as it is: the block after the marker.
shown=$(awk '/<!-- unit:deploy\/equip.service -->/ { on = 1; next }
             on && /^```/ { if (block) exit; block = 1; next }
             on && block' docs/operations.md)
[ -n "$shown" ] || fail "docs/operations.md has no <!-- unit:deploy/equip.service --> block"
diff <(printf '%s\n' "$shown") "$unit" >/dev/null \
  || { diff <(printf '%s\n' "$shown") "$unit" >&2 || true; fail "docs/operations.md shows another unit than $unit"; }

if ! command -v systemd-analyze >/dev/null; then
  if can_install; then
    echo "check-unit: installing systemd (for systemd-analyze) from Debian's packages" >&2
    apt_install systemd || skip "apt-get could not install systemd"
  else
    skip "systemd-analyze is not installed and cannot be (not root, or no apt-get)"
  fi
fi
version=$(systemd-analyze --version | head -n 1)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# verify: the binary the unit starts must exist; point it at a stand-in.
printf '#!/bin/sh\n' >"$work/equip" && chmod +x "$work/equip"
sed "s#/usr/local/bin/equip#$work/equip#" "$unit" >"$work/equip.service"
systemd-analyze verify --man=no "$work/equip.service" 2>"$work/verify.log" || true
# Only lines about this unit count (a container has no dbus, no default target…).
if grep -q "equip.service" "$work/verify.log"; then
  cat "$work/verify.log" >&2
  fail "systemd-analyze verify: $unit"
fi

systemd-analyze security --offline=true --no-pager "$unit" >"$work/security.log" 2>&1 \
  || { cat "$work/security.log" >&2; fail "systemd-analyze security could not read $unit"; }
score=$(sed -n 's/.*Overall exposure level for equip.service: \([0-9.]*\).*/\1/p' "$work/security.log")
[ -n "$score" ] || { cat "$work/security.log" >&2; fail "no exposure level in systemd-analyze's output"; }
awk -v s="$score" -v l="$limit" 'BEGIN { exit !(s <= l) }' \
  || { grep '✗' "$work/security.log" >&2; fail "exposure $score, above $limit"; }
echo "check-unit: ok ($unit: exposure $score (at most $limit), verify clean; $version)"
