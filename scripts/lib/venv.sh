# Sourced by the scripts that run Python tools. ensure_venv NAME PINS EXE...
# makes (or reuses) the venv ~/.cache/equip/NAME with exactly PINS installed
# and every EXE in its bin/, and sets VENV to its path.
ensure_venv() {
  local name=$1 pins=$2 exe ready=1
  shift 2
  VENV="${XDG_CACHE_HOME:-$HOME/.cache}/equip/$name"
  for exe in "$@"; do [ -x "$VENV/bin/$exe" ] || ready=0; done
  if [ "$ready" = 0 ] || [ "$(cat "$VENV/.equip-pins" 2>/dev/null)" != "$pins" ]; then
    echo "preparing $VENV ($pins)" >&2
    python3 -m venv "$VENV"
    # shellcheck disable=SC2086
    "$VENV/bin/pip" install -q $pins
    echo "$pins" > "$VENV/.equip-pins"
  fi
}

# prepare_venv NAME PINS CHECK EXE...: the whole job of a scripts/*-venv.sh.
# Makes or reuses the venv NAME with PINS (once: concurrent callers wait on
# a lock), fails unless its python runs CHECK, and prints that python on
# standard output (everything else goes to standard error).
prepare_venv() {
  local name=$1 pins=$2 check=$3 cache
  shift 3
  command -v python3 >/dev/null || { echo "$name: python3 not found" >&2; exit 1; }
  cache="${XDG_CACHE_HOME:-$HOME/.cache}/equip"
  mkdir -p "$cache"
  exec 9>"$cache/$name.lock"
  flock 9
  ensure_venv "$name" "$pins" "$@" >&2
  "$VENV/bin/python" -c "$check" >&2 \
    || { echo "$name: '$check' fails in $VENV" >&2; exit 1; }
  echo "$VENV/bin/python"
}
