#!/usr/bin/env bash
# The recovery table of `ssdlab sim fit` (#27): for each preset, its review suite is the
# target of a fit from `default` that never sees the Storage Bench traces, the TRIM test,
# the 25%-spare consistency run or the power tests' sequential write; the table is each
# held-out figure's error (the twin's against the hidden preset's), per preset and the
# median across presets, each miss marked with whose it is (the search's, the space's, the
# fitted tests' or the keys' not searched: --reference). Each fit takes 9 to 28 minutes of
# two cores alone, the 840 Pro's the longest: its fast candidates are the slowest to simulate
# (each report's "Where the time went" names its slowest drives).
#
#   benches/recovery.sh DIR PRESET...     # suites and fits in DIR, kept for a re-run
#   FILL=1 benches/recovery.sh DIR ...    # a whole-drive fill fitted beside the suite
#   KNOWN=channels,dies,page_size,pages_per_block,cell benches/recovery.sh DIR ...
#                                         # the preset's values of these keys given as known
#                                         # hardware (`sim fit --known`), as a spec sheet would
#   SEED=2 benches/recovery.sh DIR ...    # the search's seed (1 if not given): the same suites
#                                         # at several seeds show how much a twin is a draw
#   SEEDS=2 benches/recovery.sh DIR ...   # a search at each of 2 seeds (`sim fit --seeds`): the
#                                         # lower loss's twin, each figure's spread across both
#   PARAMS=default,planes,slc_max_write benches/recovery.sh DIR ...
#                                         # the keys searched (`sim fit --params`)
#
# A preset whose twin DIR/PRESET.toml exists is not fitted again (its table row is read
# back); a suite in DIR/PRESET is not run again.
set -euo pipefail
dir=${1:?usage: benches/recovery.sh DIR PRESET...}
shift
here=$(cd "$(dirname "$0")/.." && pwd)
(cd "$here" && cargo build --release --quiet -p ssdlab)
ssdlab=$here/target/release/ssdlab
mkdir -p "$dir"
cd "$dir"
HOLD_OUT=heavy,light,trim,consistency25,power.seq
for preset in "$@"; do
    [ -d "$preset" ] || "$ssdlab" suite --target "sim:$preset" --out "$preset" -q --no-store
    results=("$preset")
    if [ -n "${FILL:-}" ]; then
        [ -d "$preset-fill" ] || "$ssdlab" run whole-drive-fill --target "sim:$preset" \
            --out "$preset-fill" -q --no-store
        results+=("$preset-fill")
    fi
    params=()
    [ -z "${PARAMS:-}" ] || params=(--params "$PARAMS")
    known=()
    if [ -n "${KNOWN:-}" ]; then
        # Each key's value as `sim show` gives it, in its parameters' table.
        values=$("$ssdlab" sim show "$preset" | awk -v keys=",$KNOWN," \
            'index(keys, "," $1 ",") && NF >= 2 && !seen[$1]++ { printf "%s%s=%s", sep, $1, $2; sep = "," }')
        known=(--known "$values")
    fi
    if [ ! -f "$preset.toml" ]; then
        /usr/bin/time -f "$preset: %e s wall, %U s user" -o "$preset.time" \
            "$ssdlab" sim fit "${results[@]}" --from default --hold-out "$HOLD_OUT" \
            --evals 300 --seed "${SEED:-1}" --seeds "${SEEDS:-1}" --jobs 2 --reference "$preset" "${params[@]}" "${known[@]}" -o "$preset.toml"
    fi
done
python3 "$here/benches/recovery-table.py" "${@/%/.fit.json}"
