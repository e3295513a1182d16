#!/usr/bin/env bash
# Whether a change kept every figure: runs the whole review on sim:default and on
# sim:840-evo-250, and the PTS-C and review-2021 methodologies at --quick on sim:default,
# with two ssdlab binaries, drops what differs by nature (run ids, times, the host) and
# diffs the JSON of every result; then renders the old binary's results directories into a
# report with each binary and diffs the HTML (the same results must render byte for byte
# the same). Empty diffs and exit 0: identical.
#
#   benches/same-results.sh OLD_BINARY NEW_BINARY [RUN ...]
#
# RUN names some of the runs below (default: all of them).
#
# e.g. build the old commit into a copy (git worktree add /tmp/old REV; cargo build
# --release there) and compare its target/release/ssdlab with this tree's.
set -euo pipefail
old=$1 new=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Per-second latency percentiles (in results since 47c9998) are dropped too, so a binary from
# before them compares.
strip='walk(if type == "object" then del(.run_id, .started_at, .updated_at, .system,
       .finished_at, .cpu, .wall_s, .cpu_s, .host, .created_at, .elapsed_s) else . end)
       | walk(if type == "object" and has("t") and has("ios") and has("iops")
              then del(.read_latency_us, .write_latency_us) else . end)'
declare -A args=(
  [default]="--target sim:default"
  [840-evo-250]="--target sim:840-evo-250"
  [pts-c]="--target sim:default --methodology pts-c --quick"
  [review-2021]="--target sim:default --methodology review-2021 --quick"
)
shift 2
runs=("$@")
[ ${#runs[@]} -gt 0 ] || runs=(default 840-evo-250 pts-c review-2021)
for side in old new; do
  bin=${!side}
  for run in "${runs[@]}"; do
    # shellcheck disable=SC2086 # the run's arguments are words
    "$bin" suite ${args[$run]} --no-store --quiet --out "$work/$side/$run" >/dev/null
  done
  mkdir -p "$work/$side.norm"
  (cd "$work/$side" && find . -name '*.json' | sort) | while read -r f; do
    jq -S "$strip" "$work/$side/$f" > "$work/$side.norm/$(echo "${f#./}" | tr / _)"
  done
done
echo "$(ls "$work/new.norm" | wc -l) result files compared"
status=0
diff -r "$work/old.norm" "$work/new.norm" || status=1
for run in "${runs[@]}"; do
  for side in old new; do
    bin=${!side}
    cp -r "$work/old/$run" "$work/report-$side-$run"
    "$bin" report "$work/report-$side-$run" >/dev/null
  done
  cmp "$work/report-old-$run/report.html" "$work/report-new-$run/report.html" || status=1
done
echo "${#runs[@]} reports of the old results rendered by both binaries and compared"
exit $status
