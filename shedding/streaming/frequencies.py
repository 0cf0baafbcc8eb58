"""The static frequency table of the stream join: read from a file, counted from the sources, or
split by shard.

PROB and LIFE rank tuples by the partner side's key probabilities (Das, Gehrke, Riedewald, SIGMOD
2003, §3.3); the paper's experiments take them from a frequency table over the whole stream. The
table has one row per key with the R and S counts (``key, count_r, count_s``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from shedding.atomic import write_atomically
from shedding.datasets.files import check_file, format_of
from shedding.errors import ShedError
from shedding.online.estimators import StaticEstimator
from shedding.streaming.partition import shard_of
from shedding.streaming.sources import StreamSource


def load_frequency_table(path: str) -> StaticEstimator:
    """A static frequency table: a CSV or Parquet file with columns key, count_r, count_s."""
    p = Path(path)
    check_file(p, "a frequency table (key, count_r, count_s)")
    fmt = format_of(p)
    try:
        frame = pd.read_csv(p) if fmt == "csv" else pd.read_parquet(p)
    except Exception:  # pandas' and pyarrow's errors come in many types: the file is not a table
        kind = "CSV text" if fmt == "csv" else "a Parquet file"
        raise ShedError(f"frequency table {p} is not {kind} (damaged, or of another format); give a "
                        f"{fmt.upper()} file with columns key, count_r, count_s") from None
    frame.columns = [str(c).strip().lower() for c in frame.columns]
    missing = {"key", "count_r", "count_s"} - set(frame.columns)
    if missing:
        raise ShedError(f"frequency table {p} lacks columns {', '.join(sorted(missing))}; it needs key, count_r, count_s")
    try:
        keys = frame["key"].to_numpy(dtype=np.int64)
        counts = frame[["count_r", "count_s"]].to_numpy(dtype=np.float64)
    except (TypeError, ValueError):
        raise ShedError(f"frequency table {p} must hold integer keys and numeric counts") from None
    if np.any(counts < 0) or not np.all(np.isfinite(counts)):
        raise ShedError(f"frequency table {p} has negative or missing counts; counts must be >= 0")
    return table_of(keys, counts[:, 0], counts[:, 1])


def table_of(keys: np.ndarray, counts_r: np.ndarray, counts_s: np.ndarray) -> StaticEstimator:
    """A frequency table with sorted, distinct keys."""
    keys = np.asarray(keys, dtype=np.int64)
    if len(np.unique(keys)) != len(keys):
        raise ShedError("the frequency table lists a key twice; give one row per key")
    order = np.argsort(keys)
    return StaticEstimator(keys[order], np.asarray(counts_r, dtype=np.float64)[order],
                           np.asarray(counts_s, dtype=np.float64)[order])


def shard_table(table: StaticEstimator | None, shard: int, shards: int) -> StaticEstimator | None:
    """The rows of ``table`` whose keys belong to ``shard``."""
    if table is None:
        return None
    mine = shard_of(table.keys, shards) == shard
    return StaticEstimator(table.keys[mine], table.counts_r[mine], table.counts_s[mine])


def counted_table(spark, r: StreamSource, s: StreamSource, kept: Path) -> StaticEstimator:
    """The table counted once from the files present in both sources, kept at ``kept`` (a restart
    must use the same table, whatever files arrived since)."""
    if not kept.exists():
        from pyspark.sql import functions as F

        def counts(src: StreamSource, name: str):
            df = spark.read.schema(src.ddl)
            df = df.option("header", True).csv(str(src.path)) if src.fmt == "csv" else df.parquet(str(src.path))
            key = F.trim(F.col(next(c for c in src.columns if c.strip().lower() == "key")).cast("string"))
            return df.select(key.try_cast("long").alias("key")).dropna().groupBy("key").agg(F.count("*").alias(name))

        table = counts(r, "count_r").join(counts(s, "count_s"), "key", "outer").fillna(0).toPandas()
        table = table.sort_values("key")
        write_atomically(kept, lambda tmp: table.to_parquet(tmp, index=False))
    return load_frequency_table(str(kept))
