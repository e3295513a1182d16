#!/usr/bin/env bash
# One cell of the PTS IOPS table and one DIRTH point against fio running the same workload
# on the same RAM-backed loop device (#26). ssdlab's figures are the tests' own: the mean of
# the measurement window's rounds, taken from `pts-iops` and `pts-dirth` run whole (rounds
# of SECONDS per stimulus: --pts-scale 0.01 --duration SECONDS); fio runs each workload
# ROUNDS times for 5 x SECONDS and the median is taken.
#
#   IOPS cell:   RND 4KiB 65/35 at PTS-E's T4Q32  fio --rw=randrw --rwmixread=65 --bs=4k
#                                                     --numjobs=4 --iodepth=32
#   DIRTH point: RND 4KiB 0/100 at T2Q16          fio --rw=randwrite --bs=4k --numjobs=2
#                                                     --iodepth=16
#   both with --ioengine=io_uring --direct=1 --group_reporting --time_based.
#
#   sudo benches/pts-vs-fio.sh [ROUNDS=3] [SECONDS=1]
#
# TESTS="pts-dirth" runs one of the two (each takes about 20 minutes with 1 s rounds).
#
# Needs root (losetup), fio and python3.
set -euo pipefail
rounds=${1:-3}
secs=${2:-1}
. "$(dirname "$0")/ram-loop.sh" pts-vs-fio
echo "device $dev (1 GiB on /dev/shm, loop direct-io), $(fio --version), rounds of ${secs}s"

tests=${TESTS:-pts-iops pts-dirth}
for test in $tests; do
  start=$(date +%s)
  "$bin" run "$test" --target "$dev" --destroy-data="$dev" --pts-scale 0.01 --duration "$secs" \
      --quiet --no-store --json "$work/$test.json" --out "$work/out-$test" >/dev/null
  echo "$test: $(( $(date +%s) - start )) s wall"
done
fio_run() { # name args...
  local name=$1
  shift
  for r in $(seq 1 "$rounds"); do
    fio --output-format=json --ioengine=io_uring --direct=1 --group_reporting --time_based \
        --filename="$dev" --name="$name" --size=1024m --bs=4k --runtime=$((5 * secs)) "$@" \
        --output="$work/fio-$name-$r.json" >/dev/null
  done
}
case $tests in *pts-iops*) fio_run cell --rw=randrw --rwmixread=65 --numjobs=4 --iodepth=32;; esac
case $tests in *pts-dirth*) fio_run point --rw=randwrite --numjobs=2 --iodepth=16;; esac

python3 - "$work" "$rounds" $tests <<'PY'
import json, statistics, sys
work, rounds, tests = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def fio(name):
    iops = []
    for r in range(1, rounds + 1):
        j = json.load(open(f"{work}/fio-{name}-{r}.json"))["jobs"][0]
        iops.append(j["read"]["iops"] + j["write"]["iops"])
    return statistics.median(iops)
def cell(test, pick):
    r = json.load(open(f"{work}/{test}.json"))
    s = r["analysis"]["sequences"][0]
    c = next(c for c in s["cells"] if pick(c))
    w = c["rounds"][s["window"][0] - 1:s["window"][1]]
    print(f"{test}: the figure in the window's rounds {[round(x) for x in w]}, over all rounds {min(c['rounds']):.0f}-{max(c['rounds']):.0f}")
    return c["iops"], s["rounds"], s["reached"]
rows = []
if "pts-iops" in tests:
    rows.append(("pts-iops RND 4KiB 65/35 T4Q32", cell("pts-iops", lambda c: c["block_bytes"] == 4096 and c["read_pct"] == 65), fio("cell")))
if "pts-dirth" in tests:
    rows.append(("pts-dirth RND 4KiB 0/100 T2Q16", cell("pts-dirth", lambda c: (c["threads"], c["qd"]) == (2, 16)), fio("point")))
print("| figure | ssdlab IOPS (window mean) | rounds (steady) | fio IOPS (median) | ratio (goal within 3%) |")
print("|---|---|---|---|---|")
for name, (ours, n, reached), theirs in rows:
    print(f"| {name} | {ours:.0f} | {n} ({'yes' if reached else 'no'}) | {theirs:.0f} | {ours / theirs:.3f} |")
PY
