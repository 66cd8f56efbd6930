#!/usr/bin/env bash
# Builds the container image from `Containerfile` without any registry, as
# docs/operations.md ("A container") shows: a Debian 12 base made by
# mmdebstrap from Debian's package archive (cached in
# ${XDG_CACHE_HOME:-$HOME/.cache}/equip/), both base images given as build
# arguments, the equip binary built outside (EQUIP_PREBUILT), with buildah
# (--isolation chroot). Then runs the image as it says (entrypoint, command,
# user, environment) and checks: not root (uid 10001), `equip healthcheck`
# 0 once `serve` is ready, the database in /data, `equip --version` naming
# the commit, and the health check kept in the image's configuration.
#
# buildah and mmdebstrap are installed from Debian's packages when missing
# (as root). Where they cannot be, or buildah cannot run a build here, the
# script says so and exits 0, in CI too; a build or check that fails once
# buildah runs fails the script.
#
# The binary: $EQUIP_BIN, by default the one the smoke step builds.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "container: FAILED: $*" >&2; exit 1; }
# A machine that cannot build images (no buildah from its packages, or
# buildah cannot run a step) is skipped, in CI too: the build itself, once
# it can run, must pass.
skip() { echo "container: SKIPPED: $*" >&2; exit 0; }

missing=()
command -v buildah >/dev/null || missing+=(buildah)
command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "container: installing ${missing[*]} from Debian's packages" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null \
      || { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null; } \
      || skip "apt-get could not install ${missing[*]}"
  else
    skip "${missing[*]} not installed and cannot be (not root, or no apt-get)"
  fi
fi
[ "$(id -u)" = 0 ] || skip "buildah builds here as root only (mmdebstrap's base and --isolation chroot)"

bin="${EQUIP_BIN:-${CARGO_TARGET_DIR:-target}/debug/equip}"
[ -x "$bin" ] || fail "no equip binary at $bin (scripts/smoke.sh builds it; or set EQUIP_BIN)"
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
version_line=$("$bin" --version)

work=$(mktemp -d)
ctrs=()
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill -- "-$server_pid" 2>/dev/null || true
  for c in "${ctrs[@]}"; do buildah rm "$c" >/dev/null 2>&1 || true; done
  buildah rmi localhost/equip-ci:test >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# Can buildah run a step here at all?
probe=$(buildah from scratch 2>"$work/probe.log") || { cat "$work/probe.log" >&2; skip "buildah cannot create a container here"; }
ctrs+=("$probe")

# The Debian base, from the package archive (made once, then cached).
cache="${XDG_CACHE_HOME:-$HOME/.cache}/equip"
mkdir -p "$cache"
base=localhost/equip-ci-debian:bookworm
if ! buildah inspect --type image "$base" >/dev/null 2>&1; then
  tarball="$cache/debian-bookworm-minbase.tar"
  if [ ! -s "$tarball" ]; then
    echo "container: making a Debian 12 base with mmdebstrap (about a minute)" >&2
    mmdebstrap --quiet --variant=minbase bookworm "$tarball.part" http://deb.debian.org/debian \
      || { rm -f "$tarball.part"; skip "mmdebstrap could not make a Debian base (no access to deb.debian.org?)"; }
    mv "$tarball.part" "$tarball"
  fi
  buildah add "$probe" "$tarball" / >/dev/null
  buildah commit --quiet "$probe" "$base" >/dev/null
fi
runner=$(buildah from "$base")
ctrs+=("$runner")
buildah run --isolation chroot "$runner" -- true 2>"$work/run.log" \
  || { cat "$work/run.log" >&2; skip "buildah cannot run a build step here, even with --isolation chroot"; }

# The build context: the Containerfile and the binary, without its debug info.
mkdir -p "$work/ctx/dist"
objcopy --strip-debug "$bin" "$work/ctx/dist/equip"
echo "container: buildah bud (runtime and build images: $base)" >&2
buildah bud --quiet --isolation chroot --format docker --layers=false \
  --build-arg BUILD_IMAGE="$base" --build-arg RUNTIME_IMAGE="$base" \
  --build-arg EQUIP_PREBUILT=dist/equip --build-arg EQUIP_COMMIT="$commit" \
  -t localhost/equip-ci:test -f Containerfile "$work/ctx" >"$work/bud.log" 2>&1 \
  || { cat "$work/bud.log" >&2; fail "buildah bud"; }

# The image's configuration (Docker format: it keeps the health check).
config() {
  buildah inspect --type image localhost/equip-ci:test \
    | python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["Docker"]["config"].get(sys.argv[1])))' "$1"
}
[ "$(config User)" = '"10001:10001"' ] || fail "the image's user is $(config User)"
config Healthcheck | grep -q '"/usr/local/bin/equip", "healthcheck"' \
  || fail "no health check in the image: $(config Healthcheck)"
[ "$(config Entrypoint) $(config Cmd)" = '["/usr/local/bin/equip"] ["serve"]' ] \
  || fail "entrypoint $(config Entrypoint), command $(config Cmd)"
[ "$(config WorkingDir)" = '"/data"' ] || fail "working directory $(config WorkingDir)"

ctr=$(buildah from localhost/equip-ci:test)
ctrs+=("$ctr")
run() { buildah run --isolation chroot "$ctr" -- "$@"; }
[ "$(run id -u):$(run id -g) $(run id -un)" = "10001:10001 equip" ] || fail "the container runs as $(run id)"
[ "$(run /usr/local/bin/equip --version)" = "$version_line" ] || fail "equip --version: $(run /usr/local/bin/equip --version)"
[[ "$version_line" == *"(commit $commit)"* ]] || fail "$version_line (expected commit $commit)"

# Serve as the image says (entrypoint + command, its environment), on a free
# port of this host (chroot isolation shares the host's network).
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# (In a session of its own: its process group is stopped at the end.)
setsid buildah run --isolation chroot --env EQUIP_BIND="127.0.0.1:$port" "$ctr" -- /usr/local/bin/equip serve \
  >"$work/serve.log" 2>&1 &
server_pid=$!
healthy=""
for _ in $(seq 1 150); do
  if buildah run --isolation chroot --env EQUIP_BIND="127.0.0.1:$port" "$ctr" -- /usr/local/bin/equip healthcheck \
      >/dev/null 2>&1; then healthy=1; break; fi
  sleep 0.2
done
[ -n "$healthy" ] || { cat "$work/serve.log" >&2; fail "equip healthcheck never answered 0"; }
grep -q '"level":"INFO"' "$work/serve.log" || fail "serve does not log JSON lines: $(head -3 "$work/serve.log")"
owner=$(run stat -c '%u:%g %n' /data/equip.db) || fail "no database in /data"
[ "$owner" = "10001:10001 /data/equip.db" ] || fail "/data/equip.db: $owner"
kill -- "-$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
for _ in $(seq 1 50); do curl -s "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 || break; sleep 0.1; done
if buildah run --isolation chroot --env EQUIP_BIND="127.0.0.1:$port" "$ctr" -- /usr/local/bin/equip healthcheck >/dev/null 2>&1; then
  fail "equip healthcheck answered 0 with nothing serving"
fi
size=$(buildah images --format '{{.Size}}' localhost/equip-ci:test)
echo "container: ok (buildah $(buildah --version | cut -d' ' -f3), Debian base from the archive, image $size, uid 10001, healthcheck, $version_line)"
