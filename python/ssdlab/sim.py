"""Simulated SSDs a script steps on their virtual clock: ``Drive(preset, **keys)``.

``submit`` one IO, or ``submit_many`` sequences or numpy arrays of them (each at its own
time, at most ``queue_depth`` in flight), and get completion times in ns on the drive's
clock; ``wait`` lets time pass; ``counters`` and ``energy_j`` say what the drive did.
"""

from ssdlab._ssdlab import Counters, Drive, presets

__all__ = ["Counters", "Drive", "presets"]
