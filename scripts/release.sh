#!/usr/bin/env bash
# Builds the release binary to ship: dist/equip, stripped of its debug info
# (at most 30 MiB; this script fails above), and dist/equip.debug, the debug
# info (line tables) kept apart for symbolised crash reports. The binary
# names its debug file (a GNU debug link), so gdb, addr2line and perf find
# it when it lies next to the binary or under /usr/lib/debug
# (docs/operations.md, "The release binary").
#
#   scripts/release.sh            # → dist/equip, dist/equip.debug, dist/SHA256SUMS
#   DIST=/tmp/out scripts/release.sh
#
# Needs binutils' objcopy (Debian: binutils). CARGO_TARGET_DIR is honoured.
set -euo pipefail
cd "$(dirname "$0")/.."

dist="${DIST:-dist}"
max_mib=30
command -v objcopy >/dev/null || { echo "release: objcopy is needed (apt-get install binutils)" >&2; exit 1; }

cargo build --release --locked -p equip-server --bin equip
built="$(realpath "${CARGO_TARGET_DIR:-target}")/release/equip"

mkdir -p "$dist"
objcopy --only-keep-debug "$built" "$dist/equip.debug"
objcopy --strip-debug --add-gnu-debuglink="$dist/equip.debug" "$built" "$dist/equip"
chmod 0644 "$dist/equip.debug"
(cd "$dist" && sha256sum equip equip.debug > SHA256SUMS)

size=$(stat -c %s "$dist/equip")
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
echo "release: $dist/equip  $(mib "$size") MiB (stripped; at most $max_mib MiB)"
echo "release: $dist/equip.debug  $(mib "$(stat -c %s "$dist/equip.debug")") MiB (debug info)"
if [ "$size" -gt $((max_mib * 1024 * 1024)) ]; then
  echo "release: the stripped binary is over $max_mib MiB" >&2
  exit 1
fi
"$dist/equip" --version
