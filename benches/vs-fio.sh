#!/usr/bin/env bash
# ssdlab's IO engine against fio on the same RAM-backed loop device: 4 KiB random reads,
# QD32, io_uring, one job, O_DIRECT. Runs alternate (fio, ssdlab, fio, ssdlab, ...) so
# drift on the machine hits both. Prints IOPS and CPU time per IO of each and their ratios.
#
#   sudo benches/vs-fio.sh [ROUNDS=3] [SECONDS=10]
#
# Needs root (losetup), fio (apt-get install fio) and python3.
set -euo pipefail
rounds=${1:-3}
secs=${2:-10}
. "$(dirname "$0")/ram-loop.sh" vs-fio
# Write the device once so reads hit real pages of the backing file.
dd if=/dev/urandom of="$dev" bs=1M count=1024 oflag=direct status=none

echo "device $dev (1 GiB on /dev/shm, loop direct-io), $(fio --version), $rounds rounds of ${secs}s"
for r in $(seq 1 "$rounds"); do
  fio --name=bench --filename="$dev" --rw=randread --bs=4k --iodepth=32 --ioengine=io_uring \
      --direct=1 --numjobs=1 --time_based --runtime="$secs" --output-format=json \
      --output="$work/fio-$r.json" >/dev/null
  "$bin" run custom --target "$dev" --access random --bs 4K --qd 32 --read-pct 100 \
      --no-prefill --duration "$secs" --backend io_uring --quiet --json "$work/ssdlab-$r.json" \
      --out "$work/out-$r" >/dev/null
done

python3 - "$work" "$rounds" <<'PY'
import json, sys, statistics
work, rounds = sys.argv[1], int(sys.argv[2])
fio_iops, fio_cpu, ssd_iops, ssd_cpu = [], [], [], []
for r in range(1, rounds + 1):
    j = json.load(open(f"{work}/fio-{r}.json"))["jobs"][0]
    runtime_s = j["job_runtime"] / 1000
    ios = j["read"]["total_ios"]
    fio_iops.append(ios / runtime_s)
    fio_cpu.append((j["usr_cpu"] + j["sys_cpu"]) / 100 * runtime_s / ios * 1e6)
    s = json.load(open(f"{work}/ssdlab-{r}.json"))["summary"]
    ssd_iops.append(s["iops"])
    ssd_cpu.append(s["cpu"]["per_io_us"])
    print(f"round {r}: fio {fio_iops[-1]:>9.0f} IOPS {fio_cpu[-1]:.3f} us CPU/IO | "
          f"ssdlab {ssd_iops[-1]:>9.0f} IOPS {ssd_cpu[-1]:.3f} us CPU/IO")
m = statistics.median
print(f"median: fio {m(fio_iops):.0f} IOPS, {m(fio_cpu):.3f} us CPU/IO; "
      f"ssdlab {m(ssd_iops):.0f} IOPS, {m(ssd_cpu):.3f} us CPU/IO")
print(f"IOPS ratio ssdlab/fio: {m(ssd_iops) / m(fio_iops):.3f}   (goal >= 1.0)")
print(f"CPU per IO ratio ssdlab/fio: {m(ssd_cpu) / m(fio_cpu):.3f}   (goal <= 1.0)")
PY
