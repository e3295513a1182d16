"""Traces in every format the CLI reads, as Arrow: ``read`` (a ``pyarrow.Table``),
``batches`` (a ``pyarrow.RecordBatchReader``, for traces larger than memory), ``stats``
(btt-compatible statistics) and ``gen`` (synthetic Storage Bench traces).

A table has one row per IO: ``op`` (read, write, discard, flush), ``offset_bytes``,
``len_bytes``, ``queue_ns``, ``issue_ns`` and ``complete_ns`` (null where the format records
no such time), ``stream`` and ``merged``.
"""

import pyarrow as pa

from ssdlab._ssdlab import (
    Latency,
    SizeBreakdown,
    SsdlabError,
    Stats,
    formats,
    gen,
    profiles,
    read,
    stats,
)
from ssdlab._ssdlab import batches as _batches

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

# What the Arrow C stream puts before an error's own message.
_EXTERNAL = "External error: "


def batches(path, format=None, skip_bad=False, batch_size=64 * 1024):
    """A trace as a ``pyarrow.RecordBatchReader`` of ``batch_size`` rows: memory independent
    of the trace's length. An error part-way (a malformed line) raises ``SsdlabError``."""
    reader = _batches(path, format=format, skip_bad=skip_bad, batch_size=batch_size)

    def checked():
        # The Arrow stream turns ssdlab's errors into ArrowInvalid: give them back their class.
        try:
            yield from reader
        except pa.ArrowInvalid as e:
            text = str(e)
            if not text.startswith(_EXTERNAL):
                raise
            raise SsdlabError(text[len(_EXTERNAL):]) from None

    return pa.RecordBatchReader.from_batches(reader.schema, checked())
