#!/usr/bin/env bash
# Fuzzes equip's parsers with cargo-fuzz (libFuzzer) for a bounded time per
# target and fails when one finds a crash (a panic, a failed property, an
# overflow, a stack overflow, an input slower than 10 s). The targets and what
# each checks besides "no panic": fuzz/fuzz_targets/*.rs; docs/reliability.md,
# "Fuzzing and property tests".
#
#   FUZZ_SECONDS   seconds per target (default 30)
#   FUZZ_TARGETS   space-separated targets (default: all four)
#   FUZZ_TARGET_DIR  build directory (default: $CARGO_TARGET_DIR/fuzz, else fuzz/target)
#
# Each target starts from its committed seeds (fuzz/corpus/<target>/, left
# unchanged) and writes what it discovers to a scratch corpus. A crash leaves
# its input in fuzz/artifacts/<target>/; reproduce it with
#   RUSTC_BOOTSTRAP=1 cargo fuzz run <target> fuzz/artifacts/<target>/<file>
# (from fuzz/), fix it, and add a regression unit test to the owning crate.
#
# cargo-fuzz passes nightly-only flags (-Zsanitizer=address, …) to rustc;
# RUSTC_BOOTSTRAP=1 lets the stable toolchain accept them.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${FUZZ_SECONDS:-30}"
targets="${FUZZ_TARGETS:-scim_filter patch_path csv_bulk inventory_query}"
if [ -n "${FUZZ_TARGET_DIR:-}" ]; then
  target_dir="$FUZZ_TARGET_DIR"
elif [ -n "${CARGO_TARGET_DIR:-}" ]; then
  target_dir="$CARGO_TARGET_DIR/fuzz"
else
  target_dir="$PWD/fuzz/target"
fi

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "== installing cargo-fuzz"
  cargo install cargo-fuzz --locked
fi
export RUSTC_BOOTSTRAP=1

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cd fuzz
started=$(date +%s)
echo "== fuzz: building the targets (release, debug assertions, AddressSanitizer)"
cargo fuzz build --target-dir "$target_dir" >"$work/build.log" 2>&1 || {
  cat "$work/build.log"
  exit 1
}
echo "== fuzz: built in $(( $(date +%s) - started ))s"

failed=""
for target in $targets; do
  mkdir -p "$work/corpus/$target"
  log="$work/$target.log"
  status=0
  cargo fuzz run --target-dir "$target_dir" "$target" \
    "$work/corpus/$target" "corpus/$target" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    >"$log" 2>&1 || status=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
  found=$(ls "$work/corpus/$target" | wc -l)
  if [ "$status" -ne 0 ]; then
    echo "== fuzz $target: FAILED after ${runs:-?} inputs"
    grep -v '^#[0-9]' "$log" | tail -n 60
    ls -1 "artifacts/$target" 2>/dev/null | sed "s|^|   input: fuzz/artifacts/$target/|" || true
    failed="$failed $target"
  else
    echo "== fuzz $target: ${runs:-?} inputs in ${seconds}s, no crash ($found new corpus entries)"
  fi
done

if [ -n "$failed" ]; then
  echo "== fuzz: crashes in:$failed"
  exit 1
fi
echo "== fuzz: all targets clean in $(( $(date +%s) - started ))s"
