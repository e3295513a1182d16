#!/usr/bin/env python3
"""ssdlab.sim.fit on a Dask cluster against the same fit on this machine's threads.

    python3 benches/fit-on-dask.py [EVALS] [WORKERS]

A hidden drive (the default preset, 2 GiB, slower NAND channels and programs) is measured
with its transfer-size sweep; a twin is fitted to it from the default preset, searching four
keys, twice: on `WORKERS` threads here (jobs=WORKERS), and with every drive's measurement a
task of a distributed.LocalCluster of `WORKERS` single-threaded worker processes. Prints the
wall time of each, their ratio, and whether the twins are the same file.
"""

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from distributed import Client, LocalCluster

import ssdlab


def main():
    evals = int(sys.argv[1]) if len(sys.argv) > 1 else 120
    workers = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    HIDDEN = "sim:default,capacity=2GiB,channel_mbps=90,t_prog=900us/2700us,t_read=70us"
    FIT = dict(start="default,capacity=2GiB", params=["channel_mbps", "t_prog", "t_read", "channels"],
               evals=evals, seed=1)

    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        hidden = d / "hidden"
        subprocess.run(["ssdlab", "run", "transfer-sweep", "--target", HIDDEN, "-q", "--no-store",
                        "--out", str(hidden)], check=True)

        t = time.perf_counter()
        here = ssdlab.sim.fit(hidden, d / "here.toml", jobs=workers, **FIT)
        here_s = time.perf_counter() - t

        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            t = time.perf_counter()
            dask = ssdlab.sim.fit(hidden, d / "dask.toml", client=client, **FIT)
            dask_s = time.perf_counter() - t

        same = (d / "here.toml").read_text() == (d / "dask.toml").read_text().replace(
            "dask.fit.md", "here.fit.md")
        print(f"{here.evaluations} drives, loss {here.loss_start:.3f} -> {here.loss_twin:.3f}")
        print(f"here, {workers} threads:            {here_s:7.1f} s")
        print(f"Dask, {workers} worker processes:   {dask_s:7.1f} s  (x{dask_s / here_s:.2f} of here)")
        print(f"the same twin: {same}")


# Dask's worker processes import this file: the work runs only in the main one.
if __name__ == "__main__":
    main()
