"""The file formats of stream files, by extension.

A module of its own, importing nothing, because Spark's Python processes import it: the streaming
folder source (:mod:`shedding.streaming.folder_source`) runs in a fresh interpreter per query and
source on the driver, where importing pandas with :mod:`shedding.datasets.files` cost about 0.65 s
of every query's start.
"""

from __future__ import annotations

import os

#: file extension (lower case) -> format
FORMATS = {".csv": "csv", ".csv.gz": "csv", ".parquet": "parquet", ".pq": "parquet"}


def data_files(folder: str | os.PathLike[str], fmt: str | None = None) -> list[str]:
    """The names of the stream files in ``folder`` (an extension of :data:`FORMATS`; of format
    ``fmt`` only, when given), in name order, the order a folder's files are a stream in; names
    starting with ``.`` or ``_`` are left out (``_SUCCESS``, ``.part-0.crc``), as Spark's sources do."""
    exts = tuple(e for e, f in FORMATS.items() if fmt is None or f == fmt)
    with os.scandir(os.fspath(folder)) as entries:
        return sorted(e.name for e in entries if e.is_file() and not e.name.startswith((".", "_"))
                      and e.name.lower().endswith(exts))


def separator_hint(columns) -> str:
    """A note for an error about missing columns, when a CSV file's header is one column that holds
    another separator (a semicolon, as spreadsheets write in many locales, or a tab): the reader
    takes commas only. Empty otherwise."""
    names = [str(c) for c in columns]
    sep = next((s for s in (";", "\t", "|") if len(names) == 1 and s in names[0]), None)
    if sep is None:
        return ""
    shown = "a tab" if sep == "\t" else repr(sep)
    return (f" (the header is one column separated by {shown}: CSV files here are comma-separated; "
            f"rewrite it with commas, e.g. pandas.read_csv(path, sep={sep!r}).to_csv(path, index=False))")
