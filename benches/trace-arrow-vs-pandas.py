#!/usr/bin/env python3
"""Reading blkparse text into a table: ssdlab.trace.read (Arrow) against pandas.read_csv on the
same file.

    pip install ./python pandas      # the release build of the package
    python3 benches/trace-arrow-vs-pandas.py [IOS=1000000] [RUNS=3]

Writes a blkparse text of IOS 4 KiB IOs (a queue, an issue and a completion line each, as
`blkparse -i` prints them), then times each reader RUNS times, alternating, and prints every
time, the best of each and the ratio. ssdlab parses the events and pairs them into one row
per IO (queue, issue and completion times); pandas only splits the lines into columns, a
row per event.
"""

import os
import random
import sys
import tempfile
import time

import pandas as pd

import ssdlab

COLUMNS = ["dev", "cpu", "seq", "time", "pid", "action", "rwbs", "sector", "plus", "blocks",
           "process"]


def write_blkparse(path, ios, seed=1):
    rng = random.Random(seed)
    t = 0.0
    seq = 0
    with open(path, "w") as f:
        for _ in range(ios):
            sector = rng.randrange(0, 1 << 28) * 8
            rw = "W" if rng.random() < 0.7 else "R"
            q, d = t, t + 0.000002
            c = d + 0.00005 + rng.random() * 0.0002
            for when, action, proc in ((q, "Q", "[fio]"), (d, "D", "[fio]"), (c, "C", "[0]")):
                seq += 1
                f.write(f"  8,0    0 {seq:>8} {when:14.9f}  4242  {action}  {rw} "
                        f"{sector} + 8 {proc}\n")
            t += 0.00001 + rng.random() * 0.00002


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def main():
    ios = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "trace.blkparse.txt")
        write_blkparse(path, ios)
        size = os.path.getsize(path)
        print(f"blkparse text: {ios:,} IOs, {3 * ios:,} lines, {size / 1e6:.1f} MB")
        arrow, pandas = [], []
        for _ in range(runs):
            t, table = timed(lambda: ssdlab.trace.read(path, format="blkparse"))
            arrow.append(t)
            t, frame = timed(lambda: pd.read_csv(path, sep=r"\s+", header=None,
                                                 names=COLUMNS, engine="c"))
            pandas.append(t)
        assert table.num_rows == ios, table.num_rows
        assert len(frame) == 3 * ios, len(frame)
        fmt = ", ".join
        print(f"ssdlab.trace.read -> pyarrow.Table ({table.num_rows:,} rows): "
              f"{fmt(f'{t:.3f}' for t in arrow)} s")
        print(f"pandas.read_csv(sep=r'\\s+', engine='c') ({len(frame):,} rows): "
              f"{fmt(f'{t:.3f}' for t in pandas)} s")
        best_a, best_p = min(arrow), min(pandas)
        print(f"best: ssdlab {best_a:.3f} s ({ios / best_a / 1e6:.2f}M IOs/s, "
              f"{size / best_a / 1e6:.0f} MB/s), pandas {best_p:.3f} s; "
              f"ssdlab is {best_p / best_a:.1f}x faster")


if __name__ == "__main__":
    main()
