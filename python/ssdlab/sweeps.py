"""Sweeps: a grid of simulated drives x tests, each pair a Dask task, results in a DataFrame.

Every task is a pure function of its drive, its test and its overrides (the simulator is
deterministic for a seed): a task lost with its worker re-runs elsewhere to the same result,
and a sweep on a cluster gives what running the pairs one by one gives.
"""

import itertools
import os

# The figures of a result that go into a row; the rest of the result (per-second series,
# device counters) stays in the result files a run with `out=` writes.
_SKIP = {"cpu"}


def configurations(presets_or_grid):
    """The drive specs of a sweep: a preset or list of specs as they are, or a grid
    ``{"preset": [...], "op": ["7%", "25%"], "gc_style": [...]}`` as its Cartesian product.
    Each is ``(spec, {key: value})``."""
    if isinstance(presets_or_grid, str):
        presets_or_grid = [presets_or_grid]
    if isinstance(presets_or_grid, dict):
        grid = dict(presets_or_grid)
        presets = grid.pop("preset", ["default"])
        if isinstance(presets, str):
            presets = [presets]
        keys = list(grid)
        values = [v if isinstance(v, (list, tuple)) else [v] for v in grid.values()]
        out = []
        for preset in presets:
            for combo in itertools.product(*values):
                spec = ",".join([preset] + [f"{k}={v}" for k, v in zip(keys, combo)])
                out.append((spec, {"preset": preset, **dict(zip(keys, combo))}))
        return out
    return [(spec, {"preset": spec}) for spec in presets_or_grid]


def _tests(tests):
    """``"consistency"``, ``["a", "b"]``, ``{"a": {overrides}}`` or ``[("a", {...})]`` as
    a list of ``(test, overrides)``."""
    if isinstance(tests, str):
        return [(tests, {})]
    if isinstance(tests, dict):
        return [(t, dict(o or {})) for t, o in tests.items()]
    return [(t, {}) if isinstance(t, str) else (t[0], dict(t[1])) for t in tests]


def _flatten(prefix, value, row):
    if isinstance(value, dict):
        for k, v in value.items():
            if k not in _SKIP:
                _flatten(f"{prefix}.{k}" if prefix else k, v, row)
    elif isinstance(value, (int, float, str, bool)) or value is None:
        row[prefix] = value


def row(config, test, result):
    """One row of a sweep: the drive's keys, the test, and the result's figures: its summary,
    write amplification, power and analysis (the steady state's, for the tests that have one)."""
    d = result.to_dict()
    out = dict(config)
    out.update(test=test, variant=d.get("variant"), label=d["label"], complete=d["complete"])
    summary = {}
    _flatten("", d["summary"], summary)
    out.update({k: v for k, v in summary.items() if "." not in k})
    _flatten("write_amplification", d.get("write_amplification") or {}, out)
    _flatten("analysis", d.get("analysis") or {}, out)
    return out


def run_one(spec, config, test, overrides):
    """A sweep's task: one test on a fresh drive; its rows (a test may make several results)."""
    from ssdlab import run

    return [row(config, test, r) for r in run(test, "sim:" + spec, **overrides)]


def one_by_one(presets_or_grid, tests, seed=1):
    """The sweep's rows computed here, in order, without Dask: what a sweep must equal."""
    import pandas as pd

    rows = []
    for spec, config in configurations(presets_or_grid):
        for test, overrides in _tests(tests):
            rows.extend(run_one(spec, config, test, {"seed": seed, **overrides}))
    return pd.DataFrame(rows)


def sweep(presets_or_grid, tests, client=None, *, seed=1, on_progress=None):
    """Run every drive of ``presets_or_grid`` (see :func:`configurations`) through every test
    of ``tests`` as Dask tasks; a ``pandas.DataFrame`` with a row per result, in grid order.

    ``client`` is a ``distributed.Client``; with none, a local cluster of worker processes
    (one per core) runs the sweep and is closed after it. ``seed`` is every run's seed.
    ``on_progress(done, total)`` is called in this process as tasks finish.
    """
    import pandas as pd
    from distributed import Client, LocalCluster, as_completed

    pairs = [
        (spec, config, test, {"seed": seed, **overrides})
        for spec, config in configurations(presets_or_grid)
        for test, overrides in _tests(tests)
    ]
    if client is None:
        workers = max(1, min(len(pairs), os.cpu_count() or 1))
        # No dashboard: a sweep in a script or a test must not fight over its port.
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster:
            with Client(cluster) as local:
                return sweep(presets_or_grid, tests, local, seed=seed, on_progress=on_progress)
    # pure: a task's key is its arguments, so a task resubmitted is the same task.
    futures = [client.submit(run_one, *p, pure=True) for p in pairs]
    done = 0
    for _ in as_completed(futures):
        done += 1
        if on_progress is not None:
            on_progress(done, len(futures))
    rows = [r for f in futures for r in f.result()]
    return pd.DataFrame(rows)
