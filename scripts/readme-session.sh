#!/usr/bin/env bash
# Runs the README's shell session ("A shell session as a new user would try
# it") exactly as the README prints it: the fenced block between the markers
# <!-- readme-session:start --> and <!-- readme-session:end --> is extracted
# and run by `bash -e` (any failing command fails the run) in a fresh
# directory that holds what the session uses from a clone (docs/) and the
# equip binary where step 1 of the README leaves it: twice, once with
# CARGO_TARGET_DIR unset (the binary at target/release/equip in the clone)
# and once with it set to a directory outside the clone (the binary at
# $CARGO_TARGET_DIR/release/equip), as a user who set it for the build runs
# the session.
#
# That binary is $EQUIP_BIN, by default the one the smoke step builds
# (target/debug/equip under $CARGO_TARGET_DIR): CI builds no other profile
# for this; the code is the same.
#
# The session listens on a fixed port (the README's). It runs in a network
# namespace of its own when `unshare` allows it, so that nothing else on this
# host can answer it (a server left running from step 1 once answered the
# session's curl with 401); otherwise the port must be free.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "readme-session: FAILED: $*" >&2; exit 1; }

bin="${EQUIP_BIN:-${CARGO_TARGET_DIR:-target}/debug/equip}"
[ -x "$bin" ] || fail "no equip binary at $bin (scripts/smoke.sh builds it; or set EQUIP_BIN)"
bin=$(realpath "$bin")

work=$(mktemp -d)
pgid_file="$work/pgid"
cleanup() {
  # The session's process group (its `equip serve &` if it failed before
  # stopping it).
  if [ -s "$pgid_file" ]; then kill -- "-$(cat "$pgid_file")" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

session="$work/session.sh"
awk '/<!-- readme-session:start -->/ { on = 1; next }
     /<!-- readme-session:end -->/   { on = 0 }
     on && /^```/                    { block = !block; next }
     on && block' README.md >"$session"
[ -s "$session" ] || fail "no fenced block between the readme-session markers in README.md"

clone="$work/clone"
mkdir -p "$clone/target/release" "$work/elsewhere/release"
cp -r docs "$clone/docs"
ln -s "$bin" "$clone/target/release/equip"
ln -s "$bin" "$work/elsewhere/release/equip"

port=$(grep -o '127\.0\.0\.1:[0-9]\+' "$session" | head -n1 | cut -d: -f2)
isolate=()
if unshare -rn true 2>/dev/null && command -v ip >/dev/null; then
  isolate=(unshare -rn sh -c 'ip link set lo up && exec "$@"' sh)
  where="in a network namespace of its own"
elif [ -n "$port" ] && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
  fail "port $port, which the session uses, is in use (and unshare is not available to isolate it)"
else
  where="on this host's port ${port:-?}"
fi

echo "== readme-session: the README's session, $where:"
sed 's/^/   | /' "$session"
# run LABEL [VAR=VALUE]: the session with CARGO_TARGET_DIR unset, or set as given.
run() {
  local label="$1"; shift
  local status=0
  echo "== readme-session: $label"
  (
    cd "$clone"
    exec setsid "${isolate[@]}" env -u DATABASE_URL -u EQUIP_BIND -u CARGO_TARGET_DIR "$@" \
      bash -c 'echo $$ >"$1"; exec bash -e "$2"' bash "$pgid_file" "$session"
  ) >"$work/out" 2>&1 </dev/null || status=$?
  sed 's/^/   > /' "$work/out"
  [ "$status" = 0 ] || fail "the session ($label) exited with $status"
  grep -q '"id":"' "$work/out" || fail "the session's curl ($label) printed no warehouse"
  rm -f "$pgid_file"
}
run "CARGO_TARGET_DIR unset (target/release/equip)"
# A target directory outside the clone: nothing under the clone's target/.
rm "$clone/target/release/equip"
run "CARGO_TARGET_DIR=$work/elsewhere" CARGO_TARGET_DIR="$work/elsewhere"
echo "readme-session: ok (every command of the README's session ran as printed, with CARGO_TARGET_DIR unset and set)"
