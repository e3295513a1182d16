#!/usr/bin/env bash
# The power tests on simulated drives (the energy model), a row per preset: idle W, slumber
# mW, sequential write W (until its burst ended and after, the tail after the writes), random
# write W and IOPS, MB/s and IOPS per W. The suite's own tests, as `ssdlab run` runs them.
#
#   benches/power.sh [PRESET...]   (default: the presets the scorecard's power claims read)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
# SSDLAB=target/debug/ssdlab runs a build at hand (the figures do not depend on the profile).
ssdlab=${SSDLAB:-target/release/ssdlab}
[ -n "${SSDLAB:-}" ] || cargo build --release --quiet
presets=("$@")
if [ ${#presets[@]} -eq 0 ]; then
  presets=(840-pro-256 extreme-ii-120 extreme-ii-240 extreme-ii-480 ultra-plus-256
    840-evo-120 840-evo-250 840-evo-500 840-evo-1tb
    840-evo-msata-120 840-evo-msata-250 840-evo-msata-500 840-evo-msata-1tb dc-s3700-200 default)
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for p in "${presets[@]}"; do
  for t in power-idle power-slumber power-seq-write power-random-write; do
    "$ssdlab" run "$t" --target "sim:$p" --no-store -q --out "$out/$p-$t" >/dev/null
  done
done
python3 - "$out" "${presets[@]}" <<'PY'
import json, sys
out, presets = sys.argv[1], sys.argv[2:]
def load(p, t):
    return json.load(open(f"{out}/{p}-{t}/{t}.json"))
print("| preset | idle W | slumber mW | seq write W | burst W (ends at) | after burst W | tail W | random write W | random IOPS | MB/s per W (seq) | IOPS per W (random) |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
f = lambda v, d=2: "-" if v is None else f"{v:.{d}f}"
for p in presets:
    idle, slumber = load(p, "power-idle")["analysis"], load(p, "power-slumber")["analysis"]
    seq, rnd = load(p, "power-seq-write"), load(p, "power-random-write")
    a, r = seq["analysis"], rnd["analysis"]
    burst = "-" if a["burst_s"] is None else f"{f(a['burst_w'])} ({a['burst_s']} s)"
    print(f"| {p} | {f(idle['mean_w'], 3)} | {f(slumber['mean_w'] * 1e3, 0)} | {f(a['mean_w'])} | {burst} | "
          f"{f(a['after_burst_w'])} | {f(a['tail_w'])} | {f(r['mean_w'])} | {rnd['summary']['iops']:,.0f} | "
          f"{f(a['mbps_per_w'], 1)} | {f(r['iops_per_w'], 0)} |")
PY
