"""A folder of CSV or Parquet files as a stream whose files are taken in name order.

Spark's own file source takes new files in modification-time order. Files written in a loop,
copied with ``cp`` or extracted from an archive have equal or arbitrary modification times, so
with ``max_files_per_trigger`` a later file could be read first and the tuples of the earlier
ones arrive late (and are dropped). This source, a Spark Python data source
(:class:`FolderSource`, format :data:`FORMAT`), takes a folder's files in *name* order whatever
their times: a micro-batch's offset is the name of the last file it took and how many files up
to that name there were, and a micro-batch takes the next files after that name (at most
``max_files_per_trigger``, read by as many Spark tasks as the session has cores, each a run of
consecutive files). Name the files so that their names sort in time order (``part-00000``,
``2024-05-01T10.csv``).

A file that appears later with a name *before* the last one taken is never read: the offsets
count it (``skipped``, summed over the run by
:func:`~shedding.streaming.recorded.skipped_files`), the job reports it, and with ``strict`` the
query stops with an error naming the last file read. A micro-batch replayed after a crash reads
the files then present between its two offsets' names: the same ones, unless a file arrived
named between them in the meantime (the replay reads it, and it is not counted as skipped).
Files whose names start with ``.`` or ``_`` are ignored, as Spark does. A source may also be one
file (a finished export): it is read as a folder that holds that file alone, in one micro-batch.

Files are read with pyarrow by the rules of Spark's readers: a CSV file's first line is its header
and its fields are taken as text, by the header's names when it names every column (a file that
writes its columns in another order is read by name, as ``shed simulate`` reads it; Spark's own
reader would take them by position) and else by position (a row with fewer fields gets nulls,
extra fields are dropped, an empty field is null); a Parquet file's columns are taken by name (a missing one is
null) and cast to the source's types (a timestamp of any unit, pandas' nanoseconds included, to
Spark's microseconds, truncated).

The same source reads a folder as one batch too (:func:`folder_batch`, the files present now), so
that the stream-join's report counts its references on the rows the stream joined: Spark's own
batch CSV reader would take a reordered file's fields by position. Each row then carries its
file's path, which ``input_file_name()`` does not give for a Python data source.
"""

from __future__ import annotations

import csv
import gzip
import json
import os
from bisect import bisect_right
from pathlib import Path
from typing import Iterator, Sequence

from pyspark.sql.datasource import DataSource, DataSourceReader, DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadLimit, ReadMaxFiles

from shedding.datasets.formats import FORMATS, data_files
from shedding.errors import ShedError, cause
from shedding.streaming.words import counted

#: the format name the source is registered under
FORMAT = "shedding_folder"
#: rows per Arrow batch handed to Spark
BATCH_ROWS = 100_000


def folder_of(path: str | Path) -> str:
    """The folder a source's files are in: ``path`` itself, or the folder of a one-file source."""
    return os.path.dirname(os.path.abspath(path)) if os.path.isfile(path) else str(path)


def file_names(folder: str | Path, fmt: str) -> list[str]:
    """The names of the files of format ``fmt`` in ``folder``, in name order (the order this source
    takes them); names starting with ``.`` or ``_`` are left out, as Spark's sources do. A source
    that is one file (``folder`` names a file) has that file alone, if it is of format ``fmt``."""
    if os.path.isfile(folder):
        exts = tuple(e for e, f in FORMATS.items() if f == fmt)
        return [os.path.basename(folder)] if str(folder).lower().endswith(exts) else []
    return data_files(folder, fmt)


def initial_offset(path: str, fmt: str) -> dict:
    """The offset before the first file of the folder ``path`` (which the offsets name, so that a
    checkpoint's offset log tells which files each micro-batch took, :mod:`~shedding.streaming.recorded`)."""
    return {"path": str(path), "fmt": fmt, "last": "", "files": 0, "skipped": 0}


def next_offset(names: list[str], start: dict, max_files: int | None) -> dict:
    """The offset after ``start`` given the folder's ``names`` now (name order): the next
    ``max_files`` files (all with None) after ``start["last"]``, and the files that appeared since
    ``start`` with a name before it, counted in ``skipped`` (a total over the run)."""
    before = bisect_right(names, start["last"])
    new = names[before:before + max_files] if max_files else names[before:]
    if not new:
        return start
    return start | {"last": new[-1], "files": before + len(new),
                    "skipped": start["skipped"] + max(0, before - start["files"])}


def batch_names(names: list[str], start: dict, end: dict) -> list[str]:
    """The files of the micro-batch from offset ``start`` to ``end``: the names after
    ``start["last"]`` up to ``end["last"]``."""
    return names[bisect_right(names, start["last"]):bisect_right(names, end["last"])]


def grouped(paths: list[str], tasks: int | None) -> list[list[str]]:
    """``paths`` in at most ``tasks`` runs of consecutive files, as even as can be (None: one file
    each). A Spark task costs a Python worker's round trip, so a batch of many small files read one
    per task spends most of its time starting tasks."""
    count = len(paths) if tasks is None else min(len(paths), tasks)
    bounds = [len(paths) * i // count for i in range(count + 1)] if count else [0]
    return [paths[a:b] for a, b in zip(bounds, bounds[1:])]


def arrow_schema(schema):
    """The Arrow schema Spark expects for the Spark ``schema`` (timestamps in UTC)."""
    from pyspark.sql.pandas.types import to_arrow_schema

    return to_arrow_schema(schema, timezone="UTC")


def field_positions(header: list[str], columns: list[str]) -> list[int]:
    """Where each of ``columns`` is among a CSV file's ``header`` fields: by name (ignoring case and
    surrounding spaces, the first of equal names) when the header names them all, so a file that
    writes its columns in another order than the first file is read as ``shed simulate`` reads
    it; else by position, as Spark's permissive reader takes the fields."""
    index: dict[str, int] = {}
    for i, name in enumerate(header):
        index.setdefault(name.strip().lower(), i)
    if all(c.strip().lower() in index for c in columns):
        return [index[c.strip().lower()] for c in columns]
    return list(range(len(columns)))


def read_csv(path: str, columns: list[str]):
    """A CSV file as an Arrow table of text columns ``columns``: by the names of its header line
    when it names them all (:func:`field_positions`), else by position as Spark's permissive CSV
    reader takes them; a short row gets nulls, extra fields are dropped, an empty field is null."""
    import pyarrow as pa
    from pyarrow import csv as pacsv

    opener = gzip.open if path.lower().endswith(".gz") else open  # pyarrow decompresses by extension too
    with opener(path, "rt", newline="", encoding="utf-8", errors="replace") as f:
        header = next(csv.reader(f), [])
    if not header:  # an empty file: no rows
        return pa.table({c: pa.array([], pa.string()) for c in columns})
    width = max(len(header), 1)
    ragged = []  # rows with another number of fields than the header

    def keep(row) -> str:
        ragged.append(row)
        return "skip"

    names = [f"c{i}" for i in range(width)]
    table = pacsv.read_csv(path, read_options=pacsv.ReadOptions(column_names=names, skip_rows=1),
                           parse_options=pacsv.ParseOptions(invalid_row_handler=keep),
                           convert_options=pacsv.ConvertOptions(column_types=dict.fromkeys(names, pa.string()),
                                                                strings_can_be_null=True))
    at = field_positions(header, columns)
    if ragged:  # the whole file in its own order, as Spark reads it (rare: no fast path)
        with opener(path, "rt", newline="", encoding="utf-8", errors="replace") as f:
            rows = [row for row in csv.reader(f) if row][1:]  # blank lines are skipped, as Spark does
        return pa.table({name: pa.array([row[i] if i < len(row) and row[i] != "" else None for row in rows],
                                        pa.string()) for i, name in zip(at, columns)})
    nulls = pa.chunked_array([pa.nulls(table.num_rows, pa.string())])
    return pa.table({name: table.column(i) if i < width else nulls for i, name in zip(at, columns)})


def read_parquet(path: str, columns: list[str]):
    """A Parquet file's columns ``columns`` by name (a missing one as nulls, cast below)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    have = set(pq.read_schema(path).names)
    table = pq.read_table(path, columns=[c for c in columns if c in have])
    return pa.table({c: table.column(c) if c in have else pa.nulls(table.num_rows) for c in columns})


def unreadable(name: str, fmt: str, exc: Exception) -> str:
    """Why the file ``name`` of format ``fmt`` cannot be read, in words an error quotes (the same
    for the source checked up front and for a file read in a micro-batch)."""
    return f"{name} cannot be read as {fmt.upper()} ({cause(exc, 300) or type(exc).__name__})"


def read_file(path: str, fmt: str, schema, columns: list[str] | None = None) -> Iterator:
    """The rows of one file as Arrow record batches of the Spark ``schema``: its columns, among the
    source's ``columns`` (all, in order, by default; a CSV file's fields are taken by position in
    them)."""
    target = arrow_schema(schema)
    table = (read_csv if fmt == "csv" else read_parquet)(path, columns or list(schema.names)).select(schema.names)
    table = table.cast(target, safe=False)  # nanoseconds to microseconds truncate; other casts as Spark's
    yield from table.to_batches(max_chunksize=BATCH_ROWS)


class _Folder:
    """What both readers of one folder take from their options: ``path``, ``fmt``, ``columns``
    (the files' columns as JSON, when the schema reads fewer) and ``tasks`` (the most partitions),
    and how they split files among tasks."""

    def __init__(self, options: dict, schema) -> None:
        self.options = {k.lower(): v for k, v in options.items()}
        self.path, self.fmt, self.schema = self.options["path"], self.options["fmt"], schema
        self.columns = json.loads(self.options.get("columns", "null"))
        self.tasks = int(self.options.get("tasks", "0")) or None

    def _partitions(self, names: list[str]) -> list[InputPartition]:
        """The files ``names`` of the folder in runs of consecutive files, one per task (:func:`grouped`)."""
        paths = [os.path.join(folder_of(self.path), n) for n in names]
        return [InputPartition(list(part)) for part in grouped(paths, self.tasks)]


class FolderReader(_Folder, DataSourceStreamReader):
    """The stream of one folder (module docstring); options as :class:`_Folder`'s, ``maxFiles`` (0: no
    limit) and ``strict``."""

    def __init__(self, options: dict, schema) -> None:
        super().__init__(options, schema)
        self.max_files = int(self.options.get("maxfiles", "0")) or None
        self.strict = self.options.get("strict", "false") == "true"

    def initialOffset(self) -> dict:
        return initial_offset(self.path, self.fmt)

    def getDefaultReadLimit(self) -> ReadLimit:
        return ReadMaxFiles(self.max_files) if self.max_files else ReadAllAvailable()

    def latestOffset(self, start: dict, limit: ReadLimit) -> dict:
        names = file_names(self.path, self.fmt)
        end = next_offset(names, start, limit.max_files if isinstance(limit, ReadMaxFiles) else None)
        if self.strict and end["skipped"] > start["skipped"]:
            late = end["skipped"] - start["skipped"]
            raise ShedError(f"{counted(late, 'file')} named before {start['last']!r}, the last file read from "
                            f"{self.path}, arrived after it and would never be read; name new files "
                            "so that they sort after the ones before them, or run without strict to count and skip "
                            "them")
        return end

    def partitions(self, start: dict, end: dict) -> list[InputPartition]:
        return self._partitions(batch_names(file_names(self.path, self.fmt), start, end))

    def read(self, partition: InputPartition) -> Iterator:
        yield from read_files(partition.value, self.fmt, self.schema, self.columns, "the checkpoint is kept")


def read_files(paths: list[str], fmt: str, schema, columns: list[str] | None, kept: str,
               file: str | None = None) -> Iterator:
    """The rows of the files ``paths`` (:func:`read_file`), a file that cannot be read an error
    naming it (``kept``: what rerunning keeps); with ``file``, the Spark ``schema``'s last column of
    that name is each row's file as a ``file:`` URI, read from no file (as ``input_file_name()``
    writes it: a name with ``%`` or ``#`` comes back whole from the URI)."""
    import pyarrow as pa

    data = type(schema)(schema.fields[:-1]) if file else schema
    for path in paths:
        uri = Path(os.path.abspath(path)).as_uri()
        try:
            for batch in read_file(path, fmt, data, columns):
                yield (pa.RecordBatch.from_arrays([*batch.columns, pa.array([uri] * batch.num_rows, pa.string())],
                                                  names=[*batch.schema.names, file]) if file else batch)
        except Exception as exc:  # pyarrow raises many types for a damaged file: name the file
            raise ShedError(f"{unreadable(path, fmt, exc)}; fix or remove that file and rerun: {kept}") from None


class FolderBatchReader(_Folder, DataSourceReader):
    """The files of one folder present now, as one batch (options as :class:`_Folder`'s, and
    ``file``: the schema's last column, which holds each row's file URI)."""

    def __init__(self, options: dict, schema) -> None:
        super().__init__(options, schema)
        self.file = self.options["file"]

    def partitions(self) -> list[InputPartition]:
        return self._partitions(file_names(self.path, self.fmt))

    def read(self, partition: InputPartition) -> Iterator:
        yield from read_files(partition.value, self.fmt, self.schema, self.columns, "the job's output is kept",
                              self.file)


class FolderSource(DataSource):
    """The Spark Python data source :data:`FORMAT` (module docstring); its schema comes from the
    reader's ``.schema()``."""

    @classmethod
    def name(cls) -> str:
        return FORMAT

    def streamReader(self, schema) -> FolderReader:
        return FolderReader(dict(self.options), schema)

    def reader(self, schema) -> FolderBatchReader:
        return FolderBatchReader(dict(self.options), schema)


def folder_stream(spark, path: Path, fmt: str, ddl: str, max_files: int | None, strict: bool = False,
                  columns: Sequence[str] | None = None):
    """The folder ``path`` as a streaming DataFrame with the schema ``ddl``, files in name order,
    each micro-batch's files read by as many tasks as the session has cores (its default
    parallelism; 2 where a Spark Connect session does not tell); ``columns``: the files' columns,
    when ``ddl`` reads only some of them."""
    spark.dataSource.register(FolderSource)
    read = (spark.readStream.format(FORMAT).schema(ddl).option("path", str(path)).option("fmt", fmt)
            .option("maxFiles", str(max_files or 0)).option("strict", str(bool(strict)).lower())
            .option("tasks", str(tasks_of(spark))))
    return read.option("columns", json.dumps(list(columns))).load() if columns is not None else read.load()


def folder_batch(spark, path: Path, fmt: str, ddl: str, columns: Sequence[str], file: str):
    """The files of the folder ``path`` present now as one batch DataFrame, read by the stream's
    rules (:func:`folder_stream`), with the schema ``ddl`` and a last text column ``file`` (a name
    without backticks), each row's file URI (the report tells the micro-batch a row came in by it)."""
    spark.dataSource.register(FolderSource)
    return (spark.read.format(FORMAT).schema(f"{ddl}, `{file}` string").option("path", str(path)).option("fmt", fmt)
            .option("columns", json.dumps(list(columns))).option("file", file)
            .option("tasks", str(tasks_of(spark))).load())


def tasks_of(spark) -> int:
    """The tasks a read's files are split among: the session's default parallelism."""
    return int(spark.conf.get("spark.default.parallelism", "0") or 0) or default_parallelism(spark)


def default_parallelism(spark) -> int:
    """The cores a classic session's tasks run on; 2 for a Spark Connect session (no context)."""
    try:
        return max(1, int(spark.sparkContext.defaultParallelism))
    except Exception:  # Spark Connect sessions have no sparkContext (an error of pyspark's own type)
        return 2


def offset_of(line: str) -> dict | None:
    """A line of Spark's offset log as this source's offset, or None if it is another source's."""
    try:
        offset = json.loads(line)
    except ValueError:
        return None
    return offset if isinstance(offset, dict) and set(initial_offset("", "")) <= set(offset) else None
