"""``ssdlab.sim.fit``: a simulated twin of a drive, as ``ssdlab sim fit`` fits it, its
candidate drives measured on this machine's threads or as tasks of a Dask client.

Each task measures one drive on one measurement: a pure function of its arguments (the
simulator is deterministic for a seed), so a task lost with its worker re-runs elsewhere to
the same figures, and a fit on a cluster finds the twin a fit here finds for the same seed.
"""

import os

from ssdlab import _ssdlab


def measure(spec, measurement, time_scale):
    """A fit's task: the figures of a fresh drive ``spec`` on one measurement."""
    return _ssdlab.measure_drive(spec, measurement, time_scale)


def fit(results=(), output=None, *, claims=None, drive=None, start="default",
        hold_out=(), params=(), evals=300, seed=1, jobs=None, screen=None, client=None,
        on_progress=None, reference=None, known=None, seeds=1):
    """Fit a twin of a drive and write it to ``output`` (a ``.toml`` file), with its report
    beside it, as ``ssdlab sim fit`` does; returns a :class:`Twin`.

    The target is the drive's ``results`` (results directories, ``ssdlab suite -o DIR``), or
    ``claims`` (a claims file in the scorecard's format, or ``"seeds"``) about ``drive``.
    ``start`` is the preset the search starts from (with overrides, ``"default,op=9%"``);
    ``hold_out`` the measurements kept out of the fit and predicted (``"heavy"``, ``"trim"``,
    ...), or figures by the beginning of their names (``"power.seq"``); ``params`` the keys searched (default: those of ``ssdlab sim fit``); ``evals`` the
    simulated drives evaluated at most; ``screen`` the screen's factor (``--screen``);
    ``reference`` the preset the results came from, when known (``--reference``: a recovery
    test's report scores it beside the twin); ``known`` the drive's hardware a spec sheet or
    teardown gives (``--known``: ``{"page_size": "8KiB", "channels": 8}``, or
    ``["page_size=8KiB", ...]``), set in the start and never searched; ``seeds`` how many
    searches, at ``seed`` and the seeds after it (``--seeds``): the twin is the lowest loss's,
    and every figure of its report has the seeds' twins' ``spread``. Every figure also has
    ``open``: the key the fit did not search that moves it most on the twin, at a value that
    fits the fitted figures as well (the report's ``alternatives`` are the drives tried).

    With ``client`` (a ``distributed.Client``), each drive's measurements are Dask tasks and
    ``jobs`` (default: the cluster's threads, twice over so none waits) is how many are in
    flight; without, ``jobs`` threads here (default: the CPUs). The same seed gives the same
    twin either way. ``on_progress(evaluated, budget, best_loss, eta_s)`` is called after
    each generation (and once before the keys not searched are tried, ``budget`` their drives).

    Ctrl-C (or an exception in ``on_progress``) stops the fit after the generation in flight
    and is raised; the drives measured are kept beside ``output`` (``*.evals.jsonl``), so the
    same call again resumes where it was.
    """
    if output is None:
        raise _ssdlab.SsdlabError("output= is needed: the twin's .toml file (e.g. twin.toml)")
    send = None
    if client is not None:
        def send(spec, measurement, time_scale):
            # pure: a task's key is its arguments, so a drive asked twice is measured once.
            return client.submit(measure, spec, measurement, time_scale, pure=True).result()

        if jobs is None:
            jobs = 2 * max(1, sum(client.nthreads().values()))
    if jobs is None:
        jobs = os.cpu_count() or 1
    if isinstance(results, (str, os.PathLike)):
        results = [results]
    if isinstance(known, dict):
        known = [f"{key}={value}" for key, value in known.items()]
    elif isinstance(known, str):
        known = known.split(",")
    return _ssdlab.fit_twin(
        os.fspath(output), [os.fspath(r) for r in results], claims, drive, start,
        list(hold_out), list(params), evals, seed, jobs, screen, send, on_progress, reference,
        list(known or ()), seeds)
