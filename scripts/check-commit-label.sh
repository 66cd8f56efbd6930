#!/usr/bin/env bash
# The commit label of a build (`equip --version`, crates/server/build.rs) is
# the commit of the checkout being built, also when two worktrees share one
# CARGO_TARGET_DIR: a throwaway repository in a temporary directory holds a
# tiny crate with equip's own build script and .cargo/config.toml, and two
# worktrees of it are built in turn on one target directory (each after the
# other, again after a commit in one of them); each build must print its own
# worktree's HEAD. Seconds: it compiles only the tiny crate.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
fail() { echo "check-commit-label: FAILED: $*" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo="$work/a"
mkdir -p "$repo/crates/server/src" "$repo/.cargo"
cp "$src/.cargo/config.toml" "$repo/.cargo/config.toml"
cp "$src/crates/server/build.rs" "$repo/crates/server/build.rs"
cat >"$repo/Cargo.toml" <<'TOML'
[workspace]
members = ["crates/server"]
resolver = "2"
TOML
cat >"$repo/crates/server/Cargo.toml" <<'TOML'
[package]
name = "label"
version = "0.1.0"
edition = "2021"
build = "build.rs"
TOML
echo 'fn main() { println!("{}", env!("EQUIP_COMMIT")); }' >"$repo/crates/server/src/main.rs"
git() { command git -c user.name=check -c user.email=check@example.invalid "$@"; }
git -C "$repo" init -q
git -C "$repo" add -A
git -C "$repo" commit -qm first
# As in a clone: a packed-refs file, and loose refs for the branches moved
# since (a path the build script watches that does not exist would make it
# run every time, and hide the fault).
git -C "$repo" pack-refs --all
git -C "$repo" commit -q --allow-empty -m second
git -C "$repo" worktree add -q "$work/b" -b other
git -C "$work/b" commit -q --allow-empty -m third

export CARGO_TARGET_DIR="$work/target"
unset EQUIP_COMMIT
check() {
  local tree="$1" want got
  want=$(git -C "$tree" rev-parse --short=12 HEAD)
  got=$(cd "$tree" && cargo run -q --offline 2>/dev/null) || fail "cargo run in $tree"
  [ "$got" = "$want" ] || fail "built in $(basename "$tree"): labelled $got, its HEAD is $want"
  echo "check-commit-label: $(basename "$tree") labelled $got (its HEAD)"
}
check "$repo"
check "$work/b"
check "$repo"
git -C "$work/b" commit -q --allow-empty -m fourth
check "$work/b"
check "$repo"
check "$work/b"
echo "check-commit-label: ok (two worktrees on one target dir each labelled with their own commit)"
