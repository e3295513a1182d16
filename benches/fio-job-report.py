"""The table of benches/fio-jobs.sh and benches/fio-job-out.sh: per job (fio's reporting
group, its numjobs copies summed), the medians of fio's and ssdlab's IOPS over the rounds and
of their per-round ratio, with its range. Reads WORK/fio-NAME-R.json (fio's JSON output) and
WORK/ssdlab-NAME-R.json (ssdlab's --json: a result, or an array of them) for R = 1..ROUNDS.

    python3 benches/fio-job-report.py WORK ROUNDS NAME...
"""
import json
import statistics as st
import sys


def fio_groups(path):
    """(job name, IOPS) of each reporting group, in order."""
    groups = []
    for j in json.load(open(path))["jobs"]:
        iops = j["read"]["iops"] + j["write"]["iops"]
        if groups and groups[-1][0] == j["groupid"]:
            groups[-1][2] += iops
        else:
            groups.append([j["groupid"], j["jobname"], iops])
    return [(name, iops) for _, name, iops in groups]


def ssdlab_results(path):
    r = json.load(open(path))
    return [x["summary"]["iops"] for x in (r if isinstance(r, list) else [r])]


def main(work, rounds, names):
    print(f"{'name':28} {'job':36} {'fio IOPS':>10} {'ssdlab':>10} {'ratio':>6}  range")
    for name in names:
        runs = [(fio_groups(f"{work}/fio-{name}-{r}.json"),
                 ssdlab_results(f"{work}/ssdlab-{name}-{r}.json"))
                for r in range(1, rounds + 1)]
        for i, (job, _) in enumerate(runs[0][0]):
            fio = [a[i][1] for a, _ in runs]
            ours = [b[i] for _, b in runs]
            ratios = [b / a for a, b in zip(fio, ours)]
            print(f"{name:28} {job[:36]:36} {st.median(fio):>10.0f} {st.median(ours):>10.0f} "
                  f"{st.median(ratios):>6.3f}  {min(ratios):.3f}-{max(ratios):.3f}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3:])
