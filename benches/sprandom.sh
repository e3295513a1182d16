#!/usr/bin/env bash
# Fast preconditioning (`--precondition sprandom`, fio's SPRandom) against the slow path, on
# simulated drives with different GC: the consistency test (4 KiB random writes at QD32,
# steady state = mean IOPS of its last 30%, write amplification over its second half from the
# simulator's host and NAND write counters) run three ways per drive:
#   slow     purge, sequential fill, then a long run: several drive fills of random writes
#            before its steady-state window;
#   sprandom purge, one SPRandom pass, then a short run;
#   fill     purge, sequential fill, then the same short run (what the pass saves).
# It prints each run's figures against the slow path's and the virtual (device clock) and
# wall time each took. The 200+ GB presets run at 16 GiB (capacity=16GiB) to keep the slow
# path to a minute of wall time.
#
#   benches/sprandom.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
cargo build --release --quiet -p ssdlab
bin=target/release/ssdlab
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# target | GC | SPRandom's parameters (the preset's spare area and cache) | slow s | short s
drives=(
  "default|greedy, bursty|op=7%|3000|300"
  "dc-s3700-200,capacity=16GiB|FIFO, latency-first|op=41.7%|600|120"
  "840-pro-256,capacity=16GiB|greedy, bursty at 2x, no SLC cache|op=7.3%|3000|300"
  "extreme-ii-240,capacity=16GiB|greedy, paced below 20% free (nCache)|op=13.6%,cache=1056MiB,regions=16|3000|300"
)

run() { # name target seconds [--precondition ...]
  local name=$1 target=$2 seconds=$3
  shift 3
  local start end
  start=$(date +%s.%N)
  "$bin" run consistency --target "sim:$target" --duration "$seconds" "$@" \
    --out "$out/$name" --quiet --no-store
  end=$(date +%s.%N)
  python3 -c "print($end - $start)" > "$out/$name/wall"
}

echo "| drive (GC) | path | steady IOPS | WA | vs slow | fills before the window | preconditioning (virtual) | run (virtual) | wall |"
echo "|---|---|---|---|---|---|---|---|---|"
for d in "${drives[@]}"; do
  IFS='|' read -r target gc spr slow short <<<"$d"
  key=${target%%,*}
  run "$key-slow" "$target" "$slow"
  run "$key-sprandom" "$target" "$short" --precondition "sprandom:$spr"
  run "$key-fill" "$target" "$short"
  python3 - "$out" "$key" "$target" "$gc" <<'PY'
import json, sys
out, key, target, gc = sys.argv[1:]
def figures(path):
    r = json.load(open(f"{out}/{key}-{path}/consistency.json"))
    a = r["analysis"]
    iops = [p["iops"] for p in r["per_second"] if p.get("covered_s") is None]
    window = int(a["steady_from_s"])
    fills = sum(iops[:window]) * 4096 / r["target"]["capacity_bytes"]
    pre = next(p for p in r["preconditioning"] if p["name"] != "purge")
    return dict(
        iops=a["steady_state"]["mean"],
        wa=r["write_amplification"]["steady_state"],
        fills=fills,
        pre=f'{pre["name"]} {pre["summary"]["duration_s"]:.0f} s',
        run=r["summary"]["duration_s"] if "summary" in r else len(iops),
        wall=float(open(f"{out}/{key}-{path}/wall").read()),
    )
slow = figures("slow")
for path in ["slow", "sprandom", "fill"]:
    f = figures(path)
    versus = "" if path == "slow" else (
        f'{(f["iops"] / slow["iops"] - 1) * 100:+.1f}% IOPS, {(f["wa"] / slow["wa"] - 1) * 100:+.1f}% WA')
    print(f'| {target} ({gc}) | {path} | {f["iops"]:.0f} | {f["wa"]:.2f} | {versus} | '
          f'{f["fills"]:.1f} | {f["pre"]} | {f["run"]:.0f} s | {f["wall"]:.1f} s |')
PY
done
