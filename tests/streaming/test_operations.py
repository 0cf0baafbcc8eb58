"""Running the job as an operator would: paths a cluster can share, sources read as Spark reads
them (damaged files are bad rows, a restart reads no file again), and CSV values by one rule.
The command's refusals of such paths are in the bad-input table (tests/cli/test_bad_input.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from helpers import assert_one_line_error
from shedding.errors import ShedError
from shedding.streaming.job import SOURCES, StreamJob, job_sources, run_on
from shedding.streaming.paths import shared_path
from shedding.streaming.results import PAIRS, read_table
from shedding.streaming.shard import JoinSpec
from shedding.streaming.sources import inspect_source


def test_paths_are_resolved_on_the_driver_and_shared_on_a_cluster(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert shared_path("runs/x", "local[2]", "out") == tmp_path / "runs" / "x"
    with pytest.raises(ShedError) as exc:
        shared_path("runs/x", "spark://10.0.0.1:7077", "out")
    assert_one_line_error(exc, "out runs/x is a path on this machine", "file:///shared/")
    assert shared_path("file:///shared/runs/x", "spark://10.0.0.1:7077", "out") == Path("/shared/runs/x")


def test_a_damaged_first_file_is_bad_rows_not_a_refusal(tmp_path):
    src = tmp_path / "r"
    src.mkdir()
    (src / "zz-garbage.csv").write_text("1,2,3,4,5,6\n")
    pd.DataFrame({"time": [1, 2], "key": [3, 4], "note": ["a", "b"]}).to_csv(src / "a.csv", index=False)
    os.utime(src / "zz-garbage.csv", (1_000, 1_000))  # the oldest: Spark reads it first
    found = inspect_source(src, None, "stream R")
    assert found.columns == ("time", "key", "note")
    assert found.types == {"time": "bigint", "key": "bigint", "note": "string"}


def test_a_restart_reads_the_sources_as_the_first_start_found_them(tmp_path):
    ck = tmp_path / "ck"
    ck.mkdir()
    kept = {"path": str(tmp_path / "r"), "fmt": "csv", "columns": ["time", "key"], "types": {"time": "bigint",
                                                                                          "key": "string"}}
    (ck / SOURCES).write_text(json.dumps({"r": kept, "s": kept}))
    r, s = job_sources(ck, tmp_path / "nowhere", tmp_path / "nowhere", None)  # no file is read
    assert r.types == {"time": "bigint", "key": "string"} and r.path == tmp_path / "r"


def test_csv_values_by_one_rule_and_payload_types_kept(spark, tmp_path):
    for name in ("r", "s"):
        (tmp_path / name).mkdir()
        pd.DataFrame({"time": [1, 2, 3], "key": [5, 6, 5], "n": [1, 2, 3], "x": [0.5, 1.5, 2.5]}).to_csv(
            tmp_path / name / "a.csv", index=False)
        # a later file as pandas writes an int column with a gap: 4.0, 5.0 (and one time that is no whole number)
        pd.DataFrame({"time": [4.0, 5.0, None, 6.5], "key": [5, 6, 5, 5], "n": [4, 5, 6, 7],
                      "x": [3.5, 4.5, 5.5, 6.5]}).to_csv(tmp_path / name / "b.csv", index=False)
        os.utime(tmp_path / name / "b.csv", (2_000_000_000, 2_000_000_000))
    src = [inspect_source(tmp_path / n, None, f"stream {n}") for n in ("r", "s")]
    spec = JoinSpec(3, 0, "none", payload_r=("n", "x"), payload_s=("n", "x"))
    summary = run_on(spark, StreamJob(*src, tmp_path / "out", tmp_path / "ck", spec, max_files_per_trigger=1))
    assert summary["bad"] == 4 and summary["arrivals"] == 10  # the empty and the 6.5 time, per stream
    pairs = read_table(tmp_path / "out", PAIRS)
    assert pairs["r_n"].dtype == "int64" and pairs["s_x"].dtype == "float64"
    assert sorted(zip(pairs["key"], pairs["r_time"], pairs["s_time"])) == sorted(
        [(5, a, b) for a in (1, 3, 4) for b in (1, 3, 4) if abs(a - b) <= 2] +
        [(6, a, b) for a in (2, 5) for b in (2, 5) if abs(a - b) <= 2])
