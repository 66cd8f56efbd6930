#!/usr/bin/env bash
# Cuts release VERSION of equip (docs/operations.md, "Releases"):
#
#   scripts/cut-release.sh 0.2.0            # today's date (UTC)
#   RELEASE_DATE=2026-12-02 scripts/cut-release.sh 0.2.0
#
# On a clean checkout (no change, staged or not, no untracked file) of the
# commit to release, it
#   1. sets the workspace's version (`[workspace.package] version` in
#      Cargo.toml, which every crate inherits and `equip --version` prints)
#      and the workspace's packages in Cargo.lock;
#   2. makes CHANGELOG.md's "## Unreleased" section the release's,
#      "## VERSION (DATE)", under a new, empty "## Unreleased";
#   3. commits both ("Release VERSION") and tags that commit vVERSION
#      (an annotated tag).
# It pushes nothing: push the commit and the tag yourself
# (`git push origin HEAD vVERSION`), then build the release binary from the
# tag (`git checkout vVERSION && scripts/release.sh`).
#
# Refused, changing nothing: a malformed VERSION (MAJOR.MINOR.PATCH), a
# version not above the current one, a tag vVERSION that exists, a dirty
# tree, a detached HEAD, an empty Unreleased section.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "cut-release: $*" >&2; exit 1; }

version="${1:-}"
[ $# = 1 ] || fail "usage: scripts/cut-release.sh VERSION (for example 0.2.0)"
[[ "$version" =~ ^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$ ]] \
  || fail "VERSION must be MAJOR.MINOR.PATCH (for example 0.2.0), not '$version'"
date="${RELEASE_DATE:-$(date -u +%F)}"
[[ "$date" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}$ ]] || fail "RELEASE_DATE must be YYYY-MM-DD, not '$date'"
tag="v$version"

[ -z "$(git status --porcelain --untracked-files=all)" ] \
  || fail "the working tree is not clean (git status): commit or stash first"
git symbolic-ref -q HEAD >/dev/null || fail "HEAD is detached: check out the branch to release"
git rev-parse -q --verify "refs/tags/$tag" >/dev/null && fail "tag $tag exists already"

current=$(awk '/^\[workspace\.package\]/ { on = 1; next }
               /^\[/ { on = 0 }
               on && /^version *=/ { gsub(/.*= *"|".*/, ""); print; exit }' Cargo.toml)
[ -n "$current" ] || fail "no version in Cargo.toml's [workspace.package]"
newer=$(printf '%s\n%s\n' "$current" "$version" | sort -V | tail -n1)
[ "$version" != "$current" ] && [ "$newer" = "$version" ] \
  || fail "VERSION $version is not above the current version $current"

grep -qx '## Unreleased' CHANGELOG.md || fail "CHANGELOG.md has no '## Unreleased' section"
# The Unreleased section must say something: a line that is neither blank
# nor a heading of another release before the next '## '.
awk '/^## Unreleased$/ { on = 1; next } /^## / { on = 0 } on && NF { found = 1 } END { exit !found }' \
  CHANGELOG.md || fail "CHANGELOG.md's Unreleased section is empty: nothing to release"

# 1. The version, in Cargo.toml's [workspace.package] and in Cargo.lock.
awk -v v="$version" '/^\[workspace\.package\]/ { on = 1; print; next }
                     /^\[/ { on = 0 }
                     on && /^version *=/ && !done { print "version = \"" v "\""; done = 1; next }
                     { print }' Cargo.toml >Cargo.toml.new
mv Cargo.toml.new Cargo.toml
cargo update --workspace --offline --quiet

# 2. CHANGELOG.md: Unreleased becomes the release; a new, empty one above it.
awk -v v="$version" -v d="$date" '
  /^## Unreleased$/ && !done { print; print ""; print "## " v " (" d ")"; done = 1; next }
  { print }' CHANGELOG.md >CHANGELOG.md.new
mv CHANGELOG.md.new CHANGELOG.md

# 3. Commit and tag.
git add Cargo.toml Cargo.lock CHANGELOG.md
git commit -q -m "Release $version" -m "equip $version ($date): Cargo.toml's workspace version, Cargo.lock, and CHANGELOG.md's Unreleased section as \"$version ($date)\" (scripts/cut-release.sh)."
git tag -a "$tag" -m "equip $version ($date)"
echo "cut-release: committed 'Release $version' ($(git rev-parse --short=12 HEAD)) and tagged it $tag"
echo "cut-release: next: git push origin HEAD $tag; then on the tag: scripts/release.sh"
