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
