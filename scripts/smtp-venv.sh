#!/usr/bin/env bash
# Prepares the Python venv with aiosmtpd that the SMTP tests run as a real SMTP
# server (scripts/smtp_sink.py). The venv lives outside the clone, in
# ${XDG_CACHE_HOME:-$HOME/.cache}/equip/smtp-venv (override: EQUIP_SMTP_VENV),
# and is created only once (concurrent callers wait on a lock). Prints the
# venv's python on standard output.
set -euo pipefail
venv="${EQUIP_SMTP_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/equip/smtp-venv}"
python="$venv/bin/python"
ready() { [ -x "$python" ] && "$python" -c 'import aiosmtpd' 2>/dev/null; }
if ready; then echo "$python"; exit 0; fi
command -v python3 >/dev/null || { echo "smtp-venv: python3 not found" >&2; exit 1; }
mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9
if ! ready; then
  echo "smtp-venv: creating $venv (aiosmtpd from PyPI)" >&2
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check 'aiosmtpd>=1.4,<2' >&2
fi
ready || { echo "smtp-venv: aiosmtpd is not importable in $venv" >&2; exit 1; }
echo "$python"
