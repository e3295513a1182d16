#!/usr/bin/env bash
# `--fio-job` against fio: ssdlab runs a test of the review on a RAM-backed loop device and
# writes the fio job file of its measured phases; fio runs that file on the same device. Then
# rounds alternate (ssdlab's test, fio's job file, order swapped every round) and print each
# measured phase's IOPS, ssdlab over fio: medians of the rounds with their range.
#
#   sudo benches/fio-job-out.sh [ROUNDS=3] [TESTS="random-read random-write ..."]
#
# Each test runs as `ssdlab run TEST --span 512M --duration 3` (quick-nvme as it is: 5 s a
# cell on the first 1 GiB). Needs root (losetup), fio (apt-get install fio) and python3.
set -euo pipefail
rounds=${1:-3}
tests=${2:-random-read random-write random-write-qd32 seq-read seq-write quick-nvme}
. "$(dirname "$0")/ram-loop.sh" fio-job-out
dd if=/dev/urandom of="$dev" bs=1M count=1024 oflag=direct status=none

flags() { case $1 in quick*) ;; *) echo --span 512M --duration 3 ;; esac; }
ours() { # TEST OUT [--fio-job FILE]
  local t=$1 out=$2; shift 2
  # shellcheck disable=SC2046
  "$bin" run "$t" --target "$dev" --destroy-data="$dev" $(flags "$t") --no-store --quiet \
    --json "$out" --out "$out.d" "$@" >/dev/null
}

echo "device $dev (1 GiB on /dev/shm, loop direct-io), $(fio --version), $(nproc) CPUs, $rounds rounds"
for t in $tests; do
  ours "$t" "$work/$t-0.json" --fio-job "$work/$t.fio"
  for r in $(seq 1 "$rounds"); do
    order="ssdlab fio"; [ $((r % 2)) = 0 ] && order="fio ssdlab"
    for engine in $order; do
      if [ "$engine" = fio ]; then
        fio --output-format=json --filename="$dev" --output="$work/fio-$t-$r.json" "$work/$t.fio" >/dev/null
      else
        ours "$t" "$work/ssdlab-$t-$r.json"
      fi
    done
  done
done
python3 "$here/benches/fio-job-report.py" "$work" "$rounds" $tests
