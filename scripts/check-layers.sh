#!/usr/bin/env bash
# Fails when a crate depends on something its layer must not know:
#   equip-domain: no diesel, no actix, no SCIM, no persistence, no JSON
#                 shapes (equip-api-types, utoipa);
#   equip-api-types: the JSON shapes over the domain: no diesel, no actix,
#                 no SCIM, no persistence, no http;
#   equip-scim:   no diesel, no actix, no persistence;
#   equip-http:   no diesel, no persistence (it talks to the domain's traits);
#   equip-delivery: the webhook and mail dispatchers work over the domain's
#                 ports: no diesel, no persistence, no actix, no SCIM, no http;
#   equip-oidc:   the OpenID Connect relying party over the domain's types:
#                 no diesel, no persistence, no actix, no SCIM, no http;
#   equip-console: static files only: nothing of equip, no storage (the page
#                 reaches equip through its public API, like any client).
# Only normal (non-dev) dependency edges count.
set -euo pipefail
cd "$(dirname "$0")/.."

fail=0
check() {
  local crate=$1; shift
  local tree
  tree=$(cargo tree -p "$crate" -e normal --prefix none --format '{p}' 2>/dev/null | awk '{print $1}' | sort -u)
  for banned in "$@"; do
    if grep -qx -- "$banned" <<<"$tree"; then
      echo "layering violation: $crate depends on $banned" >&2
      fail=1
    fi
  done
}
check equip-domain diesel diesel_migrations actix-web actix-http equip-scim equip-persistence equip-http equip-api-types utoipa lettre
check equip-api-types diesel diesel_migrations actix-web actix-http equip-scim equip-persistence equip-http r2d2
check equip-scim diesel diesel_migrations actix-web actix-http equip-persistence equip-http
check equip-http diesel diesel_migrations equip-persistence r2d2 lettre
check equip-delivery diesel diesel_migrations r2d2 actix-web actix-http equip-persistence equip-scim equip-http
check equip-oidc diesel diesel_migrations r2d2 actix-web actix-http equip-persistence equip-scim equip-http equip-api-types
check equip-console diesel diesel_migrations r2d2 lettre equip-domain equip-persistence equip-scim equip-http
if [ "$fail" -ne 0 ]; then exit 1; fi
echo "layering: ok (domain, api-types, scim, http, delivery and oidc are free of the layers below them; the console of all of equip)"
