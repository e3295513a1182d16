#!/usr/bin/env bash
# `ssdlab bench serve` with many readers of a lab-sized Bench: 500 drives (each one run of a
# quick suite's consistency, sweep and sequential results) on SQLite and on PostgreSQL
# (a server of its own, as the tests start theirs), served on 127.0.0.1 only; 4000
# requests each for the drive list, a filtered page of it, a 5-drive compare page and an
# unticked Compare (the page asking for fewer drives) from 50 clients at once. Prints a
# table of requests/s, errors and p99 latency; exits 1 on any error. The goal: >= 200
# requests/s for each, zero errors.
#
#   benches/serve-load.sh [DRIVES=500] [REQUESTS=4000] [CONCURRENCY=50]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet -p bench --example serve_load
exec target/release/examples/serve_load "${1:-500}" "${2:-4000}" "${3:-50}"
