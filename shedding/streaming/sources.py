"""The file sources of ``shed stream-join``: checked up front, and synthetic ones written out.

Each stream is a directory of CSV or Parquet files (``time,key[,payload...]``) read as a stream
in name order as files arrive, or one such file (:mod:`~shedding.streaming.folder_source`).
:func:`inspect_source` checks a source
before the query starts (it exists, holds files, has time and key columns with integers), so a
wrong path or file is a one-line error, not a failed query; :func:`write_zipf_sources` writes the
paper's synthetic workload (§4) as such directories.
"""

from __future__ import annotations

import functools
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from shedding.atomic import write_atomically
from shedding.datasets.formats import FORMATS, separator_hint
from shedding.errors import ShedError
from shedding.streaming.event_time import TIME_LIMIT, whole_number_sql, whole_numbers
from shedding.streaming.inputs import quoted


@dataclass(frozen=True)
class StreamSource:
    """One input directory: its format, its columns and their types as the join reads them.

    ``types`` maps each column to a Spark type name. A CSV file source reads every column as text
    (so that a bad value is a bad row, never a failed file) and the reader converts: integer times
    and keys by the whole-number rule (:func:`~shedding.streaming.event_time.whole_number_sql`),
    timestamps and payloads by ``TRY_CAST`` (a value that does not convert becomes null). A Parquet
    source keeps its file types."""

    path: Path
    fmt: str
    columns: tuple[str, ...]
    types: dict = field(default_factory=dict)

    @property
    def ddl(self) -> str:
        """The file source's schema."""
        return self.ddl_of(self.columns)

    def ddl_of(self, columns) -> str:
        """The schema of ``columns`` as the file source reads them (text for CSV)."""
        if self.fmt == "csv":
            return ", ".join(f"{quoted(c)} string" for c in columns)
        return ", ".join(f"{quoted(c)} {self.types[c]}" for c in columns)

    def reader(self, spark, max_files: int | None, stream: bool = True, strict: bool = False,
               keep: set[str] | None = None):
        """The source as a streaming DataFrame (files in name order,
        :mod:`~shedding.streaming.folder_source`; a file named before one already read fails the
        query with ``strict``), with the column types of :attr:`types`; ``stream=False``: the
        files present now, as one batch DataFrame read by the same rules, each row with its file's
        path in the last column, :attr:`file_column` (the report's references must count the
        rows the stream joined: a CSV file's fields by its header's names, through the same data
        source, where Spark's own CSV reader takes them by position). ``keep`` (lower-case names):
        only these columns are read and converted (a source of thousands of columns costs a
        conversion each otherwise)."""
        from pyspark.sql import functions as F

        from shedding.streaming.folder_source import folder_batch, folder_stream

        used = [c for c in self.columns if keep is None or c.strip().lower() in keep]
        file = [] if stream else [self.file_column]  # underscores and letters: no quoting
        if stream:
            frame = folder_stream(spark, self.path, self.fmt, self.ddl_of(used), max_files, strict, self.columns)
        elif self.fmt == "csv":
            frame = folder_batch(spark, self.path, self.fmt, self.ddl_of(used), self.columns, self.file_column)
        else:  # Spark's Parquet reader takes columns by name, as the stream does
            frame = spark.read.schema(self.ddl).parquet(str(self.path)).withColumn(self.file_column,
                                                                                   F.input_file_name())
        if self.fmt != "csv":
            return frame.select(*used, *file)
        return frame.selectExpr(*(f"{converted(quoted(c), self.types[c])} AS {quoted(c)}" for c in used), *file)

    @property
    def file_column(self) -> str:
        """The name of a batch read's file path column: one that no column of the source has."""
        taken, name = {c.strip().lower() for c in self.columns}, "_file"
        while name in taken:
            name = "_" + name
        return name

    def as_dict(self) -> dict:
        return {"path": str(self.path), "fmt": self.fmt, "columns": list(self.columns), "types": self.types}

    @classmethod
    def from_dict(cls, d: dict) -> "StreamSource":
        return cls(Path(d["path"]), d["fmt"], tuple(d["columns"]), dict(d["types"]))


def converted(col: str, kind: str) -> str:
    """SQL: the text column ``col`` as Spark type ``kind`` (null where it does not convert)."""
    if kind == "bigint":
        return whole_number_sql(col, "string")
    if kind == "string":
        return col
    return f"TRY_CAST({col} AS {kind.upper()})"


def source_files(path: Path, fmt: str) -> list[Path]:
    """The files of format ``fmt`` of a source (a folder, or one file), in the order the stream
    takes them: by name (:func:`~shedding.streaming.folder_source.file_names`)."""
    from shedding.streaming.folder_source import file_names, folder_of

    return [Path(folder_of(path)) / name for name in file_names(path, fmt)]


def _majority(values: pd.Series, test: pd.Series) -> bool:
    """Whether most non-empty sampled values pass ``test`` (a few garbage rows do not decide)."""
    present = values.notna() & (values.astype("string").str.strip() != "")
    return bool(present.any()) and int((test & present).sum()) * 2 > int(present.sum())


def _text_type(values: pd.Series) -> str:
    """The type a CSV column's sampled text reads as: bigint, double, timestamp or string."""
    if _majority(values, whole_numbers(values).notna()):
        return "bigint"
    if _majority(values, pd.to_numeric(values, errors="coerce").notna()):
        return "double"
    with warnings.catch_warnings():  # pandas warns when it guesses a format per value
        warnings.simplefilter("ignore")
        stamps = pd.to_datetime(values, errors="coerce", utc=True, format="mixed")
    return "timestamp" if _majority(values, stamps.notna()) else "string"


#: the column pandas writes a frame's unnamed index to (an index other than 0, 1, ..., such as the
#: rows left after a filter); pandas reads it back as the index, not as a column
PANDAS_INDEX = re.compile(r"__index_level_\d+__")


def _sample(path: Path, fmt: str) -> tuple[list[str], dict | None, pd.DataFrame | None]:
    """The columns of one file, its Parquet types (None for CSV) and a CSV sample (rows that do
    not parse are skipped, as Spark's permissive mode makes them bad rows). A Parquet file's
    :data:`PANDAS_INDEX` columns are left out, as ``pandas.read_parquet`` and ``shed simulate``
    leave them out."""
    if fmt == "csv":
        sample = pd.read_csv(path, dtype=str, nrows=1000, on_bad_lines="skip", engine="python")
        return [str(c) for c in sample.columns], None, sample
    import pyarrow.parquet as pq
    from pyspark.sql.pandas.types import from_arrow_type

    schema = [f for f in pq.read_schema(path) if not PANDAS_INDEX.fullmatch(f.name)]
    return [f.name for f in schema], {f.name: from_arrow_type(f.type).simpleString() for f in schema}, None


def _check_not_nested(folder: Path, param: str) -> None:
    """Refuse a folder whose data files are all in subfolders (a partitioned dataset, ``day=1/``):
    the stream reads the files directly in the folder (the ones :func:`source_files` lists), and
    would wait for one forever."""
    def holds_files(path: Path) -> bool:
        return any(source_files(path, fmt) for fmt in set(FORMATS.values()))

    if holds_files(folder):
        return
    nested = sorted(p.name for p in folder.iterdir() if p.is_dir() and holds_files(p))
    if nested:
        shown = ", ".join(nested[:3]) + (", ..." if len(nested) > 3 else "")
        raise ShedError(f"{{param}} {folder} holds its files in subfolders ({shown}); the stream reads the files "
                        "directly in its folder, so give one subfolder, or move the files up into one folder",
                        param=param)


def none_yet(what: str, path: Path) -> ShedError:
    """A source folder without any of ``what`` yet: the stream needs its first file up front."""
    return ShedError(f"no {what} in {path} yet; the first file fixes the columns, so add one before starting")


def inspect_source(path: Path, fmt: str | None, what: str, keys: tuple[str, ...] = ("key",),
                   time: str = "time", param: str = "r") -> StreamSource:
    """Check one source (a folder, or one file) up front and learn its columns, as the stream
    will read it: the first file in name order (:func:`source_files`) that has the ``time`` and
    ``keys`` columns fixes them (a file that cannot be read is skipped: Spark reads it
    permissively, its rows are bad rows; so is a CSV file of a header alone, whose columns have no
    values to tell their types). CSV column types come from a sample of that file (most
    values decide, :func:`_text_type`); integer keys stay integers, other keys join as text.
    ``param`` names the parameter that gave ``path`` in errors (``r`` or ``s``)."""
    if not path.exists():
        raise ShedError(f"source not found: {path}; give the folder the {what} files arrive in, or one file")
    named = {f for e, f in FORMATS.items() if path.name.lower().endswith(e)}
    if not path.is_dir() and not named:
        raise ShedError(f"{path} is neither a folder nor a {', '.join(FORMATS)} file; {{param}} takes a folder of "
                        "CSV or Parquet files, or one such file", param=param)
    if path.is_dir():
        _check_not_nested(path, param)
    if fmt is None:
        found = named if not path.is_dir() else \
            {f for e, f in FORMATS.items() for p in path.iterdir() if p.name.lower().endswith(e)}
        if not found:
            raise none_yet(f"CSV or Parquet files ({', '.join(FORMATS)})", path)
        if len(found) != 1:
            raise ShedError(f"cannot tell the format of {path} (mixed files); add {{param}} csv or parquet", param="fmt")
        fmt = found.pop()
    if fmt not in ("csv", "parquet"):
        raise ShedError(f"unknown {{param}} {fmt!r}; choose csv or parquet", param="fmt")
    files = source_files(path, fmt)
    if not files and not path.is_dir():
        raise ShedError(f"{path} is not a {fmt} file, as {{param}} says; give a file of that format", param="fmt")
    if not files:
        raise none_yet(f"{fmt} files", path)
    wanted = (time, *keys)
    seen, timed, empty, hint, unreadable = [], False, [], "", []
    for file in files[:20]:
        try:
            columns, types, sample = _sample(file, fmt)
        except Exception as exc:  # pandas/pyarrow raise many types for damaged files: the next one may do
            from shedding.streaming.folder_source import unreadable as why  # pyspark: not where --help imports

            unreadable.append(why(file.name, fmt, exc))
            continue
        lower = {c.strip().lower(): c for c in columns}
        if all(w.lower() in lower for w in wanted):
            if sample is None or len(sample):
                break
            empty.append(file.name)  # a header alone (an hour without rows) tells no column's type
            continue
        seen.append(f"{file.name} has {', '.join(columns) or 'no columns'}")
        hint = hint or (separator_hint(columns) if fmt == "csv" else "")
        timed = timed or time.lower() in lower
    else:
        if empty:
            raise ShedError(f"{{param}} {path} holds no rows yet ({empty[0]} has only its header line); the first "
                            "file with rows fixes the columns' types, so add one before starting", param=param)
        count = min(len(files), 20)
        if unreadable and not seen:
            more = "" if len(unreadable) == 1 else f" (and {len(unreadable) - 1} more of the first {count} files)"
            raise ShedError(f"{{param}} {path}: {unreadable[0]}{more}; give {fmt.upper()} files with columns "
                            f"{','.join(wanted)}[,payload...]", param=param)
        if timed:  # the time column is there: the key's flag is the one to fix
            where = f"no {what} file among the first {count} has" if path.is_dir() else f"{what} file {path} does not have"
            lacking, flag = f"{{param}} column(s) {', '.join(keys)}", "key"
        else:
            where = f"{{param}} {path}: no file among the first {count} has" if path.is_dir() else \
                f"{{param}} {path} does not have"
            lacking, flag = f"columns {', '.join(wanted)}", param
        raise ShedError(f"{where} the {lacking} ({'; '.join(seen[:2]) or 'none could be read'}); sources need "
                        f"{','.join(wanted)}[,payload...]{hint}", param=flag)
    column = lower[time.lower()]
    if types is None:
        assert sample is not None, "a CSV file comes with its sample (_sample)"
        types = {c: _text_type(sample[c]) for c in columns}
        for k in keys:  # a key is an integer or text
            types[lower[k.lower()]] = "bigint" if types[lower[k.lower()]] == "bigint" else "string"
        if types[column] not in ("bigint", "timestamp"):
            raise ShedError(f"{what} column {time} in {file.name} holds neither whole numbers nor timestamps "
                            f"(first value {sample[column].dropna().astype(str).head(1).tolist()}); "
                            "times must be integers or timestamps")
        if types[column] == "bigint":
            check_time_range(whole_numbers(sample[column]), what, file)
    elif types[column] in ("tinyint", "smallint", "int", "bigint"):
        import pyarrow.parquet as pq

        check_time_range(pq.read_table(file, columns=[column]).column(0).to_pandas(), what, file)
    return StreamSource(path, fmt, tuple(columns), types)


def check_time_range(times: pd.Series, what: str, file: Path) -> None:
    """Refuse a source whose first file has integer times outside 0 to
    :data:`~shedding.streaming.event_time.TIME_LIMIT` - 1 (the query would count them as bad rows)."""
    outside = times[(times < 0) | (times >= TIME_LIMIT)].dropna()
    if len(outside):
        raise ShedError(f"{what} file {file} has time {outside.iloc[0]}: integer times must be 0 to 2^61 - 1 "
                        "(the join counts non-negative steps); shift them so the first is 0")


def write_zipf_sources(text_r: str, text_s: str, folder: Path, length: int, files: int, seed: int) -> tuple[Path, Path]:
    """``zipf:SKEW:DOMAIN`` for both streams: two tuple-synchronous Zipf streams (the paper's §4
    workload, one R and one S tuple per time step) written as ``files`` CSV files per stream."""
    from shedding.datasets.zipf import zipf_workload

    parsed = []
    for text in (text_r, text_s):
        m = re.fullmatch(r"zipf:([0-9.]+):(\d+)", text.strip().lower())
        if not m:
            raise ShedError(f"synthetic source {text!r} is not zipf:SKEW:DOMAIN (e.g. zipf:1.0:650)")
        parsed.append((float(m.group(1)), int(m.group(2))))
    if parsed[0][1] != parsed[1][1]:
        raise ShedError("synthetic R and S need the same domain (zipf:SKEW:DOMAIN); the skews may differ")
    for name, value in (("length", length), ("files", files)):
        if value < 1:
            raise ShedError(f"{{param}} must be >= 1, got {value}", param=name)
    wl = zipf_workload(parsed[0][0], parsed[0][1], length, seed, "independent", 1, 0, skew_s=parsed[1][0])
    paths = []
    for side, name in ((0, "r"), (1, "s")):
        d = folder / name
        d.mkdir(parents=True, exist_ok=True)
        times, keys = wl.stream(side)
        for i, idx in enumerate(np.array_split(np.arange(len(times)), files)):
            target = d / f"part-{i:05d}.csv"
            if not target.exists():  # a restart finds the same files
                frame = pd.DataFrame({"time": times[idx], "key": keys[idx]})
                write_atomically(target, functools.partial(frame.to_csv, index=False))
        paths.append(d)
    return paths[0], paths[1]
