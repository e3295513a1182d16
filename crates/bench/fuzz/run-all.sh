#!/usr/bin/env bash
# Fuzz the results import for SECONDS (default 70), seeding the corpus with a real result.
# Needs a nightly toolchain and cargo-fuzz (cargo install cargo-fuzz).
#   crates/bench/fuzz/run-all.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-70}
targets=${TARGETS:-results_import}
for name in $targets; do
  mkdir -p "corpus/$name"
  case $name in
    results_import)
      seed=$(mktemp -d)
      cargo run --quiet --release --manifest-path ../../../Cargo.toml -- run seq-write \
        --target sim:default --duration 2 -q --no-store --out "$seed/r" 2>/dev/null \
        && cp "$seed/r/seq-write.json" "corpus/$name/seq-write.json" || true
      rm -rf "$seed" ;;
  esac
  echo "== $name (${secs}s)"
  cargo +nightly fuzz run "$name" "corpus/$name" -- -max_total_time="$secs" -rss_limit_mb=2048 2>&1 \
    | grep -E "^(#[0-9]+\s+DONE|==[0-9]+==ERROR|SUMMARY|Done [0-9]+ runs)|panicked|artifact" || true
done
