#!/usr/bin/env bash
# Two `waymark serve` replicas behind nginx on loopback (docs/nginx-replicas.conf), then 200
# requests through nginx; checks every answer is 200 and that both replicas answered some.
#   Tools/replicas.sh MAP.wmg [WAYMARK_BINARY]
# Needs nginx (apt-get install nginx). Stops everything it started on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
map=${1:?usage: Tools/replicas.sh MAP.wmg [WAYMARK_BINARY]}
waymark=${2:-.build/release/waymark}
command -v nginx >/dev/null || { echo "replicas.sh: nginx is not installed (apt-get install nginx)" >&2; exit 1; }
work=$(mktemp -d /tmp/waymark-replicas.XXXXXX)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
front=$(free_port) one=$(free_port) two=$(free_port)
pids=()
cleanup() {
    [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
"$waymark" serve "$map" --port "$one" --threads 1 2> "$work/one.log" & pids+=($!)
"$waymark" serve "$map" --port "$two" --threads 1 2> "$work/two.log" & pids+=($!)
sed -e "s|/tmp/waymark-nginx|$work|g" -e "s|127.0.0.1:5001|127.0.0.1:$one|" -e "s|127.0.0.1:5002|127.0.0.1:$two|" \
    -e "s|listen 127.0.0.1:5000|listen 127.0.0.1:$front|" docs/nginx-replicas.conf > "$work/nginx.conf"
for _ in $(seq 100); do
    grep -q listening "$work/one.log" 2>/dev/null && grep -q listening "$work/two.log" 2>/dev/null && break
    sleep 0.2
done
nginx -c "$work/nginx.conf" -e "$work/error.log"
sleep 0.5
health=$(curl -sf "http://127.0.0.1:$front/health")
echo "through nginx: $health"
failures=0
for i in $(seq 200); do
    status=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$front/health?n=$i" || echo 000)
    [ "$status" = 200 ] || failures=$((failures + 1))
done
a=$(grep -c '"GET /health' "$work/one.log" || true) b=$(grep -c '"GET /health' "$work/two.log" || true)
echo "replica 1 answered $a, replica 2 answered $b, failures $failures"
[ "$failures" -eq 0 ] && [ "$a" -gt 0 ] && [ "$b" -gt 0 ] || { echo "replicas.sh: FAILED"; exit 1; }
echo "replicas.sh: both replicas served through nginx"
