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
prepare_venv metrics-venv "prometheus_client==0.21.1" 'import prometheus_client.openmetrics.parser' python
