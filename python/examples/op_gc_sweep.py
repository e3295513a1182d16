#!/usr/bin/env python3
"""Spare area against GC style on one preset: write amplification and steady-state IOPS of
the consistency test (4 KiB random writes at QD32 after a fill), swept on Dask and plotted.

    python3 python/examples/op_gc_sweep.py --preset default --duration 600 -o op-gc.png

Without --scheduler a local cluster of worker processes runs the sweep; with
--scheduler tcp://HOST:8786 a running Dask cluster does.
"""

import argparse

import matplotlib

matplotlib.use("Agg")  # a file, no display
import matplotlib.pyplot as plt  # noqa: E402

import ssdlab  # noqa: E402

STYLES = ["bursty", "paced", "latency-first"]
SPARE = ["7%", "12%", "20%", "28%", "40%"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--preset", default="default")
    p.add_argument("--capacity", default="4G", help="the drive's capacity (smaller is faster)")
    p.add_argument("--duration", type=float, default=600, help="seconds of the test (virtual)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--scheduler", help="a Dask scheduler's address; a local cluster otherwise")
    p.add_argument("-o", "--output", default="op-gc-sweep.png")
    a = p.parse_args()

    grid = {"preset": a.preset, "capacity": a.capacity, "op": SPARE, "gc_style": STYLES}
    tests = {"consistency": {"duration": a.duration}}
    client = None
    if a.scheduler:
        from distributed import Client

        client = Client(a.scheduler)
    df = ssdlab.sweep(grid, tests, client=client, seed=a.seed)
    df["op_pct"] = df["op"].str.rstrip("%").astype(float)
    cols = ["op", "gc_style", "write_amplification.steady_state", "analysis.steady_state.mean"]
    print(df[cols].to_string(index=False))

    fig, (wa, iops) = plt.subplots(1, 2, figsize=(11, 4.2))
    for style, rows in df.groupby("gc_style"):
        rows = rows.sort_values("op_pct")
        wa.plot(rows["op_pct"], rows["write_amplification.steady_state"], "o-", label=style)
        iops.plot(rows["op_pct"], rows["analysis.steady_state.mean"], "o-", label=style)
    wa.set(xlabel="spare area (op, % of capacity)", ylabel="write amplification (steady state)")
    iops.set(xlabel="spare area (op, % of capacity)", ylabel="IOPS (steady state, mean)")
    for ax in (wa, iops):
        ax.grid(alpha=0.3)
        ax.legend(title="GC style")
    fig.suptitle(f"{a.preset}, {a.capacity}: 4 KiB random writes QD32, {a.duration:g} s")
    fig.tight_layout()
    fig.savefig(a.output, dpi=120)
    print(f"plot: {a.output}")


if __name__ == "__main__":
    main()
