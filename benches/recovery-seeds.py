#!/usr/bin/env python3
"""How much a twin of the recovery table is a draw: the same presets' fits at several seeds
(`SEED=N benches/recovery.sh DIR ...`, one DIR a seed), compared; or at one seed by two
builds, each column then named by its DIR.

    python3 benches/recovery-seeds.py DIR1 DIR2 ...

Prints Markdown: per preset, each seed's loss, held-out median and wall time; per held-out
figure, its median across presets at each seed, for the twin a user would keep of the seeds'
(the lowest loss on the fitted figures: what restarts that keep the best would give, at that
many times the time) and for the mean of the seeds' twins' figures (an ensemble's prediction);
and how often the drive's figure lies between the seeds' twins' (whether their spread says
how far to trust a prediction). Medians are upper medians, as `sim fit` reports them.
"""

import json
import statistics
import sys
from pathlib import Path

LINE = 0.10


def main(dirs):
    seeds = [{p.name.removesuffix(".fit.json"): read(p) for p in sorted(Path(d).glob("*.fit.json"))}
             for d in dirs]
    presets = [name for name in seeds[0] if all(name in s for s in seeds)]
    if not presets:
        sys.exit("no preset was fitted in every directory")
    kept = {name: min((s[name] for s in seeds), key=lambda fit: fit["loss_twin"]) for name in presets}
    mean = {name: ensemble([s[name] for s in seeds]) for name in presets}
    columns = [f"seed {s[presets[0]]['seed']}" for s in seeds]
    if len(set(columns)) < len(columns):  # one seed's fits at two builds: say which is which
        columns = [f"{Path(d).name} ({c})" for d, c in zip(dirs, columns)]

    print("| preset | " + " | ".join(f"{c}: loss, held-out median, wall" for c in columns) + " |")
    print("|---" * (len(seeds) + 1) + "|")
    for name in presets:
        cells = [f"{s[name]['loss_twin']:.3f}, {100 * median(s[name]):.1f}%, {s[name]['wall_s']:.0f} s"
                 for s in seeds]
        print(f"| {name} | " + " | ".join(cells) + " |")

    figures = sorted({r["figure"] for fit in kept.values() for r in fit["held_out"]})
    print("\n| held-out figure, median across presets | "
          + " | ".join(columns) + " | the lowest loss's twin | the twins' mean |")
    print("|---" * (len(seeds) + 3) + "|")
    within = [0] * (len(seeds) + 2)
    for figure in figures:
        values = [across(s, presets, figure) for s in seeds] + [across(f, presets, figure) for f in (kept, mean)]
        for i, v in enumerate(values):
            within[i] += v <= LINE
        print(f"| {figure} | " + " | ".join(f"{100 * v:.1f}%" for v in values) + " |")
    print("| **figures within 10%** | " + " | ".join(f"**{w} of {len(figures)}**" for w in within) + " |")
    print("| **median over the twins' held-out medians** | "
          + " | ".join(f"**{100 * statistics.median_high(median(s[n]) for n in presets):.1f}%**"
                       for s in seeds + [kept, mean]) + " |")

    inside = [between([s[n] for s in seeds]) for n in presets]
    print(f"\nThe drive's figure between the seeds' twins' (inclusive): "
          + ", ".join(f"{n} {i} of {t}" for n, (i, t) in zip(presets, inside))
          + f"; {sum(i for i, _ in inside)} of {sum(t for _, t in inside)} in all.")


def ensemble(fits):
    """The fits' held-out rows with the mean of their twins' figures as the twin's, scored as
    `sim fit` scores one (the relative error, at most 300%)."""
    rows = []
    for row in fits[0]["held_out"]:
        twins = figures(fits, row["figure"])
        if not twins or row["drive"] is None:
            rows.append(row)
            continue
        twin = sum(twins) / len(twins)
        drive = row["drive"]
        error = 0.0 if twin == drive else min(3.0, abs(twin - drive) / abs(drive)) if drive else 3.0
        rows.append({**row, "twin": twin, "twin_error": error})
    return {**fits[0], "held_out": rows}


def between(fits):
    """How many held-out figures of the drive lie between the fits' twins', of how many."""
    inside = total = 0
    for row in fits[0]["held_out"]:
        twins = figures(fits, row["figure"])
        if twins and row["drive"] is not None:
            inside += min(twins) <= row["drive"] <= max(twins)
            total += 1
    return inside, total


def figures(fits, figure):
    """The fits' twins' values of a held-out figure (a twin may not give it)."""
    return [r["twin"] for f in fits for r in f["held_out"] if r["figure"] == figure and r["twin"] is not None]


def read(path):
    """A fit's report, its wall time the fit's own: `recovery.sh` times each fit (`.time`),
    and a report written again from the drives a fit measured took under a second."""
    fit = json.load(open(path))
    timed = path.with_name(path.name.removesuffix(".fit.json") + ".time")
    if timed.exists():
        fit["wall_s"] = float(timed.read_text().split(" s wall")[0].split()[-1])
    return fit


def median(fit):
    return statistics.median_high(r["twin_error"] for r in fit["held_out"])


def across(fits, presets, figure):
    return statistics.median_high(r["twin_error"] for n in presets
                                  for r in fits[n]["held_out"] if r["figure"] == figure)


if __name__ == "__main__":
    main(sys.argv[1:])
