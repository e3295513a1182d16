"""ssdlab from Python: traces as Arrow tables, simulated SSDs a script can step, and the
test suite, all computed by ssdlab's Rust crates (this package only converts types).

Submodules: :mod:`ssdlab.trace`, :mod:`ssdlab.sim`, :mod:`ssdlab.bench`; :func:`ssdlab.sweep` runs grids of
simulated drives and tests on Dask, and :func:`ssdlab.sim.fit` fits a drive's twin, on Dask too.
"""

from ssdlab._ssdlab import Result, Review, SsdlabError, __version__, run, suite, tests
from ssdlab import bench, sim, trace
from ssdlab.sweeps import sweep

__all__ = [
    "Result", "Review", "SsdlabError", "__version__", "bench", "run", "sim", "suite", "sweep",
    "tests", "trace",
]
