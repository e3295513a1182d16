#!/usr/bin/env bash
# `ssdlab quick` against fio running KDiskMark's own job parameters, cell by cell, on the same
# RAM-backed loop device: the NVMe profile (SEQ1M Q8T1, SEQ128K Q32T1, RND4K Q32T16,
# RND4K Q1T1), read and write. Rounds alternate (fio's profile, ssdlab's) so drift on the
# machine hits both; medians per cell, and their ratio.
#
# KDiskMark's fio arguments (src/benchmark.cpp): --ioengine=libaio --direct=1 --randrepeat=0
# --refill_buffers --end_fsync=1 --size=1024m --bs=B --rw=read|write|randread|randwrite
# --iodepth=Q --numjobs=T, plus its measure time as --runtime=5 --time_based.
#
#   sudo benches/quick-vs-fio.sh [ROUNDS=3] [SECONDS=5]
#
# FIO_ENGINE=io_uring and REFILL=0 change fio's engine and drop --refill_buffers, and
# FIO_THREAD=1 runs fio's jobs as threads (--thread) instead of processes, to tell the
# engines' difference from the arguments' and from the host's.
#
# LIMIT=MBPS:IOPS makes the loop device slower than the host, as a drive is: the kernel's
# block throttle (cgroup v1 blkio) caps its reads and writes at MBPS (10^6 bytes a second) and
# IOPS each, and fio and ssdlab both run under it. Then the device, not each tool's CPU per
# IO, sets the cells.
#
# Needs root (losetup), fio (apt-get install fio) and python3.
set -euo pipefail
rounds=${1:-3}
secs=${2:-5}
engine=${FIO_ENGINE:-libaio}
refill=--refill_buffers
[ "${REFILL:-1}" = 0 ] && refill=
thread=
[ "${FIO_THREAD:-0}" = 1 ] && thread=--thread
. "$(dirname "$0")/ram-loop.sh" quick-vs-fio
dd if=/dev/urandom of="$dev" bs=1M count=1024 oflag=direct status=none
under=()
if [ -n "${LIMIT:-}" ]; then
  cg=/sys/fs/cgroup/blkio/ssdlab-quick-vs-fio
  mkdir -p "$cg"
  trap 'rmdir "$cg" 2>/dev/null; cleanup' EXIT
  majmin=$(lsblk -dno MAJ:MIN "$dev" | tr -d ' ')
  for dir in read write; do
    echo "$majmin $(( ${LIMIT%:*} * 1000000 ))" >"$cg/blkio.throttle.${dir}_bps_device"
    echo "$majmin ${LIMIT#*:}" >"$cg/blkio.throttle.${dir}_iops_device"
  done
  # Each tool joins the throttled group before it starts; its threads and jobs follow.
  under=(sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg")
  echo "the device throttled to ${LIMIT%:*} MB/s and ${LIMIT#*:} IOPS each way"
fi

cells="SEQ1M_Q8T1:1024:8:1:read SEQ128K_Q32T1:128:32:1:read RND4K_Q32T16:4:32:16:randread RND4K_Q1T1:4:1:1:randread"
echo "device $dev (1 GiB on /dev/shm, loop direct-io), $(fio --version) ($engine${refill:+, $refill}${thread:+, $thread}), $rounds rounds of ${secs}s a cell"
for r in $(seq 1 "$rounds"); do
  for c in $cells; do
    IFS=: read -r name kib qd threads rw <<<"$c"
    for dir in read write; do
      mode=$rw; [ "$dir" = write ] && mode=${rw/read/write}
      "${under[@]}" fio --output-format=json --ioengine="$engine" --direct=1 --randrepeat=0 $refill $thread \
          --end_fsync=1 --filename="$dev" --name="$mode" --size=1024m --bs="${kib}k" \
          --rw="$mode" --iodepth="$qd" --numjobs="$threads" --runtime="$secs" --time_based \
          --output="$work/fio-$name-$dir-$r.json" >/dev/null
    done
  done
  "${under[@]}" "$bin" quick --profile nvme --target "$dev" --destroy-data="$dev" --duration "$secs" \
      --quiet --no-store --json "$work/ssdlab-$r.json" --out "$work/out-$r" >/dev/null
done

python3 - "$work" "$rounds" $cells <<'PY'
import json, sys, statistics
work, rounds, cells = sys.argv[1], int(sys.argv[2]), [c.split(":")[0] for c in sys.argv[3:]]
m = statistics.median
print("| cell | fio MB/s | ssdlab MB/s | ratio (goal within 5%) |")
print("|---|---|---|---|")
for name in cells:
    for d in ["read", "write"]:
        fio, ours = [], []
        for r in range(1, rounds + 1):
            jobs = json.load(open(f"{work}/fio-{name}-{d}-{r}.json"))["jobs"]
            fio.append(sum(j[d]["io_bytes"] / (j[d]["runtime"] / 1000) for j in jobs) / 1e6)
            res = json.load(open(f"{work}/ssdlab-{r}.json"))
            label = f"{name.replace('_', ' ')} {d}"
            ours.append(next(x["summary"]["mbps"] for x in res if x["label"] == label))
        print(f"| {name.replace('_', ' ')} {d} | {m(fio):.1f} | {m(ours):.1f} | {m(ours) / m(fio):.3f} |")
PY
