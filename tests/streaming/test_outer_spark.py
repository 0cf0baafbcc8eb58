"""Outer joins, time ranges and downstream aggregation on Spark: a full outer join's rows equal
DuckDB's full outer join, and a windowed count after a time-range join, in append mode under a
watermark on the output's ``event_time``, equals DuckDB's count of the same pairs for every window
the watermark closed."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from pyspark.sql import functions as F

from duckdb_oracle import inner_pairs, windowed_counts, without_partner
from shedding.streaming.spark_join import configure_session, semantic_window_join

START = pd.Timestamp("2026-01-01", tz="UTC")


def test_a_full_outer_join_gives_every_tuple_without_a_partner_once(spark):
    configure_session(spark, 2)
    rng = np.random.default_rng(5)
    r, s = (pd.DataFrame({"time": np.sort(rng.integers(0, 3000, 900)), "key": rng.integers(0, 300, 900)})
            for _ in range(2))
    out = semantic_window_join(spark.createDataFrame(r), spark.createDataFrame(s), window=8, memory=0,
                               shedding="none", how="full_outer", shards=2).toPandas()
    pairs = out[out["r_time"].notna() & out["s_time"].notna()]
    condition = "abs(s.time - r.time) <= 7"
    assert sorted(zip(pairs["key"], pairs["r_time"].astype(int), pairs["s_time"].astype(int))) == \
        inner_pairs(r, s, condition)
    lone_r, lone_s = without_partner(r, s, condition)
    rows_r, rows_s = out[out["s_time"].isna()], out[out["r_time"].isna()]
    assert sorted(zip(rows_r["key"], rows_r["r_time"].astype(int))) == lone_r
    assert sorted(zip(rows_s["key"], rows_s["s_time"].astype(int))) == lone_s
    assert len(lone_r) and len(lone_s) and not out["shed"].any()  # nothing is shed without shedding


def write_files(folder: Path, frame: pd.DataFrame, files: int) -> None:
    """``frame`` as Parquet files in time order, file i older than file i + 1 (Spark's file source
    reads by modification time)."""
    folder.mkdir(parents=True)
    for i, rows in enumerate(np.array_split(np.arange(len(frame)), files)):
        path = folder / f"part-{i:03d}.parquet"
        frame.iloc[rows].to_parquet(path, index=False)
        os.utime(path, (1_000_000 + i, 1_000_000 + i))


@pytest.mark.parametrize("naive", [False, True])
def test_a_windowed_count_after_the_join_in_append_mode_equals_duckdb(spark, tmp_path, naive):
    """The join over a one-sided time range (an S tuple up to 10 minutes after its R tuple) as a
    stream, with Spark's watermark on ``event_time``: every window the watermark closed is emitted
    once with the count of its pairs (by the later of their times). ``naive``: naive datetimes, as
    pandas writes them (TIMESTAMP_NTZ, on which Spark refuses a watermark): ``event_time`` is a
    TIMESTAMP, the wall-clock time read as UTC."""
    configure_session(spark, 1)
    rng = np.random.default_rng(0)
    frames = {}
    for side in "rs":
        seconds = np.sort(rng.integers(0, 6 * 3600, 3000))
        frames[side] = pd.DataFrame({"time": (START + pd.to_timedelta(seconds, unit="s")).astype("datetime64[us, UTC]"),
                                     "key": rng.integers(0, 50, 3000)})
        write_files(tmp_path / side, frames[side].assign(time=frames[side]["time"].dt.tz_localize(None))
                    if naive else frames[side], 6)
    read = {side: spark.readStream.schema(f"time {'timestamp_ntz' if naive else 'timestamp'}, key long")
            .option("maxFilesPerTrigger", 1).parquet(str(tmp_path / side)) for side in "rs"}
    pairs = semantic_window_join(read["r"], read["s"], range=("0 seconds", "10 minutes"), memory=10**6,
                                 shedding="none")
    counts = pairs.withWatermark("event_time", "0 seconds").groupBy(F.window("event_time", "30 minutes")).count()
    query = (counts.writeStream.outputMode("append").format("parquet").option("path", str(tmp_path / "counts"))
             .option("checkpointLocation", str(tmp_path / "ck")).trigger(availableNow=True).start())
    query.awaitTermination()
    watermark = pd.Timestamp(query.lastProgress["eventTime"]["watermark"])
    got = spark.read.parquet(str(tmp_path / "counts")).toPandas()
    got = dict(zip(got["window"].map(lambda w: pd.Timestamp(w["start"], tz="UTC")), got["count"]))

    expected = windowed_counts(frames["r"], frames["s"], "s.time - r.time BETWEEN INTERVAL 0 MINUTE AND INTERVAL 10 MINUTE", 30)
    closed = {start: n for start, n in expected.items() if start + pd.Timedelta(minutes=30) <= watermark}
    assert len(closed) >= 10 and got == closed
