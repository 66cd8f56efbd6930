#!/usr/bin/env bash
# TLS in front of equip as docs/operations.md ("TLS") sets it up: Debian's
# nginx with deploy/nginx-equip.conf (as shipped, but for its ports, the
# certificate's paths and the upstream's port), a self-signed certificate,
# and `equip serve` on loopback with --trust-forwarded-headers. Checks, with
# curl: the API answers over HTTPS with the certificate (TLS 1.2 and 1.3;
# 1.1 is refused), plain HTTP only redirects to HTTPS, SCIM's Location names
# https://, a CSV upload past equip's 10 MiB limit gets equip's own 413, and
# a renewed certificate is served after `nginx -s reload` without restarting
# equip. nginx is installed from Debian's packages when missing (as root);
# where it cannot be, the script says so and exits 0 (CI=true: exits 1).
#
# The equip binary: $EQUIP_BIN, by default the one the smoke step builds.
set -euo pipefail
. "$(dirname "$0")/lib/apt.sh"
cd "$(dirname "$0")/.."

fail() { echo "tls-proxy: FAILED: $*" >&2; exit 1; }
skip() {
  case "${CI:-}" in true|1) fail "$*" ;; esac
  echo "tls-proxy: SKIPPED: $*" >&2; exit 0
}

if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
  if can_install; then
    echo "tls-proxy: installing nginx-light from Debian's packages" >&2
    apt_install nginx-light || skip "apt-get could not install nginx-light"
  else
    skip "nginx is not installed and cannot be (not root, or no apt-get)"
  fi
fi
nginx=$(command -v nginx || echo /usr/sbin/nginx)
command -v openssl >/dev/null || skip "openssl is not installed"

bin="${EQUIP_BIN:-${CARGO_TARGET_DIR:-target}/debug/equip}"
[ -x "$bin" ] || fail "no equip binary at $bin (scripts/smoke.sh builds it; or set EQUIP_BIN)"
bin=$(realpath "$bin")

work=$(mktemp -d)
equip_pid=""
cleanup() {
  [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  [ -n "$equip_pid" ] && kill "$equip_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# A self-signed certificate for localhost.
cert() {
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=localhost" \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
    -keyout "$work/privkey.pem" -out "$work/fullchain.pem" 2>/dev/null
}
cert
fingerprint() { openssl x509 -noout -fingerprint -sha256 -in "$1" | cut -d= -f2; }

# equip on loopback, behind the proxy.
export DATABASE_URL="$work/equip.db"
key=$("$bin" demo --items 20 2>"$work/demo.log" | tail -n 1) || { cat "$work/demo.log" >&2; fail "equip demo"; }
equip_port=$(free_port)
"$bin" serve --bind "127.0.0.1:$equip_port" --trust-forwarded-headers --no-dispatcher \
  2>"$work/serve.log" &
equip_pid=$!

# nginx: the shipped server blocks, with this run's ports and files.
https_port=$(free_port)
http_port=$(free_port)
sed -e "s#listen 443 ssl http2;#listen $https_port ssl http2;#" \
    -e "s#listen \[::\]:443 ssl http2;##" \
    -e "s#listen 80;#listen $http_port;#" \
    -e "s#listen \[::\]:80;##" \
    -e "s#/etc/ssl/equip/#$work/#" \
    -e "s#server 127.0.0.1:8080;#server 127.0.0.1:$equip_port;#" \
    deploy/nginx-equip.conf >"$work/equip.conf"
grep -q "listen $https_port ssl" "$work/equip.conf" || fail "deploy/nginx-equip.conf no longer has the lines this script adapts"
cat >"$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 64; }
http {
    access_log $work/nginx-access.log;
    client_body_temp_path $work/body;
    proxy_temp_path $work/proxy;
    fastcgi_temp_path $work/fastcgi;
    uwsgi_temp_path $work/uwsgi;
    scgi_temp_path $work/scgi;
    include $work/equip.conf;
}
CONF
"$nginx" -t -p "$work" -c "$work/nginx.conf" 2>"$work/nginx-t.log" || { cat "$work/nginx-t.log" >&2; fail "nginx -t"; }
"$nginx" -p "$work" -c "$work/nginx.conf" 2>>"$work/nginx-error.log" || { cat "$work/nginx-error.log" >&2; fail "nginx did not start"; }

base="https://localhost:$https_port"
tls=(--cacert "$work/fullchain.pem" --resolve "localhost:$https_port:127.0.0.1")
for _ in $(seq 1 100); do curl -fsS "${tls[@]}" "$base/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
curl -fsS "${tls[@]}" "$base/readyz" >/dev/null || { cat "$work/serve.log" "$work/nginx-error.log" >&2; fail "readyz over HTTPS"; }

# The API over TLS 1.3 and 1.2; 1.1 refused.
curl -fsS "${tls[@]}" --tlsv1.3 -H "Authorization: ApiKey $key" "$base/api/v1/api-key" >/dev/null || fail "TLS 1.3"
curl -fsS "${tls[@]}" --tlsv1.2 --tls-max 1.2 -H "Authorization: ApiKey $key" "$base/api/v1/api-key" >/dev/null || fail "TLS 1.2"
if curl -fsS "${tls[@]}" --tlsv1.1 --tls-max 1.1 "$base/healthz" >/dev/null 2>&1; then fail "TLS 1.1 was accepted"; fi
# Without the certificate's authority, curl refuses the self-signed one.
if curl -fsS --resolve "localhost:$https_port:127.0.0.1" "$base/healthz" >/dev/null 2>&1; then fail "an unknown certificate was accepted"; fi
hsts=$(curl -sS "${tls[@]}" -o /dev/null -D - "$base/healthz" | tr -d '\r' | grep -i '^strict-transport-security:' || true)
[ -n "$hsts" ] || fail "no Strict-Transport-Security"

# Plain HTTP: a redirect to HTTPS on its standard port (the file's 443),
# never the API.
redirect=$(curl -sS -o /dev/null -w '%{http_code} %{redirect_url}' -H "Host: localhost" \
  -H "Authorization: ApiKey $key" "http://127.0.0.1:$http_port/api/v1/api-key")
[ "$redirect" = "308 https://localhost/api/v1/api-key" ] || fail "plain HTTP answered '$redirect'"

# Links name https:// and the public host (X-Forwarded-* set by nginx; a
# client's own are replaced).
location=$(curl -sS "${tls[@]}" -o /dev/null -D - -X POST -H "Authorization: Bearer $key" \
  -H "Content-Type: application/scim+json" -H "X-Forwarded-Host: evil.example" -H "X-Forwarded-Proto: http" \
  --data '{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"tls.proxy@example.com","name":{"givenName":"Tls","familyName":"Proxy"},"emails":[{"value":"tls.proxy@example.com","primary":true}]}' \
  "$base/scim/v2/Users" | tr -d '\r' | sed -n 's/^[Ll]ocation: //p')
[[ "$location" == "https://localhost:$https_port/scim/v2/Users/"* ]] || fail "SCIM Location '$location'"

# A CSV upload past equip's limit: equip's own 413, through the proxy.
python3 -c 'import sys; sys.stdout.write("userName\n" + "x@example.com\n" * 900000)' >"$work/big.csv"
status=$(curl -sS "${tls[@]}" -o "$work/413.json" -w '%{http_code}' -X POST -H "Authorization: Bearer $key" \
  -F "file=@$work/big.csv;type=text/csv" "$base/scim/v2/Users/csv" || true)
[ "$status" = 413 ] || { cat "$work/413.json" >&2; fail "a 12 MB CSV upload answered $status"; }

# A renewed certificate: served after a reload, equip untouched.
old=$(fingerprint "$work/fullchain.pem")
cert
new=$(fingerprint "$work/fullchain.pem")
[ "$old" != "$new" ] || fail "the new certificate is the old one"
"$nginx" -p "$work" -c "$work/nginx.conf" -s reload 2>>"$work/nginx-error.log"
served=""
for _ in $(seq 1 50); do
  served=$(openssl s_client -connect "127.0.0.1:$https_port" -servername localhost </dev/null 2>/dev/null \
    | openssl x509 -noout -fingerprint -sha256 | cut -d= -f2)
  [ "$served" = "$new" ] && break
  sleep 0.1
done
[ "$served" = "$new" ] || fail "after the reload nginx serves $served, not the new certificate $new"
curl -fsS "${tls[@]}" -H "Authorization: ApiKey $key" "$base/api/v1/api-key" >/dev/null || fail "the API after the reload"
kill -0 "$equip_pid" || fail "equip stopped"
grep -q "$key" "$work/serve.log" "$work/nginx-access.log" "$work/nginx-error.log" && fail "the key appears in a log"
echo "tls-proxy: ok (nginx $("$nginx" -v 2>&1 | sed 's#.*/##'): HTTPS with TLS 1.2/1.3 only, HTTP redirected, https links, equip's 413, certificate reloaded)"
