#!/usr/bin/env bash
# Timed-replay fidelity: record ~200K IOs at ~100K IOPS on a RAM-backed loop device with
# fio's iolog (4 KiB random reads, QD16, rate-limited), then replay that trace timed with
# ssdlab and with fio (read_iolog), and compare each replay's duration with the original.
#
#   sudo benches/replay-fidelity.sh [IOS=200000] [IOPS=100000]
set -euo pipefail
ios=${1:-200000}
iops=${2:-100000}
. "$(dirname "$0")/ram-loop.sh" replay

fio --name=record --filename="$dev" --rw=randread --bs=4k --iodepth=16 --ioengine=io_uring \
    --direct=1 --io_size=100G --number_ios="$ios" --rate_iops="$iops" \
    --write_iolog="$work/trace.iolog" --output-format=json --output="$work/record.json" >/dev/null
"$bin" trace stats "$work/trace.iolog" --json > "$work/stats.json"
"$bin" trace replay "$work/trace.iolog" --target "$dev" --mode timed --quiet \
    --json "$work/replay.json" --out "$work/out" >/dev/null
fio --name=replay --filename="$dev" --read_iolog="$work/trace.iolog" --ioengine=io_uring \
    --iodepth=64 --direct=1 --output-format=json --output="$work/fio-replay.json" >/dev/null

python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
orig = json.load(open(f"{w}/stats.json"))
rep = json.load(open(f"{w}/replay.json"))
fio = json.load(open(f"{w}/fio-replay.json"))["jobs"][0]
orig_s = orig["duration_s"] if "duration_s" in orig else None
fid = rep["analysis"]["fidelity"]
print(f"trace: {orig['ios']} IOs over {orig_s:.3f} s (recorded by fio)")
print(f"ssdlab timed replay: {fid['actual_s']:.3f} s = {fid['actual_s'] / orig_s:.4f} x the original; "
      f"issue late p50 {fid['issue_late_us']['p50']:.1f} us, p99 {fid['issue_late_us']['p99']:.1f} us, "
      f"max {fid['issue_late_us']['max']:.1f} us")
fio_s = fio["job_runtime"] / 1000
print(f"fio read_iolog replay: {fio_s:.3f} s = {fio_s / orig_s:.4f} x the original")
PY
