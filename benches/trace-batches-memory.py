#!/usr/bin/env python3
"""A trace read in batches takes memory independent of its length: the peak resident memory of
streaming blkparse texts of growing size through ssdlab.trace.batches.

    pip install ./python
    python3 benches/trace-batches-memory.py [IOS=1000000,10000000]

For each size, a child process writes nothing and only streams the file (written beforehand,
as trace-arrow-vs-pandas.py writes it), counting rows; it prints the file's size, the rows,
the time and the child's peak RSS (ru_maxrss).
"""

import os
import resource
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from importlib import import_module

write_blkparse = import_module("trace-arrow-vs-pandas").write_blkparse

CHILD = """
import sys, time, resource, ssdlab
start = time.perf_counter()
rows = sum(b.num_rows for b in ssdlab.trace.batches(sys.argv[1], format="blkparse"))
took = time.perf_counter() - start
print(rows, took, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def main():
    sizes = [int(s) for s in (sys.argv[1] if len(sys.argv) > 1 else "1000000,10000000").split(",")]
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR", "/tmp")) as d:
        for ios in sizes:
            path = os.path.join(d, f"{ios}.blkparse.txt")
            write_blkparse(path, ios)
            size = os.path.getsize(path)
            out = subprocess.run([sys.executable, "-c", CHILD, path], check=True,
                                 capture_output=True, text=True).stdout.split()
            rows, took, rss_kib = int(out[0]), float(out[1]), int(out[2])
            assert rows == ios, (rows, ios)
            print(f"{ios:>11,} IOs, {size / 1e6:8.1f} MB of text: {rows:,} rows in {took:.2f} s, "
                  f"peak RSS {rss_kib / 1024:.1f} MiB")
            os.remove(path)


if __name__ == "__main__":
    main()
