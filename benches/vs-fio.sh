#!/usr/bin/env bash
# ssdlab's IO engine against fio on the same RAM-backed loop device, measured the way a skeptic
# would: 4 KiB random reads, io_uring, O_DIRECT, in three cases:
#   t1   QD32, one submitting thread (fio numjobs 1)
#   t2   QD32, two submitting threads (fio numjobs 2)
#   qd1  QD1, one thread: latency, total (fio's slat + clat, `lat_percentiles`)
# A case's rounds run together, each round both engines with the order swapped every round
# (fio first, then ssdlab first) so drift on the machine hits both alike; QD1 comes first,
# because on this machine a QD1 run straight after a two-thread run measured p50 ~60 us
# instead of ~5 us for either engine (the kernel's and the hypervisor's wake-up state, not
# the engine's). Every run records the load average before it and how busy the machine's
# CPUs were during it (/proc/stat: the engine, the loop device's worker and anything else),
# so a loaded round can be told apart. BASELINE=path/to/an/older/ssdlab adds that build to
# every round, for a before-and-after in the same runs.
#
# Prints each run, then per case the median of each engine and the median of the per-round
# ratios to fio with their range and interquartile range: quote those, never one run.
#
#   sudo [BASELINE=old-ssdlab] benches/vs-fio.sh [ROUNDS=12] [SECONDS=5] [CASES="qd1 t1 t2"]
#
# Needs root (losetup), fio (apt-get install fio) and python3.
set -euo pipefail
rounds=${1:-12}
secs=${2:-5}
cases=${3:-qd1 t1 t2}
engines="ssdlab${BASELINE:+ baseline}"
. "$(dirname "$0")/ram-loop.sh" vs-fio
# Write the device once so reads hit real pages of the backing file.
dd if=/dev/urandom of="$dev" bs=1M count=1024 oflag=direct status=none

# The CPU jiffies the machine has spent busy and in all, from /proc/stat's first line.
cpu_jiffies() { awk '/^cpu /{b=$2+$3+$4+$7+$8+$9; print b, b+$5+$6}' /proc/stat; }

# run ENGINE CASE ROUND: one run, its JSON in $work/ENGINE-CASE-ROUND.json and the machine's
# load beside it in .load (load average before, busy fraction during).
run() {
  local engine=$1 case=$2 r=$3 qd=32 t=1 out="$work/$1-$2-$3"
  case $case in t2) t=2 ;; qd1) qd=1 ;; esac
  local load before after
  load=$(cut -d' ' -f1 /proc/loadavg)
  before=$(cpu_jiffies)
  local ssdlab=$bin
  [ "$engine" = baseline ] && ssdlab=$BASELINE
  if [ "$engine" = fio ]; then
    fio --name=bench --filename="$dev" --rw=randread --bs=4k --iodepth="$qd" \
        --ioengine=io_uring --direct=1 --numjobs="$t" --time_based --runtime="$secs" \
        --lat_percentiles=1 --percentile_list=50:99 --output-format=json \
        --output="$out.json" >/dev/null
  else
    "$ssdlab" run custom --target "$dev" --access random --bs 4K --qd "$qd" --threads "$t" \
        --read-pct 100 --no-prefill --duration "$secs" --backend io_uring --quiet \
        --json "$out.json" --out "$out.d" >/dev/null
  fi
  after=$(cpu_jiffies)
  echo "$load $before $after" >"$out.load"
}

echo "device $dev (1 GiB on /dev/shm, loop direct-io), $(fio --version), $(nproc) CPUs," \
     "$rounds rounds of ${secs}s, cases: $cases, engines: fio $engines"
for c in $cases; do
  for r in $(seq 1 "$rounds"); do
    if ((r % 2)); then order="fio $engines"; else order="$engines fio"; fi
    for e in $order; do run "$e" "$c" "$r"; done
  done
done

python3 "$(dirname "$0")/vs-fio-report.py" "$work" "$rounds" "$engines" $cases
