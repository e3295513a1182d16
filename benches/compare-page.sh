#!/usr/bin/env bash
# The Bench's compare page with twenty drives in headless Chromium: its size and how soon it
# paints (first contentful paint and the load event, median of ROUNDS loads).
#
#   benches/compare-page.sh [ROUNDS=5]
#
# Needs chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_ROUNDS=${1:-5} cargo test --release -p ssdlab --test bench_browser \
  -- --ignored --nocapture bench_compare_page_paint 2>&1 | grep -v '^test \|^running\|^$'
