"""Traces in every format the CLI reads, as Arrow: ``read`` (a ``pyarrow.Table``),
``batches`` (a ``pyarrow.RecordBatchReader``, for traces larger than memory), ``stats``
(btt-compatible statistics) and ``gen`` (synthetic Storage Bench traces).

A table has one row per IO: ``op`` (read, write, discard, flush), ``offset_bytes``,
``len_bytes``, ``queue_ns``, ``issue_ns`` and ``complete_ns`` (null where the format records
no such time), ``stream`` and ``merged``.
"""

from ssdlab._ssdlab import (
    Latency,
    SizeBreakdown,
    Stats,
    batches,
    formats,
    gen,
    profiles,
    read,
    stats,
)

__all__ = [
    "Latency",
    "SizeBreakdown",
    "Stats",
    "batches",
    "formats",
    "gen",
    "profiles",
    "read",
    "stats",
]
