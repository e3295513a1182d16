#!/usr/bin/env bash
# ssdlab's IO engine against fio on the same RAM-backed loop device: 4 KiB random reads,
# QD32, io_uring, O_DIRECT, with 1 and 2 submitting threads (fio: numjobs 1 and 2). Runs
# alternate (fio, ssdlab, fio, ssdlab, ...) so drift on the machine hits both. Prints IOPS and
# CPU time per IO of each and their ratios, per thread count.
#
#   sudo benches/vs-fio.sh [ROUNDS=3] [SECONDS=10] [THREADS="1 2"]
#
# Needs root (losetup), fio (apt-get install fio) and python3.
set -euo pipefail
rounds=${1:-3}
secs=${2:-10}
threads=${3:-1 2}
. "$(dirname "$0")/ram-loop.sh" vs-fio
# Write the device once so reads hit real pages of the backing file.
dd if=/dev/urandom of="$dev" bs=1M count=1024 oflag=direct status=none

echo "device $dev (1 GiB on /dev/shm, loop direct-io), $(fio --version), $rounds rounds of ${secs}s, threads: $threads"
for r in $(seq 1 "$rounds"); do
  for t in $threads; do
    fio --name=bench --filename="$dev" --rw=randread --bs=4k --iodepth=32 --ioengine=io_uring \
        --direct=1 --numjobs="$t" --time_based --runtime="$secs" --output-format=json \
        --output="$work/fio-$t-$r.json" >/dev/null
    "$bin" run custom --target "$dev" --access random --bs 4K --qd 32 --threads "$t" \
        --read-pct 100 --no-prefill --duration "$secs" --backend io_uring --quiet \
        --json "$work/ssdlab-$t-$r.json" --out "$work/out-$t-$r" >/dev/null
  done
done

python3 - "$work" "$rounds" $threads <<'PY'
import json, sys, statistics
work, rounds, threads = sys.argv[1], int(sys.argv[2]), [int(t) for t in sys.argv[3:]]
m = statistics.median
rows = []
for t in threads:
    fio_iops, fio_cpu, ssd_iops, ssd_cpu = [], [], [], []
    for r in range(1, rounds + 1):
        # fio reports each job apart: IOPS add up, CPU is each job's own over its runtime.
        jobs = json.load(open(f"{work}/fio-{t}-{r}.json"))["jobs"]
        ios = sum(j["read"]["total_ios"] for j in jobs)
        fio_iops.append(sum(j["read"]["total_ios"] / (j["job_runtime"] / 1000) for j in jobs))
        cpu_s = sum((j["usr_cpu"] + j["sys_cpu"]) / 100 * j["job_runtime"] / 1000 for j in jobs)
        fio_cpu.append(cpu_s / ios * 1e6)
        s = json.load(open(f"{work}/ssdlab-{t}-{r}.json"))["summary"]
        ssd_iops.append(s["iops"])
        ssd_cpu.append(s["cpu"]["per_io_us"])
        print(f"threads {t} round {r}: fio {fio_iops[-1]:>9.0f} IOPS {fio_cpu[-1]:.3f} us CPU/IO | "
              f"ssdlab {ssd_iops[-1]:>9.0f} IOPS {ssd_cpu[-1]:.3f} us CPU/IO")
    rows.append((t, m(fio_iops), m(fio_cpu), m(ssd_iops), m(ssd_cpu)))
print()
print("| threads (fio numjobs) | fio IOPS | ssdlab IOPS | IOPS ratio (goal >= 1.0) | fio CPU/IO us | ssdlab CPU/IO us | CPU/IO ratio (goal <= 1.0) |")
print("|---|---|---|---|---|---|---|")
for t, fi, fc, si, sc in rows:
    print(f"| {t} | {fi:.0f} | {si:.0f} | {si / fi:.3f} | {fc:.3f} | {sc:.3f} | {sc / fc:.3f} |")
PY
