"""The figures of benches/vs-fio.sh: each run, then per case each engine's median and the
median, range and interquartile range of its per-round ratios to fio (paired by round, so a
slow round weighs on both). Latency is total latency, submission to completion: fio's
`lat_ns` (slat + clat) against ssdlab's (stamped before the IO is submitted).

    python3 benches/vs-fio-report.py WORK ROUNDS "ENGINE..." CASE...

ENGINE is ssdlab, and baseline when an older build ran beside it.
"""
import json
import statistics
import sys

work, rounds, engines, cases = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4:]
med = statistics.median


def load(engine, case, r):
    """Load average before the run, and the machine's CPUs' busy fraction during it."""
    la, b0, t0, b1, t1 = open(f"{work}/{engine}-{case}-{r}.load").read().split()
    return float(la), (int(b1) - int(b0)) / max(1, int(t1) - int(t0))


def fio_run(case, r):
    jobs = json.load(open(f"{work}/fio-{case}-{r}.json"))["jobs"]
    ios = sum(j["read"]["total_ios"] for j in jobs)
    # Each job reports apart: IOPS add up; CPU is each job's own over its runtime.
    iops = sum(j["read"]["total_ios"] / (j["job_runtime"] / 1000) for j in jobs)
    cpu_s = sum((j["usr_cpu"] + j["sys_cpu"]) / 100 * j["job_runtime"] / 1000 for j in jobs)
    lat = jobs[0]["read"]["lat_ns"]
    pct = lat.get("percentile", {})
    return {
        "iops": iops,
        "cpu_io_us": cpu_s / ios * 1e6,
        "p50_us": pct.get("50.000000", 0) / 1000,
        "p99_us": pct.get("99.000000", 0) / 1000,
        "mean_us": lat["mean"] / 1000,
    }


def ssdlab_run(engine, case, r):
    s = json.load(open(f"{work}/{engine}-{case}-{r}.json"))["summary"]
    lat = s["read"]["latency_us"]
    return {
        "iops": s["iops"],
        "cpu_io_us": s["cpu"]["per_io_us"],
        "p50_us": lat["p50"],
        "p99_us": lat["p99"],
        "mean_us": lat["mean"],
    }


def spread(xs, fmt):
    """Median (IQR, range) of xs."""
    q = statistics.quantiles(xs, n=4, method="inclusive") if len(xs) > 1 else [xs[0]] * 3
    f = fmt.format
    return f"{f(med(xs))} (IQR {f(q[0])}..{f(q[2])}, range {f(min(xs))}..{f(max(xs))})"


def describe(name, run, busy):
    la, b = busy
    return (f"{name} {run['iops']:>8.0f} IOPS {run['cpu_io_us']:.3f} us CPU/IO "
            f"p50 {run['p50_us']:.2f} p99 {run['p99_us']:.2f} us [load {la:.2f}, busy {b:.0%}]")


# runs[case] is a list, per round, of {engine: figures}.
runs = {}
for case in cases:
    for r in range(1, rounds + 1):
        got = {"fio": fio_run(case, r)}
        got.update({e: ssdlab_run(e, case, r) for e in engines})
        runs.setdefault(case, []).append(got)
        print(f"{case} round {r:>2}: " + " | ".join(
            describe(e, got[e], load(e, case, r)) for e in ["fio", *engines]))

print()
print("| case | engine | IOPS | IOPS / fio's, median (IQR, range) | CPU/IO us "
      "| CPU/IO / fio's, median (IQR, range) |")
print("|---|---|---|---|---|---|")
for case, rows in runs.items():
    for e in ["fio", *engines]:
        iops = med(g[e]["iops"] for g in rows)
        cpu = med(g[e]["cpu_io_us"] for g in rows)
        if e == "fio":
            print(f"| {case} | fio | {iops:.0f} | - | {cpu:.3f} | - |")
            continue
        ratio = [g[e]["iops"] / g["fio"]["iops"] for g in rows]
        cpu_ratio = [g[e]["cpu_io_us"] / g["fio"]["cpu_io_us"] for g in rows]
        print(f"| {case} | {e} | {iops:.0f} | {spread(ratio, '{:.3f}')} | {cpu:.3f} "
              f"| {spread(cpu_ratio, '{:.3f}')} |")

if "qd1" in runs:
    rows = runs["qd1"]
    print()
    print("| QD1 total latency | engine | us | minus fio's, median (IQR, range) |")
    print("|---|---|---|---|")
    for key, name in [("p50_us", "p50"), ("p99_us", "p99"), ("mean_us", "mean")]:
        for e in ["fio", *engines]:
            us = med(g[e][key] for g in rows)
            if e == "fio":
                print(f"| {name} | fio | {us:.2f} | - |")
            else:
                d = [g[e][key] - g["fio"][key] for g in rows]
                print(f"| {name} | {e} | {us:.2f} | {spread(d, '{:+.2f}')} |")
