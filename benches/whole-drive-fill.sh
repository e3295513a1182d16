#!/usr/bin/env bash
# The whole-drive fill on every 840 EVO preset: the SLC cache (TurboWrite) it finds against
# the preset's own size, and the speed after it against the same drive's sequential writes
# with the cache switched off (slc_cache=0, 30 s). Then a drive without a cache.
#
#   benches/whole-drive-fill.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release --quiet --manifest-path "$here/Cargo.toml"
bin="$here/target/release/ssdlab"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "| preset | cache found (GB) | preset's (GB) | error | after the cache (MB/s) | without a cache (MB/s) | error | wall (s) |"
echo "|---|---|---|---|---|---|---|---|"
for p in 840-evo-120 840-evo-250 840-evo-500 840-evo-1tb 840-evo-msata-120 840-evo-msata-250 840-evo-msata-500 840-evo-msata-1tb default; do
  start=$(date +%s.%N)
  "$bin" run whole-drive-fill --target "sim:$p" --no-store -q --json "$work/fill.json" --out "$work/fill-$p" >/dev/null
  end=$(date +%s.%N)
  "$bin" run custom --target "sim:$p,slc_cache=0" --access sequential --bs 128K --qd 32 \
      --read-pct 0 --duration 30 --no-store -q --json "$work/direct.json" --out "$work/direct-$p" >/dev/null
  cache=$("$bin" sim show "$p" | awk '$1 == "slc_cache" && !seen {print $2; seen = 1}')
  python3 - "$p" "$cache" "$work/fill.json" "$work/direct.json" "$start" "$end" <<'PY'
import json, re, sys
p, cache, fill, direct, start, end = sys.argv[1:]
units = {"": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}
m = re.fullmatch(r"([\d.]+)(\w*)", cache)
preset = float(m[1]) * units[m[2]] / 1e9
a = json.load(open(fill))["analysis"]
d = json.load(open(direct))["summary"]["mbps"]
found = a["cache"]["bytes"] / 1e9 if a["cache"] else None
err = f"{(found / preset - 1) * 100:+.1f}%" if found and preset else ("none found" if not found else "")
print(f"| {p} | {found or 0:.2f} | {preset:.2f} | {err} | {a['after_cache_mbps']:.1f} | {d:.1f} | "
      f"{(a['after_cache_mbps'] / d - 1) * 100:+.1f}% | {float(end) - float(start):.1f} |")
PY
done
