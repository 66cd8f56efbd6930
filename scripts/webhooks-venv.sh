#!/usr/bin/env bash
# Prepares the Python venv with the webhook verifier libraries the webhook
# tests check equip's deliveries with (scripts/verify_webhook.py): Stripe's
# (`stripe`, whose Webhook.construct_event reads Equip-Signature) and
# Standard Webhooks' (`standardwebhooks`, which reads webhook-id,
# webhook-timestamp and webhook-signature). The venv lives outside the
# clone, in ${XDG_CACHE_HOME:-$HOME/.cache}/equip/webhooks-venv, and is
# created once (concurrent callers wait on a lock). Prints the venv's python
# on standard output.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=lib/venv.sh
. "$here/lib/venv.sh"
prepare_venv webhooks-venv "standardwebhooks==1.1.0 stripe==16.1.0" \
  'import stripe, standardwebhooks.webhooks' python
