"""The folder source's reader without Spark: CSV fields by position as Spark's permissive reader
takes them, Parquet columns by name with pandas' nanosecond timestamps cast to microseconds."""

from __future__ import annotations

import pandas as pd
from pyspark.sql.types import LongType, StringType, StructField, StructType, TimestampNTZType

from shedding.streaming.folder_source import file_names, grouped, read_file


def rows(path, fmt, schema, columns=None) -> list[dict]:
    return [row for batch in read_file(str(path), fmt, schema, columns) for row in batch.to_pylist()]


def test_csv_fields_by_position_short_rows_padded_long_rows_cut(tmp_path):
    (tmp_path / "a.csv").write_text("time,key,note\n1,5,x\n2,6\n3,7,y,extra\n4,,\n")
    schema = StructType([StructField(c, StringType()) for c in ("time", "key", "note")])
    got = sorted(rows(tmp_path / "a.csv", "csv", schema), key=lambda r: r["time"])
    assert got == [{"time": "1", "key": "5", "note": "x"}, {"time": "2", "key": "6", "note": None},
                   {"time": "3", "key": "7", "note": "y"}, {"time": "4", "key": None, "note": None}]
    narrow = StructType([StructField("note", StringType()), StructField("time", StringType())])  # two of three
    got = rows(tmp_path / "a.csv", "csv", narrow, ["time", "key", "note"])
    assert sorted(got, key=lambda r: r["time"])[0] == {"note": "x", "time": "1"}
    (tmp_path / "empty.csv").write_text("")
    assert rows(tmp_path / "empty.csv", "csv", schema) == []


def test_parquet_by_name_with_nanosecond_timestamps_and_a_missing_column(tmp_path):
    times = pd.to_datetime(["2024-01-01 00:00:01.000001999", "2024-01-01 00:00:02.000000000"])  # datetime64[ns], naive
    pd.DataFrame({"key": [1, 2], "time": times}).to_parquet(tmp_path / "a.parquet")
    schema = StructType([StructField("time", TimestampNTZType()), StructField("key", LongType()),
                         StructField("note", StringType())])
    got = rows(tmp_path / "a.parquet", "parquet", schema)
    assert [r["key"] for r in got] == [1, 2] and all(r["note"] is None for r in got)
    assert got[0]["time"] == pd.Timestamp("2024-01-01 00:00:01.000001").to_pydatetime()  # truncated to us


def test_files_in_name_order_without_hidden_ones(tmp_path):
    for name in ("b.csv", "a.csv", "_SUCCESS", ".a.csv.crc", "c.parquet", "A.CSV"):
        (tmp_path / name).write_text("")
    assert file_names(tmp_path, "csv") == ["A.CSV", "a.csv", "b.csv"]


def test_a_batchs_files_go_to_at_most_one_task_per_core_in_name_order():
    paths = [f"p{i}" for i in range(7)]
    assert grouped(paths, 3) == [["p0", "p1"], ["p2", "p3"], ["p4", "p5", "p6"]]
    assert grouped(paths, None) == [[p] for p in paths] and grouped(paths[:2], 8) == [["p0"], ["p1"]]
    assert grouped([], 4) == []
