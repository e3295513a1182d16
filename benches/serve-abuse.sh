#!/usr/bin/env bash
# `ssdlab bench serve` under abuse: a Bench of three simulated drives' quick suites, served
# while 10 hostile clients (4 pipelining without reading, 3 sending endless headers, 3
# slowloris) stay connected and well-behaved clients ask for the drive list and the
# comparison page. Prints the requests/s answered and the server's peak and final RSS.
# The goal: >= 100 requests/s and RSS < 300 MB.
#
#   benches/serve-abuse.sh [SECS=20] [CLIENTS=4]
set -euo pipefail
secs=${1:-20}
clients=${2:-4}
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
cargo build --release --quiet -p ssdlab
cargo build --release --quiet -p bench --example serve_abuse
out=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$out"' EXIT

export SSDLAB_DB="$out/bench.db"
for target in sim:default sim:default,capacity=4GiB sim:default,channels=2; do
  target/release/ssdlab suite --target "$target" --quick -q --only consistency \
    --only transfer-sweep --only seq-incompressible --out "$out/$(echo "$target" | tr ':,=' '___')"
done

target/release/ssdlab bench serve --listen 127.0.0.1:0 > "$out/serve.out" 2> "$out/serve.err" &
server=$!
for _ in $(seq 100); do grep -q '^Bench: http://' "$out/serve.out" 2>/dev/null && break; sleep 0.1; done
addr=$(sed -n 's|^Bench: http://\(.*\)/$|\1|p' "$out/serve.out")
[ -n "$addr" ] || { echo "bench serve did not start:"; cat "$out/serve.err"; exit 1; }

echo "== bench serve at $addr, $clients clients for ${secs}s beside 10 hostile ones"
target/release/examples/serve_abuse "$addr" "$secs" "$clients" "/,/compare"
awk '/^VmHWM|^VmRSS/ {printf "server %s %.1f MB\n", $1, $2 / 1024}' "/proc/$server/status"
