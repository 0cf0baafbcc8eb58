"""The file formats of stream files, by extension.

A module of its own, importing nothing, because Spark's Python processes import it: the streaming
folder source (:mod:`shedding.streaming.folder_source`) runs in a fresh interpreter per query and
source on the driver, where importing pandas with :mod:`shedding.datasets.files` cost about 0.65 s
of every query's start.
"""

from __future__ import annotations

#: file extension (lower case) -> format
FORMATS = {".csv": "csv", ".csv.gz": "csv", ".parquet": "parquet", ".pq": "parquet"}
