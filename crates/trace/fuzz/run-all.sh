#!/usr/bin/env bash
# Fuzz every trace reader for SECONDS each (default 70), seeding each corpus with the
# in-repo fixtures. Needs a nightly toolchain and cargo-fuzz (cargo install cargo-fuzz).
#   crates/trace/fuzz/run-all.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-70}
fixtures=../tests/fixtures
seed() { mkdir -p "corpus/$1"; shift; for f in "$@"; do [ -f "$fixtures/$f" ] && cp "$fixtures/$f" "corpus/${name}/" || true; done; }
targets=${TARGETS:-blkparse blktrace fio_iolog msr umass disksim alibaba tencent native detect}
for name in $targets; do
  case $name in
    blkparse) seed $name blkparse.txt ;;
    fio_iolog) seed $name fio_v2.log fio_v3.log ;;
    msr) seed $name msr.csv ;;
    umass) seed $name umass.spc ;;
    disksim) seed $name disksim.trace ;;
    alibaba) seed $name alibaba.csv ;;
    tencent) seed $name tencent.csv ;;
    detect) seed $name blkparse.txt msr.csv umass.spc disksim.trace alibaba.csv tencent.csv fio_v3.log ;;
    native)
      mkdir -p "corpus/native"
      cargo run --quiet --release --manifest-path ../../../Cargo.toml -- trace gen light-2011 \
        --scale 0.0002 -o corpus/native/seed.ssdt 2>/dev/null || true ;;
    blktrace)
      # A real capture, when the shared samples are beside the repo: one CPU file per seed,
      # prefixed with the split byte.
      mkdir -p "corpus/blktrace"
      for f in ../../../../shared/traces/blktrace-percpu/*.blktrace.*; do
        [ -f "$f" ] && { printf '\xff'; cat "$f"; } > "corpus/blktrace/$(basename "$f")"
      done ;;
    *) mkdir -p "corpus/$name" ;;
  esac
  echo "== $name (${secs}s)"
  cargo +nightly fuzz run "$name" "corpus/$name" -- -max_total_time="$secs" -rss_limit_mb=2048 2>&1 \
    | grep -E "^(#[0-9]+\s+DONE|==[0-9]+==ERROR|SUMMARY|Done [0-9]+ runs)|panicked|artifact" || true
done
