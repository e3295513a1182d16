"""The Bench, ssdlab's results database (SQLite or PostgreSQL), read-only:
``open(location)`` and its ``drives()``, ``runs()`` and ``results(run=None)`` as pandas
DataFrames; a result's ``result`` column is the whole result, as ``bench export --format
json`` gives it."""

from ssdlab._ssdlab import Bench, open

__all__ = ["Bench", "open"]
