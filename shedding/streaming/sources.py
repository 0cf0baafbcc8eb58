"""The file sources of ``shed stream-join``: checked up front, and synthetic ones written out.

Each stream is a directory of CSV or Parquet files (``time,key[,payload...]``) that the file
source of Structured Streaming reads as files arrive. :func:`inspect_source` checks a directory
before the query starts (it exists, holds files, has time and key columns with integers), so a
wrong path or file is a one-line error, not a failed query; :func:`write_zipf_sources` writes the
paper's synthetic workload (§4) as such directories.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from shedding.datasets.files import FORMATS
from shedding.errors import ShedError


@dataclass(frozen=True)
class StreamSource:
    """One input directory: its format and columns (as in its first file)."""

    path: Path
    fmt: str
    columns: tuple[str, ...]
    ddl: str  # the reader's schema

    def reader(self, spark, max_files: int | None):
        read = spark.readStream.schema(self.ddl)
        if max_files is not None:
            read = read.option("maxFilesPerTrigger", max_files)
        if self.fmt == "csv":
            return read.option("header", True).option("mode", "PERMISSIVE").csv(str(self.path))
        return read.parquet(str(self.path))


def source_files(path: Path, fmt: str) -> list[Path]:
    """The files of format ``fmt`` in a source directory, by name."""
    exts = [e for e, f in FORMATS.items() if f == fmt]
    return sorted(p for p in path.iterdir() if p.is_file() and any(p.name.lower().endswith(e) for e in exts))


def inspect_source(path: Path, fmt: str | None, what: str) -> StreamSource:
    """Check one source directory up front: it exists, holds files, has time and key columns, and
    its first file's times and keys are integers (later garbage rows are counted and skipped)."""
    if not path.exists():
        raise ShedError(f"source directory not found: {path}; give the directory the {what} files arrive in")
    if not path.is_dir():
        raise ShedError(f"{path} is not a directory; --r and --s take a directory of CSV or Parquet files")
    if fmt is None:
        found = {f for e, f in FORMATS.items() for p in path.iterdir() if p.name.lower().endswith(e)}
        if len(found) != 1:
            raise ShedError(f"cannot tell the format of {path} ({'mixed files' if found else 'no .csv or .parquet files'}); "
                            "add --format csv or parquet")
        fmt = found.pop()
    if fmt not in ("csv", "parquet"):
        raise ShedError(f"unknown --format {fmt!r}; choose csv or parquet")
    files = source_files(path, fmt)
    if not files:
        raise ShedError(f"no {fmt} files in {path} yet; the first file fixes the columns, so add one before starting")
    first = files[0]
    try:
        if fmt == "csv":
            sample = pd.read_csv(first, dtype=str, nrows=1000)
            columns, types = [str(c) for c in sample.columns], None
        else:
            import pyarrow.parquet as pq

            schema = pq.read_schema(first)
            columns, types = list(schema.names), {f.name: f.type for f in schema}
    except Exception as exc:  # pandas/pyarrow raise many types for corrupt files
        raise ShedError(f"cannot read {first} as {fmt} ({' '.join(str(exc).split())[:150]}); fix or remove it") from None
    lower = {c.strip().lower(): c for c in columns}
    missing = [c for c in ("time", "key") if c not in lower]
    if missing:
        raise ShedError(f"{what} file {first.name} lacks column {', '.join(missing)} (it has "
                        f"{', '.join(columns) or 'none'}); sources need time,key[,payload...]")
    for col in ("time", "key"):
        if types is not None:
            import pyarrow as pa

            if not pa.types.is_integer(types[lower[col]]):
                raise ShedError(f"{what} column {col} in {first.name} has type {types[lower[col]]}; "
                                f"{col}s must be integers")
            continue
        text = sample[lower[col]].dropna().astype(str).str.strip()
        if len(text) and not text.str.fullmatch(r"[+-]?\d+").any():
            raise ShedError(f"{what} column {col} in {first.name} holds no integers (first value {text.iloc[0]!r}); "
                            f"{col}s must be integers")
    if types is None:
        ddl = ", ".join(f"`{c}` string" for c in columns)
    else:
        from pyspark.sql.pandas.types import from_arrow_type

        ddl = ", ".join(f"`{name}` {from_arrow_type(t).simpleString()}" for name, t in types.items())
    return StreamSource(path, fmt, tuple(columns), ddl)


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
    if files < 1 or length < 1:
        raise ShedError(f"--length and --files must be >= 1, got {length} and {files}")
    wl = zipf_workload(parsed[0][0], parsed[0][1], length, seed, "independent", 1, 0, skew_s=parsed[1][0])
    paths = []
    for side, name in ((0, "r"), (1, "s")):
        d = folder / name
        d.mkdir(parents=True, exist_ok=True)
        times, keys = wl.stream(side)
        for i, idx in enumerate(np.array_split(np.arange(len(times)), files)):
            target = d / f"part-{i:05d}.csv"
            if not target.exists():  # a restart finds the same files
                pd.DataFrame({"time": times[idx], "key": keys[idx]}).to_csv(target, index=False)
                os.utime(target, (1_000_000 + i, 1_000_000 + i))  # the file source reads in this order
        paths.append(d)
    return paths[0], paths[1]
