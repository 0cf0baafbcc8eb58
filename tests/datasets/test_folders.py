"""A folder of files per stream (a Spark job's output, an export in parts) in the batch commands:
its stream files in name order are one stream, as ``shed stream-join`` reads the folder, with the
files Spark writes beside them (``_SUCCESS``, ``.crc``) left out; the payload columns are those
every file has; a folder without stream files, with two formats, or whose files go back in time
is refused naming the folder or the file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from helpers import assert_one_line_error
from shedding.datasets import load_two_streams
from shedding.datasets.files import payload_header, stream_table
from shedding.errors import ShedError
from shedding.exact import exact_count
from shedding.run import run_policy


def stream(seed: int, n: int = 400) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"time": np.sort(rng.integers(0, 300, n)), "key": rng.integers(0, 15, n),
                         "dest": rng.choice(["BOS", "ORD"], n), "seat": rng.integers(1, 9, n)})


def in_parts(frame: pd.DataFrame, folder: Path, cuts: list[int], fmt: str = "csv") -> None:
    """``frame`` cut at ``cuts`` into files whose names sort in order (part-10 after part-9), with
    Spark's marker files beside them."""
    folder.mkdir()
    for i, (lo, hi) in enumerate(zip([0, *cuts], [*cuts, len(frame)])):
        part = frame.iloc[lo:hi]
        name = folder / f"part-{i:05d}.{fmt}"
        part.to_csv(name, index=False) if fmt == "csv" else part.to_parquet(name, index=False)
    (folder / "_SUCCESS").write_text("")
    (folder / ".part-00000.csv.crc").write_text("crc")


def test_a_folder_is_its_files_in_name_order(tmp_path: Path) -> None:
    r, s = stream(1), stream(2)
    in_parts(r, tmp_path / "r", [100, 101, 250])
    in_parts(s, tmp_path / "s", [200], fmt="parquet")
    r.to_csv(tmp_path / "r.csv", index=False)
    s.to_csv(tmp_path / "s.csv", index=False)
    whole = load_two_streams(tmp_path / "r.csv", tmp_path / "s.csv", window=20, warmup=0)
    parts = load_two_streams(tmp_path / "r", tmp_path / "s", window=20, warmup=0)
    for field in ("side", "time", "key"):
        assert np.array_equal(getattr(parts, field), getattr(whole, field))
    assert np.array_equal(parts.meta["source_row"], whole.meta["source_row"])  # a row of its stream
    assert parts.meta["format"] == ("csv", "parquet")
    assert list(parts.meta["payload"].columns) == ["dest", "seat"]
    assert exact_count(parts) == exact_count(whole) > 0
    assert run_policy(parts, "hazard", 30, group="dest").outputs == run_policy(whole, "hazard", 30, group="dest").outputs
    assert stream_table(tmp_path / "r", ["key"])["key"].astype(int).tolist() == r["key"].tolist()


def test_payload_columns_are_those_every_file_has(tmp_path: Path) -> None:
    folder = tmp_path / "r"
    folder.mkdir()
    pd.DataFrame({"time": [0], "key": [1], "Dest": ["BOS"], "seat": [1]}).to_csv(folder / "a.csv", index=False)
    pd.DataFrame({"time": [1], "key": [1], "dest": ["ORD"]}).to_csv(folder / "b.csv", index=False)
    assert payload_header(folder, ("time", "key")) == ["Dest"]
    (tmp_path / "s.csv").write_text("time,key,dest\n1,1,BOS\n")
    wl = load_two_streams(folder, tmp_path / "s.csv", window=5, warmup=0)
    assert wl.meta["payload"]["Dest"].tolist() == ["BOS", "ORD", "BOS"]


@pytest.mark.parametrize("layout, needle", [
    ({}, "r_path {r} is a folder without .csv, .csv.gz, .parquet, .pq files"),
    ({"_SUCCESS": "", "sub/part-0.csv": "time,key\n0,1\n"}, "is a folder without"),
    ({"a.csv": "time,key\n0,1\n", "b.parquet": None}, "holds both CSV and Parquet files"),
    ({"a.csv": "time,key\n0,1\n5,1\n", "b.csv": "time,key\n3,1\n"}, "b.csv: times go backwards at row 1 (5 at the end "
     "of a.csv, then 3)"),
    ({"a.csv": "time,key\n0,1\n", "b.csv": "time,key\nx,1\n"}, "b.csv: column 'time' must hold integers, row 1 has 'x'"),
])
def test_bad_folders_are_one_line_errors(tmp_path: Path, layout: dict, needle: str) -> None:
    folder = tmp_path / "r"
    folder.mkdir()
    for name, text in layout.items():
        (folder / name).parent.mkdir(exist_ok=True)
        if text is None:
            pd.DataFrame({"time": [9], "key": [1]}).to_parquet(folder / name)
        else:
            (folder / name).write_text(text)
    (tmp_path / "s.csv").write_text("time,key\n1,1\n")
    with pytest.raises(ShedError) as exc:
        load_two_streams(folder, tmp_path / "s.csv", window=5)
    assert_one_line_error(exc, needle.replace("{r}", str(folder)))
