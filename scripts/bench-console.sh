#!/usr/bin/env bash
# How soon the console's first screen is usable (docs/console.md, "Speed"):
# a release `equip serve` with the demo data, Debian's Chromium, a signed-in
# tab opening the overview (the first screen: counts by status and category)
# ten times cold (new browser context) and warm (reload), EQUIP_BENCH_ROUNDS
# rounds (default 3), on each backend, over EQUIP_BENCH_ITEMS demo items
# (default 200,000).
#
#   bash scripts/bench-console.sh
set -euo pipefail
cd "$(dirname "$0")/.."
chromium=${CHROMIUM:-$(command -v chromium || true)}
[ -n "$chromium" ] || { echo "bench-console: needs Debian's chromium (apt-get install chromium)" >&2; exit 1; }
bash scripts/ensure-postgres.sh >&2
python=$(bash scripts/console-venv.sh)
cargo build -q --release --locked --bin equip
target=${CARGO_TARGET_DIR:-target}
bin="$target/release/equip"
case "$bin" in /*) ;; *) bin="$PWD/$bin" ;; esac
out=$(mktemp)
cd crates/console/browser_tests
EQUIP_BIN="$bin" CHROMIUM="$chromium" EQUIP_BENCH_OUT="$out" EQUIP_DEMO_ITEMS=${EQUIP_BENCH_ITEMS:-200000} \
  EQUIP_CONSOLE_BACKENDS=${EQUIP_CONSOLE_BACKENDS:-sqlite,postgres} PYTHONDONTWRITEBYTECODE=1 \
  "$python" -m pytest -q -p no:cacheprovider -s bench_first_screen.py >&2
echo "machine: $(nproc) cores, $(uname -m); ${EQUIP_BENCH_ITEMS:-200000} items; first screen (the overview's counts) in ms from navigation start"
cat "$out"
rm -f "$out"
