"""The folder source's reader without Spark: CSV fields by position as Spark's permissive reader
takes them, Parquet columns by name with pandas' nanosecond timestamps cast to microseconds."""

from __future__ import annotations

import pandas as pd
from pyspark.sql.types import LongType, StringType, StructField, StructType, TimestampNTZType

from shedding.streaming.folder_source import file_names, grouped, read_csv, read_file


def rows(path, fmt, schema, columns=None) -> list[dict]:
    return [row for batch in read_file(str(path), fmt, schema, columns) for row in batch.to_pylist()]


def test_csv_fields_by_position_short_rows_padded_long_rows_cut(tmp_path):
    (tmp_path / "a.csv").write_text("time,key,note\n1,5,x\n2,6\n3,7,y,extra\n4,,\n")
    schema = StructType([StructField(c, StringType()) for c in ("time", "key", "note")])
    got = rows(tmp_path / "a.csv", "csv", schema)  # in the file's order, ragged rows too
    assert got == [{"time": "1", "key": "5", "note": "x"}, {"time": "2", "key": "6", "note": None},
                   {"time": "3", "key": "7", "note": "y"}, {"time": "4", "key": None, "note": None}]
    narrow = StructType([StructField("note", StringType()), StructField("time", StringType())])  # two of three
    got = rows(tmp_path / "a.csv", "csv", narrow, ["time", "key", "note"])
    assert got[0] == {"note": "x", "time": "1"}
    (tmp_path / "empty.csv").write_text("")
    assert rows(tmp_path / "empty.csv", "csv", schema) == []


def test_a_csv_file_with_a_short_header_and_ragged_rows_reads_by_position(tmp_path):
    """Columns past the header's fields are nulls; a row of another width gives its fields by
    position, in the file's order (pyarrow hands such rows to a handler, apart from the others)."""
    (tmp_path / "a.csv").write_text("time\n3\n1,2\n\n5,,7\n4\n")
    table = read_csv(str(tmp_path / "a.csv"), ["time", "key"]).to_pydict()
    assert table == {"time": ["3", "1", "5", "4"], "key": [None, "2", None, None]}
    (tmp_path / "b.csv").write_text("time,key,x\n3,1\n\n1,2,3,4\n")
    assert read_csv(str(tmp_path / "b.csv"), ["time", "key"]).to_pydict() == {"time": ["3", "1"], "key": ["1", "2"]}
    (tmp_path / "c.csv").write_text("time\n3\n\n4\n")
    assert read_csv(str(tmp_path / "c.csv"), ["time", "key"]).to_pydict() == {"time": ["3", "4"], "key": [None, None]}


def test_a_gzip_csv_file_is_read_decompressed(tmp_path):
    import gzip

    with gzip.open(tmp_path / "a.csv.gz", "wt") as f:
        f.write("time,key\n1,5\n2,6,extra\n")
    schema = StructType([StructField(c, StringType()) for c in ("time", "key")])
    assert rows(tmp_path / "a.csv.gz", "csv", schema) == [{"time": "1", "key": "5"}, {"time": "2", "key": "6"}]


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


def test_a_csv_header_that_names_every_column_is_read_by_name(tmp_path):
    """A later file that writes its columns in another order (or case) is read by its header's
    names, as shed simulate reads it, not by position; a header that does not name them all is
    read by position as before."""
    (tmp_path / "a.csv").write_text("Key , time,note\n10,2,x\n11,3\n")
    assert read_csv(str(tmp_path / "a.csv"), ["time", "key", "note"]).to_pydict() == \
        {"time": ["2", "3"], "key": ["10", "11"], "note": ["x", None]}
    (tmp_path / "b.csv").write_text("key,time,note\n10,2,x\n11,3,y\n")  # no ragged rows: the fast path
    assert read_csv(str(tmp_path / "b.csv"), ["time", "key"]).to_pydict() == {"time": ["2", "3"], "key": ["10", "11"]}
    (tmp_path / "c.csv").write_text("t,k\n2,10\n")
    assert read_csv(str(tmp_path / "c.csv"), ["time", "key"]).to_pydict() == {"time": ["2"], "key": ["10"]}


def test_a_damaged_file_is_named_in_one_line(tmp_path):
    """A file that arrives damaged mid-stream: the query's error names it (before: pyarrow's
    message alone, with no word of which file)."""
    import pytest
    from pyspark.sql.datasource import InputPartition

    from shedding.errors import ShedError
    from shedding.streaming.folder_source import FolderReader

    (tmp_path / "part-001.parquet").write_bytes(b"\x00garbage" * 50)
    schema = StructType([StructField("time", LongType()), StructField("key", LongType())])
    reader = FolderReader({"path": str(tmp_path), "fmt": "parquet"}, schema)
    with pytest.raises(ShedError) as caught:
        list(reader.read(InputPartition([str(tmp_path / "part-001.parquet")])))
    text = str(caught.value)
    assert "part-001.parquet cannot be read as PARQUET" in text and "\n" not in text and "fix or remove" in text
