#!/usr/bin/env bash
# Fuzz every drive-data parser for SECONDS each (default 70), seeding each corpus with a
# plausible reply of the right size. Needs a nightly toolchain and cargo-fuzz
# (cargo install cargo-fuzz).
#   crates/drive/fuzz/run-all.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-70}
targets=${TARGETS:-nvme_identify nvme_smart nvme_sanitize_log ata_identify ata_smart ata_sense}
# A zeroed reply of N bytes, and one of 0xFF bytes (every flag set, every counter at its top).
seed() {
  mkdir -p "corpus/$1"
  head -c "$2" /dev/zero > "corpus/$1/zeroes"
  head -c "$2" /dev/zero | tr '\0' '\377' > "corpus/$1/ones"
}
for name in $targets; do
  case $name in
    nvme_identify) seed $name 8192 ;;
    nvme_smart | nvme_sanitize_log | ata_identify) seed $name 512 ;;
    ata_smart)
      seed $name 512
      { head -c 512 /dev/zero; printf 'INTEL SSDSC2BB480G6'; } > "corpus/$name/intel" ;;
    ata_sense)
      mkdir -p "corpus/$name"
      # Descriptor format with an ATA Status Return descriptor; fixed format with 00h/1Dh.
      printf '\x72\x01\x00\x1d\x00\x00\x00\x0e\x09\x0c\x01\x00\x80\x00\x00\xff\x00\xff\x00\x00\x40\x50' \
        > "corpus/$name/descriptor"
      printf '\x70\x00\x01\x00\x50\x40\x34\x0a\x40\x12\x34\x56\x00\x1d\x00\x00\x00\x00' > "corpus/$name/fixed" ;;
    *) mkdir -p "corpus/$name" ;;
  esac
  echo "== $name (${secs}s)"
  cargo +nightly fuzz run "$name" "corpus/$name" -- -max_total_time="$secs" -rss_limit_mb=2048 2>&1 \
    | grep -E "^(#[0-9]+\s+DONE|==[0-9]+==ERROR|SUMMARY|Done [0-9]+ runs)|panicked|artifact" || true
done
