#!/usr/bin/env bash
# Fuzz the command line's parsers for SECONDS each (default 70), seeding the corpus with
# typical arguments. Needs a nightly toolchain and cargo-fuzz (cargo install cargo-fuzz).
#   crates/engine/fuzz/run-all.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-70}
targets=${TARGETS:-cli_args}
for name in $targets; do
  case $name in
    cli_args)
      mkdir -p "corpus/$name"
      i=0
      for s in 4K 128KiB 8G 512 0.5K 1.5M 75% 100% 60 90s 2m 1.5h 500ms 2e3 18446744073709551615 \
               16777215T 9007199254740993 1e400 nan; do
        printf '%s' "$s" > "corpus/$name/seed-$i"; i=$((i + 1))
      done ;;
    *) mkdir -p "corpus/$name" ;;
  esac
  echo "== $name (${secs}s)"
  cargo +nightly fuzz run "$name" "corpus/$name" -- -max_total_time="$secs" -rss_limit_mb=2048 2>&1 \
    | grep -E "^(#[0-9]+\s+DONE|==[0-9]+==ERROR|SUMMARY|Done [0-9]+ runs)|panicked|artifact" || true
done
