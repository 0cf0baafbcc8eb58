"""The join on the folders users really have (issue 37): files written in a loop or copied, whose
modification times tie or run against their time order, and Parquet written by pandas (naive
datetimes, nanoseconds); each equal to an independent join (pandas merge). A file that arrives
named before one already read is counted, reported and, with strict, stops the query."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from pyspark.sql.streaming.datasource import ReadMaxFiles
from pyspark.sql.types import StringType, StructField, StructType

from helpers import assert_one_line_error
from shedding.errors import ShedError
from shedding.streaming.event_time import TIME_LIMIT
from shedding.streaming.folder_source import FolderReader, file_names, folder_of, initial_offset, next_offset
from shedding.streaming.job import StreamJob, run_on
from shedding.streaming.paths import library_path
from shedding.streaming.results import PAIRS, progress_line, read_table
from shedding.streaming.shard import JoinSpec
from shedding.streaming.sources import inspect_source, source_files
from shedding.streaming.spark_join import semantic_window_join

FILES, ROWS = 6, 500


def write_streams(root, times_of, fmt: str, mtime) -> dict[str, pd.DataFrame]:
    """R and S as ``FILES`` files each (``part-i``, rows in time order across files), file i with
    modification time ``mtime(i)``; returns both streams whole."""
    rng = np.random.default_rng(7)
    whole = {}
    for name in ("r", "s"):
        (root / name).mkdir()
        parts = []
        for i in range(FILES):
            part = pd.DataFrame({"time": times_of(np.arange(i * ROWS, (i + 1) * ROWS)),
                                 "key": rng.integers(0, 40, ROWS)})
            path = root / name / f"part-{i:02d}.{fmt}"
            part.to_csv(path, index=False) if fmt == "csv" else part.to_parquet(path)
            os.utime(path, (mtime(i), mtime(i)))
            parts.append(part)
        whole[name] = pd.concat(parts, ignore_index=True)
    return whole


def merged(whole: dict[str, pd.DataFrame], steps, window: int) -> list[tuple]:
    """The exact window join by pandas: keys equal, time steps less than ``window`` apart."""
    m = whole["r"].assign(step=steps(whole["r"]["time"])).merge(
        whole["s"].assign(step=steps(whole["s"]["time"])), on="key")
    m = m[(m["step_x"] - m["step_y"]).abs() < window]
    return sorted(zip(m["key"], m["time_x"], m["time_y"]))


@pytest.mark.spark
def test_files_whose_times_run_against_their_order_join_exactly(spark, tmp_path):
    """Also: every other file of S writes its columns as key,time (re-exported by another tool),
    read by its header's names (by position, those files' pairs were lost)."""
    whole = write_streams(tmp_path, lambda t: t, "csv", lambda i: 2_000_000 - i)  # the newest file first
    for i in range(1, FILES, 2):
        path = tmp_path / "s" / f"part-{i:02d}.csv"
        pd.read_csv(path)[["key", "time"]].to_csv(path, index=False)
        os.utime(path, (2_000_000 - i, 2_000_000 - i))
    src = [inspect_source(tmp_path / n, None, f"stream {n}") for n in ("r", "s")]
    summary = run_on(spark, StreamJob(*src, tmp_path / "out", tmp_path / "ck", JoinSpec(300, 0, "none"),
                                      max_files_per_trigger=1))
    assert summary["batches"] == FILES and summary["late"] == 0 and summary["skipped_files"] == 0
    pairs = read_table(tmp_path / "out", PAIRS)
    assert sorted(zip(pairs["key"], pairs["r_time"], pairs["s_time"])) == merged(whole, lambda t: t, 300)


@pytest.mark.spark
def test_pandas_naive_datetimes_in_parquet_with_equal_file_times_join_as_pandas_merge(tmp_path):
    start = pd.Timestamp("2024-05-01 12:00:00")  # naive: datetime64[ns], TIMESTAMP_NTZ to Spark
    whole = write_streams(tmp_path, lambda t: start + pd.to_timedelta(t * 1.37, unit="s"), "parquet",
                          lambda i: 1_000_000)  # one modification time for all, as a loop writes them
    proc = subprocess.run([sys.executable, "-m", "shedding.cli", "stream-join", "--r", str(tmp_path / "r"),
                           "--s", str(tmp_path / "s"), "--time-step", "1 second", "--window", "5 minutes",
                           "--shedding", "none", "--max-files-per-trigger", "1", "--master", "local[2]",
                           "--out", str(tmp_path / "out"), "--json"], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    summary = json.loads(proc.stdout)
    assert summary["late"] == 0 and summary["bad"] == 0 and summary["batches"] == FILES
    pairs = read_table(tmp_path / "out", PAIRS)
    assert str(pairs["r_time"].dtype).startswith("datetime64") and pairs["r_time"].dt.tz is None  # still naive
    seconds = lambda t: (t - pd.Timestamp("1970-01-01")) // pd.Timedelta("1s")  # noqa: E731
    assert sorted(zip(pairs["key"], pairs["r_time"], pairs["s_time"])) == merged(whole, seconds, 300)


def test_a_file_named_before_one_already_read_is_counted_reported_and_refused_when_strict(tmp_path):
    (tmp_path / "b.csv").write_text("time,key\n1,1\n")
    (tmp_path / "c.csv").write_text("time,key\n2,1\n")
    schema = StructType([StructField("time", StringType()), StructField("key", StringType())])
    options = {"path": str(tmp_path), "fmt": "csv", "maxFiles": "1"}
    first = FolderReader(options, schema).latestOffset(initial_offset(str(tmp_path), "csv"), ReadMaxFiles(1))
    (tmp_path / "a.csv").write_text("time,key\n0,1\n")  # arrives after b.csv was taken
    later = FolderReader(options, schema).latestOffset(first, ReadMaxFiles(1))
    assert later["last"] == "c.csv" and later["skipped"] == 1
    line = progress_line({"batchId": 1, "sources": [{"numInputRows": 1, "endOffset": json.dumps(later)}],
                          "observedMetrics": {}})
    assert line.startswith("batch 1: 1 row (0 rows/s), 0 pairs; state 0 tuples (0 bytes), ")
    assert line.endswith("1 file skipped: it arrived named before files already read")
    with pytest.raises(ShedError) as exc:
        FolderReader(options | {"strict": "true"}, schema).latestOffset(first, ReadMaxFiles(1))
    assert_one_line_error(exc, "1 file named before 'b.csv'", "arrived after it", "strict")
    assert next_offset(["a.csv", "b.csv", "c.csv"], later, None) == later


@pytest.mark.spark
def test_one_file_per_stream_gzip_csv_and_parquet_joins_as_pandas_merge(spark, tmp_path):
    """A source may be one file (a finished export), read as a folder holding it alone; R is a
    gzip-compressed CSV file (whose header the reader must decompress too), S a Parquet file, each
    in a folder with other files the job must not read."""
    whole = write_streams(tmp_path, lambda t: t, "parquet", lambda i: 1_000_000)
    one = {n: whole[n].sort_values("time", kind="stable") for n in ("r", "s")}
    one["r"].to_csv(tmp_path / "r" / "all.csv.gz", index=False)
    one["s"].to_parquet(tmp_path / "s" / "all.parquet")
    src = [inspect_source(tmp_path / n / f, None, f"stream {n}") for n, f in (("r", "all.csv.gz"), ("s", "all.parquet"))]
    assert [s.fmt for s in src] == ["csv", "parquet"]
    summary = run_on(spark, StreamJob(*src, tmp_path / "out", tmp_path / "ck", JoinSpec(300, 0, "none"),
                                      max_files_per_trigger=1))
    assert summary["batches"] == 1 and summary["arrivals"] == 2 * FILES * ROWS and summary["bad"] == 0
    pairs = read_table(tmp_path / "out", PAIRS)
    assert sorted(zip(pairs["key"], pairs["r_time"], pairs["s_time"])) == merged(whole, lambda t: t, 300)


def test_a_folder_whose_files_are_in_subfolders_says_so(tmp_path):
    """A partitioned dataset (``day=N/part.parquet``) is not read as a stream: the files must be
    in the folder itself. It was "cannot tell the format ...; add --format"."""
    for day in range(5):
        (tmp_path / "r" / f"day={day}").mkdir(parents=True)
        pd.DataFrame({"time": [day], "key": [1]}).to_parquet(tmp_path / "r" / f"day={day}" / "part-0.parquet")
    with pytest.raises(ShedError) as exc:
        inspect_source(tmp_path / "r", None, "stream R")
    assert_one_line_error(exc, "holds its files in subfolders (day=0, day=1, day=2, ...)", "give one subfolder")
    assert inspect_source(tmp_path / "r" / "day=1", None, "stream R").columns == ("time", "key")


def test_a_one_file_source_lists_that_file_alone_and_refuses_other_formats(tmp_path):
    (tmp_path / "a.csv").write_text("time,key\n0,1\n")
    (tmp_path / "b.csv").write_text("time,key\n1,1\n")
    assert file_names(tmp_path / "b.csv", "csv") == ["b.csv"] and file_names(tmp_path / "b.csv", "parquet") == []
    assert folder_of(tmp_path / "b.csv") == str(tmp_path) and folder_of(tmp_path) == str(tmp_path)
    assert source_files(tmp_path / "a.csv", "csv") == [tmp_path / "a.csv"]
    (tmp_path / "notes.txt").write_text("time,key\n0,1\n")
    with pytest.raises(ShedError) as exc:
        inspect_source(tmp_path / "notes.txt", None, "stream R")
    assert_one_line_error(exc, "notes.txt is neither a folder nor a .csv", "takes a folder", "or one such file")
    with pytest.raises(ShedError) as exc:
        inspect_source(tmp_path / "a.csv", "parquet", "stream R")
    assert_one_line_error(exc, "a.csv is not a parquet file")
    (tmp_path / "semi.csv").write_text("time;key\n0;1\n")
    with pytest.raises(ShedError) as exc:
        inspect_source(tmp_path / "semi.csv", None, "stream R")
    assert_one_line_error(exc, "semi.csv does not have the columns time, key", "separated by ';'")
    with pytest.raises(ShedError) as exc:
        inspect_source(tmp_path / "gone.csv", None, "stream R")
    assert_one_line_error(exc, "source not found", "gone.csv", "or one file")


@pytest.mark.spark
def test_output_folders_given_as_file_uris_are_written(spark, tmp_path):
    r = spark.createDataFrame(pd.DataFrame({"time": [1, 2, 3], "key": [5, 5, 6]}))
    s = spark.createDataFrame(pd.DataFrame({"time": [2, 9, 3], "key": [5, 5, 6]}))
    rows = semantic_window_join(r, s, window=3, memory=0, shedding="none", pairs_dir=(tmp_path / "pairs").as_uri(),
                                metrics_dir=f"file://{tmp_path}/metrics").toPandas()
    assert len(rows) == 1 and rows["metrics"].notna().all()
    pairs = read_table(tmp_path, PAIRS)
    assert sorted(zip(pairs["key"], pairs["r_time"], pairs["s_time"])) == [(5, 1, 2), (5, 2, 2), (6, 3, 3)]
    assert not list(tmp_path.glob("file:*")) and not Path("file:").exists()


def test_a_relative_output_folder_is_refused_on_a_cluster_and_resolved_locally(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ShedError) as exc:
        library_path("runs/pairs", "spark://10.0.0.1:7077", "pairs_dir")
    assert_one_line_error(exc, "pairs_dir runs/pairs is a path on this machine", "file:///shared/")
    assert library_path("runs/pairs", "local[2]", "pairs_dir") == tmp_path / "runs" / "pairs"
    assert library_path("/shared/a b", "spark://10.0.0.1:7077", "pairs_dir") == Path("/shared/a b")
    assert library_path("file:///shared/a%20b", "spark://10.0.0.1:7077", "pairs_dir") == Path("/shared/a b")


@pytest.mark.spark
def test_times_up_to_the_limit_join_and_beyond_it_are_bad_rows(spark):
    top = TIME_LIMIT - 1
    r = spark.createDataFrame(pd.DataFrame({"time": [top - 2, top - 1, top, 2**63 - 5, -1], "key": [1] * 5}))
    s = spark.createDataFrame(pd.DataFrame({"time": [top - 1, top, 2**62, -3], "key": [1] * 4}))
    rows = semantic_window_join(r, s, window=2, memory=0, shedding="none", with_metrics=True).collect()
    assert sorted((p["r_time"], p["s_time"]) for p in rows if p["metrics"] is None) == [
        (top - 2, top - 1), (top - 1, top - 1), (top - 1, top), (top, top - 1), (top, top)]
    assert sum(json.loads(p["metrics"])["bad"] for p in rows if p["metrics"] is not None) == 4


def test_a_parquet_source_with_negative_integer_times_is_refused_up_front(tmp_path):
    (tmp_path / "r").mkdir()
    pd.DataFrame({"time": [-3, 4], "key": [1, 2]}).to_parquet(tmp_path / "r" / "a.parquet")
    with pytest.raises(ShedError) as exc:
        inspect_source(tmp_path / "r", None, "stream R")
    assert_one_line_error(exc, "a.parquet has time -3", "0 to 2^61 - 1")


@pytest.mark.spark
def test_hazard_by_a_text_column_of_both_inputs_equals_the_simulator(spark):
    """group="category": the rows carry the hash of their category (Spark's xxhash64), each input
    in two partitions; the pairs equal the simulator's with the categories as groups on the same
    rows (in the join's order within a step), and so do those by the category and the key's history, and
    those of HAZARD's default under a one-sided range (auto-history). A group column with one type in R and another in S,
    one the inputs lack, or a policy without groups is refused."""
    from shedding import Workload, simulate
    from shedding.datasets.age import age_workload

    aged = age_workload(length=1200, window=60, lag_mean=20, lag_spread=4, background=0.3, skew=0.5, domain=300)
    order = np.lexsort((aged.key, aged.side, aged.time))
    wl = Workload(aged.side[order], aged.time[order], aged.key[order], 60, 0)
    category = np.array(["art", "books", "cars", None])[wl.key % 4]  # a missing value is a group of its own
    wl.meta["payload"] = pd.DataFrame({"category": category})
    frames = [spark.createDataFrame(pd.DataFrame({"time": wl.time[wl.side == s], "key": wl.key[wl.side == s],
                                                  "category": category[wl.side == s]})).repartition(2)
              for s in (0, 1)]
    for group in ("category", "category,history"):  # each shard keeps the key's history in its state
        rows = semantic_window_join(*frames, window=60, memory=20, shedding="hazard", group=group).collect()
        res = simulate(wl, "hazard", 20, estimator="online", group=group, pairs=True)
        assert sorted((p["key"], p["r_time"], p["s_time"]) for p in rows) == sorted(
            zip(wl.key[res.pairs[:, 0]], wl.time[res.pairs[:, 0]], wl.time[res.pairs[:, 1]]))
    assert len(rows) != simulate(wl, "hazard", 20, estimator="online").outputs
    other = frames[1].withColumn("category", frames[1]["key"])
    with pytest.raises(ShedError, match="^group column 'category' is string in R but bigint in S"):
        semantic_window_join(frames[0], other, window=60, memory=20, shedding="hazard", group="category")
    with pytest.raises(ShedError, match="^group is HAZARD's payload column"):
        semantic_window_join(*frames, window=60, memory=20, shedding="prob", group="category")
    with pytest.raises(ShedError, match="has no column 'gate' for group"):
        semantic_window_join(*frames, window=60, memory=20, shedding="hazard", group="gate")
    # no group given under a one-sided range: HAZARD's default there, auto-history, as the simulator's
    rows = semantic_window_join(*frames, range=(0, 59), memory=20, shedding="hazard").collect()
    res = simulate(wl.with_params(range=(0, 59)), "hazard", 20, estimator="online", pairs=True)
    assert res.params["group"] == "auto-history" and sorted((p["key"], p["r_time"], p["s_time"]) for p in rows) == \
        sorted(zip(wl.key[res.pairs[:, 0]], wl.time[res.pairs[:, 0]], wl.time[res.pairs[:, 1]]))
