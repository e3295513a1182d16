#!/usr/bin/env bash
# The simulator's speed and memory, and the wall time of ssdlab's own tests on it:
#  1. simulated 4 KiB random writes per wall second in GC steady state (one core), 256 GB preset;
#  2. the full consistency test (fill + 2000 s virtual at QD32) on a 256 GB preset: wall time
#     and peak memory per 4 KiB of simulated capacity;
#  3. the whole review suite on the default simulated drive (the README's main command).
#
#   benches/sim.sh [PRESET=ultra-plus-256]
set -euo pipefail
preset=${1:-ultra-plus-256}
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
cargo build --release --quiet
cargo build --release --quiet -p sim --examples
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== 1. simulator throughput ($preset, 20M random 4 KiB writes at QD32 after one drive-write of warm-up)"
target/release/examples/throughput "$preset" 1 20000000

peak_rss_kib() { awk '/Maximum resident set size/ {print $6}' "$1"; }
echo
echo "== 2. ssdlab run consistency --target sim:$preset (fill + 2000 s virtual)"
start=$(date +%s.%N)
/usr/bin/time -v target/release/ssdlab run consistency --target "sim:$preset" --out "$out/c" -q 2> "$out/time.txt"
end=$(date +%s.%N)
cap=$(python3 -c "import json; print(json.load(open('$out/c/consistency.json'))['target']['capacity_bytes'])")
rss=$(peak_rss_kib "$out/time.txt")
python3 - "$start" "$end" "$cap" "$rss" "$out/c/consistency.json" <<'PY'
import json, sys
start, end, cap, rss_kib, path = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
r = json.load(open(path))
a = r["analysis"]
print(f"wall {end - start:.1f} s (goal < 60 s); peak RSS {rss_kib / 1024:.0f} MiB = "
      f"{rss_kib * 1024 / (cap / 4096):.2f} bytes per 4 KiB of {cap / 1e9:.0f} GB (goal <= 12)")
print(f"steady state {a['steady_state']['mean']:.0f} IOPS, drop at {a['drop_s']} s, "
      f"WA {r['write_amplification']['steady_state']:.2f}")
PY

echo
echo "== 3. ssdlab suite (default simulated drive, every test at the articles' parameters)"
start=$(date +%s.%N)
target/release/ssdlab suite --out "$out/s" -q --no-store
end=$(date +%s.%N)
python3 -c "print(f'wall {$end - $start:.1f} s (goal < 180 s)')"
