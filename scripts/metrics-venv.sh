#!/usr/bin/env bash
# Prepares the Python venv with the Prometheus client library whose parsers
# the metrics tests read `GET /metrics` with (scripts/parse_metrics.py). The
# venv lives outside the clone, in ${XDG_CACHE_HOME:-$HOME/.cache}/equip/
# metrics-venv, and is created once (concurrent callers wait on a lock).
# Prints the venv's python on standard output.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=lib/venv.sh
. "$here/lib/venv.sh"
command -v python3 >/dev/null || { echo "metrics-venv: python3 not found" >&2; exit 1; }
cache="${XDG_CACHE_HOME:-$HOME/.cache}/equip"
mkdir -p "$cache"
exec 9>"$cache/metrics-venv.lock"
flock 9
ensure_venv metrics-venv "prometheus_client==0.21.1" python >&2
"$VENV/bin/python" -c 'import prometheus_client.openmetrics.parser' >&2 \
  || { echo "metrics-venv: prometheus_client is not importable in $VENV" >&2; exit 1; }
echo "$VENV/bin/python"
