"""Simulated SSDs a script steps on their virtual clock: ``Drive(preset, **keys)``.

``submit`` one IO, or ``submit_many`` sequences or numpy arrays of them (each at its own
time, at most ``queue_depth`` in flight), and get completion times in ns on the drive's
clock; ``wait`` lets time pass; ``counters`` and ``energy_j`` say what the drive did.

``fit`` makes a simulated twin of a drive from its results, on this machine or a Dask client.
"""

from ssdlab._ssdlab import Counters, Drive, Twin, presets
from ssdlab.twin import fit

__all__ = ["Counters", "Drive", "Twin", "fit", "presets"]
