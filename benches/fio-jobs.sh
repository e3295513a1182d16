#!/usr/bin/env bash
# `ssdlab run custom --fio FILE` against fio running the same job file, on the same RAM-backed
# loop device: fio's own examples (crates/cli/tests/fixtures/fio-examples, the ones within the
# subset), each job's IOPS, ssdlab over fio. Every example is shortened alike for both: size
# 256m, time based for SECONDS a job (runtime), no ramp_time, the target from the command
# line, no io_submit_mode (fio 3.33 with offload and a rate never ends its job; ssdlab ignores
# the option), and direct=1 and norandommap=1 for both: ssdlab runs every job so (a deviation
# its results carry), and fio's page cache (its default direct=0) or its random map would
# compare another workload, not the translation. Rounds alternate which engine goes first. Prints every run, then per job the median of
# each engine and of the per-round ratios with their range: quote those, never one run.
#
#   sudo benches/fio-jobs.sh [ROUNDS=3] [SECONDS=3] [EXAMPLES="fio-rand-read ..."]
#
# Needs root (losetup), fio (apt-get install fio) and python3.
set -euo pipefail
rounds=${1:-3}
secs=${2:-3}
examples=${3:-fio-rand-read fio-rand-write fio-rand-RW fio-seq-read fio-seq-write fio-seq-RW ssd-test iometer-file-access-server rand-zones tiobench-example poisson-rate-submission fixed-rate-submission}
. "$(dirname "$0")/ram-loop.sh" fio-jobs
fixtures="$here/crates/cli/tests/fixtures/fio-examples"
dd if=/dev/urandom of="$dev" bs=1M count=1024 oflag=direct status=none

shorten() {
  awk -v secs="$secs" '
    { key = $0; sub(/[=;#].*/, "", key); gsub(/[ \t]/, "", key) }
    key == "time_based" || key == "ramp_time" || key == "filename" || key == "directory" || key == "runtime" || key == "timeout" || key == "io_submit_mode" || key == "direct" || key == "buffered" || key == "norandommap" { next }
    key == "size" { print "size=256m"; next }
    /^\[/ { print; print "time_based"; print "runtime=" secs; print "direct=1"; print "norandommap=1"; next }
    { print }' "$1"
}

echo "device $dev (1 GiB on /dev/shm, loop direct-io), $(fio --version), $(nproc) CPUs," \
     "$rounds rounds, ${secs}s a job"
for ex in $examples; do
  shorten "$fixtures/$ex.fio" >"$work/$ex.fio"
  for r in $(seq 1 "$rounds"); do
    order="fio ssdlab"; [ $((r % 2)) = 0 ] && order="ssdlab fio"
    for engine in $order; do
      out="$work/$engine-$ex-$r.json"
      if [ "$engine" = fio ]; then
        fio --output-format=json --filename="$dev" --output="$out" "$work/$ex.fio" >/dev/null
      else
        "$bin" run custom --fio "$work/$ex.fio" --target "$dev" --destroy-data="$dev" \
          --no-store --quiet --json "$out" --out "$work/$engine-$ex-$r.d" >/dev/null
      fi
    done
  done
done
python3 "$here/benches/fio-job-report.py" "$work" "$rounds" $examples
