#!/usr/bin/env bash
# The 2018-2021 reviews' methodology on a simulated drive, at full scale in virtual time:
# its wall time, then each stepped test's figures on the empty and the full drive (bursts,
# the summary figure, the peak and every step), the Storage Bench empty and full (data rate,
# p99 latencies, energy) and idle wake-up.
#
#   benches/review-2021.sh [PRESET]      (default 840-evo-250)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release --quiet --manifest-path "$here/Cargo.toml"
bin="$here/target/release/ssdlab"
preset=${1:-840-evo-250}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s.%N)
"$bin" suite --methodology review-2021 --target "sim:$preset" --no-store -q --out "$out/suite" >/dev/null
end=$(date +%s.%N)
python3 - "$out/suite" "$start" "$end" <<'PY'
import glob, json, os, sys
d, start, end = sys.argv[1:]
print(f"review-2021 on the simulated drive: {float(end) - float(start):.0f} s of wall time")
print()
print("| test | drive | bursts (MB/s) | summary (MB/s) | peak (MB/s) | MB/s per step |")
print("|---|---|---|---|---|---|")
results = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(d, "*.json")))
           if not f.endswith("suite.json")]
for r in results:
    a = r.get("analysis") or {}
    if "axis" in a:
        b = f"{a['burst']['mbps']:.0f}" if a.get("burst") else ""
        steps = " ".join(f"{p['summary']['mbps']:.0f}" for p in r["points"])
        print(f"| {r['test']} | {a['state']} | {b} | {a['headline_mbps']:.0f} | {a['peak_mbps']:.0f} | {steps} |")
print()
print("| Storage Bench | data rate (MB/s) | p99 read (us) | p99 write (us) | energy (J) |")
print("|---|---|---|---|---|")
for r in results:
    if r["test"] == "storage-bench":
        s = r["summary"]
        print(f"| {r['variant']} | {r['analysis']['metrics']['data_rate_mbps']:.0f} | "
              f"{s['read']['latency_us']['p99']:.0f} | {s['write']['latency_us']['p99']:.0f} | "
              f"{s['energy_j']:.0f} |")
for r in results:
    if r["test"] == "idle-wake":
        a = r["analysis"]
        print()
        print(f"idle wake-up: after {a['rest_s']} s of rest mean {a['wake_mean_us']:.0f} us, "
              f"max {a['wake_max_us']:.0f} us ({a['wakeups']} wake-ups of {len(a['wake_us'])}); "
              f"awake mean {a['awake_mean_us']:.1f} us")
PY
