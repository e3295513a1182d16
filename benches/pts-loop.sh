#!/usr/bin/env bash
# Every SNIA PTS test to completion on a RAM-backed loop device at a small --pts-scale
# (#26): for each, whether it completed, its rounds and whether steady state was reached
# (the recovery tests: their segments), and the wall time. The host idle recovery test
# idles in real time on a real device: 4 bursts per wait state at 0.01.
#
#   sudo benches/pts-loop.sh [SCALE=0.01]
#
# Needs root (losetup) and python3.
set -euo pipefail
scale=${1:-0.01}
. "$(dirname "$0")/ram-loop.sh" pts-loop
echo "device $dev (1 GiB on /dev/shm, loop direct-io), --pts-scale $scale"
echo "| test | complete | rounds (steady) or segments | deviations | wall (s) |"
echo "|---|---|---|---|---|"
for test in pts-iops pts-throughput pts-latency wsat pts-hir pts-xsr pts-cbw pts-dirth; do
  start=$(date +%s)
  "$bin" run "$test" --target "$dev" --destroy-data="$dev" --pts-scale "$scale" \
      --quiet --no-store --json "$work/$test.json" --out "$work/out-$test" >/dev/null
  wall=$(( $(date +%s) - start ))
  python3 - "$work/$test.json" "$test" "$wall" <<'PY'
import json, sys
path, test, wall = sys.argv[1:]
r = json.load(open(path))
a = r.get("analysis") or {}
if "sequences" in a:
    what = ", ".join(f"{s['rounds']} ({'yes' if s['reached'] else 'no'})" for s in a["sequences"])
elif "segments" in a:
    what = f"{len(a['segments'])} segments"
else:
    what = f"{len(a.get('rounds', []))} rounds of IOPS"
print(f"| {test} | {'yes' if r['complete'] else 'NO'} | {what} | {len(r['deviations'])} | {wall} |")
PY
done
