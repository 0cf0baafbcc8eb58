"""Tests for shedding.datasets: Zipf generators and CSV/Parquet loaders."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import assert_one_line_error
from shedding.datasets import (
    CORRELATIONS,
    load_two_streams,
    load_workload,
    s_value_map,
    write_workload,
    zipf_probabilities,
    zipf_workload,
)
from shedding.errors import ShedError
from shedding.datasets.formats import separator_hint
from shedding.model import R, S, Workload


def top_value(keys: np.ndarray, domain: int) -> int:
    return int(np.argmax(np.bincount(keys, minlength=domain)))


# ---------------------------------------------------------------- Zipf generator


def test_zipf_defaults_match_paper_setup():
    wl = zipf_workload()
    assert isinstance(wl, Workload)
    assert wl.n_r == wl.n_s == 5600
    assert wl.window == 400 and wl.warmup == 800
    r_time, r_key = wl.stream(R)
    s_time, s_key = wl.stream(S)
    assert np.array_equal(r_time, np.arange(5600)) and np.array_equal(s_time, np.arange(5600))
    assert r_key.min() >= 0 and r_key.max() < 50 and s_key.min() >= 0 and s_key.max() < 50
    # tuple-synchronous and R before S within a time
    assert np.array_equal(wl.side[:4], [R, S, R, S])
    assert wl.name == "zipf(1.0, D=50, independent, seed=0)"
    assert wl.meta == {
        "generator": "zipf", "skew": 1.0, "skew_s": 1.0, "domain": 50, "length": 5600,
        "seed": 0, "correlation": "independent",
    }


@pytest.mark.parametrize("correlation", CORRELATIONS)
def test_zipf_deterministic_per_seed(correlation):
    a = zipf_workload(seed=7, length=500, correlation=correlation)
    b = zipf_workload(seed=7, length=500, correlation=correlation)
    assert np.array_equal(a.side, b.side) and np.array_equal(a.time, b.time)
    assert np.array_equal(a.key, b.key)


def test_zipf_different_seeds_differ():
    a, b = zipf_workload(seed=1, length=500), zipf_workload(seed=2, length=500)
    assert not np.array_equal(a.stream(R)[1], b.stream(R)[1])
    assert not np.array_equal(a.stream(S)[1], b.stream(S)[1])
    assert not np.array_equal(s_value_map(50, "independent", 1), s_value_map(50, "independent", 2))


def test_r_keys_do_not_depend_on_correlation_or_skew_s():
    base = zipf_workload(seed=3, length=300)
    for correlation in CORRELATIONS:
        other = zipf_workload(seed=3, length=300, correlation=correlation, skew_s=0.0)
        assert np.array_equal(base.stream(R)[1], other.stream(R)[1])


def test_zipf_probabilities_shape():
    p = zipf_probabilities(1.0, 4)
    expected = np.array([1, 1 / 2, 1 / 3, 1 / 4])
    assert np.allclose(p, expected / expected.sum())
    assert np.allclose(zipf_probabilities(0.0, 5), 0.2)
    assert np.allclose(zipf_probabilities(2.5, 1), 1.0)


def test_top_frequency_increases_with_skew():
    tops = []
    for skew in (0.0, 0.5, 1.0, 1.5, 2.0):
        keys = zipf_workload(skew=skew, length=20000, seed=11, correlation="same").stream(R)[1]
        tops.append(np.bincount(keys, minlength=50).max() / len(keys))
    assert all(a < b for a, b in zip(tops, tops[1:])), tops
    # uniform: top frequency near 1/50; Zipf(2): near 1/zeta_50(2) ~ 0.62
    assert tops[0] < 0.03
    assert abs(tops[-1] - zipf_probabilities(2.0, 50)[0]) < 0.02


@pytest.mark.parametrize("skew", [0.0, 1.0, 1.7])
def test_zipf_frequencies_chi_square(skew):
    length, domain = 20000, 20
    wl = zipf_workload(skew=skew, domain=domain, length=length, seed=5, correlation="same")
    expected = zipf_probabilities(skew, domain) * length
    for which in (R, S):
        observed = np.bincount(wl.stream(which)[1], minlength=domain)
        chi2 = float(((observed - expected) ** 2 / expected).sum())
        # dof = 19: mean 19, sd ~6.2; allow a very generous bound
        assert chi2 < 80, (which, chi2)


def test_skew_s_gives_s_its_own_skew():
    wl = zipf_workload(skew=1.5, skew_s=0.0, length=20000, seed=2, correlation="same")
    r_top = np.bincount(wl.stream(R)[1], minlength=50).max() / 20000
    s_top = np.bincount(wl.stream(S)[1], minlength=50).max() / 20000
    assert r_top > 0.3 and s_top < 0.035
    assert wl.meta["skew_s"] == 0.0 and "1.5/0.0" in wl.name


def test_correlation_same_has_same_top_value():
    wl = zipf_workload(skew=1.0, length=10000, seed=4, correlation="same")
    assert top_value(wl.stream(R)[1], 50) == top_value(wl.stream(S)[1], 50) == 0


def test_correlation_reversed_top_r_is_least_likely_s():
    domain = 50
    wl = zipf_workload(skew=1.0, domain=domain, length=10000, seed=4, correlation="reversed")
    r_top = top_value(wl.stream(R)[1], domain)
    mapping = s_value_map(domain, "reversed")
    assert r_top == 0 and mapping[-1] == r_top  # least likely S rank maps to R's top value
    s_counts = np.bincount(wl.stream(S)[1], minlength=domain)
    assert top_value(wl.stream(S)[1], domain) == domain - 1
    assert s_counts[r_top] <= np.sort(s_counts)[5]  # among S's rarest values


@pytest.mark.parametrize("seed", [0, 1, 99])
def test_correlation_independent_is_permutation(seed):
    domain = 30
    mapping = s_value_map(domain, "independent", seed)
    assert sorted(mapping.tolist()) == list(range(domain))
    assert not np.array_equal(mapping, np.arange(domain))
    wl = zipf_workload(skew=1.2, domain=domain, length=8000, seed=seed)
    s_keys = wl.stream(S)[1]
    assert top_value(s_keys, domain) == mapping[0]
    # S's keys are the image of its ranks under the permutation: inverting it gives a Zipf shape
    inverse = np.argsort(mapping)
    rank_counts = np.bincount(inverse[s_keys], minlength=domain)
    assert rank_counts[0] == rank_counts.max()


@settings(max_examples=40, deadline=None)
@given(
    skew=st.floats(min_value=0, max_value=5, allow_nan=False),
    domain=st.integers(min_value=1, max_value=200),
    length=st.integers(min_value=0, max_value=300),
    seed=st.integers(min_value=0, max_value=2**32),
    correlation=st.sampled_from(CORRELATIONS),
)
def test_zipf_values_in_domain(skew, domain, length, seed, correlation):
    wl = zipf_workload(skew=skew, domain=domain, length=length, seed=seed, correlation=correlation, window=5)
    assert wl.n_r == wl.n_s == length
    if length:
        assert wl.key.min() >= 0 and wl.key.max() < domain
    again = zipf_workload(skew=skew, domain=domain, length=length, seed=seed, correlation=correlation, window=5)
    assert np.array_equal(wl.key, again.key)


def test_zipf_empty_and_single_value_domain():
    assert len(zipf_workload(length=0)) == 0
    wl = zipf_workload(domain=1, length=10, window=3, warmup=0)
    assert np.all(wl.key == 0) and wl.warmup == 0


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"skew": -0.5}, ["skew", ">= 0"]),
        ({"skew": math.nan}, ["skew"]),
        ({"skew": math.inf}, ["skew"]),
        ({"skew": "1"}, ["skew"]),
        ({"skew_s": -1.0}, ["skew_s"]),
        ({"domain": 0}, ["domain", ">= 1"]),
        ({"domain": 2.5}, ["domain"]),
        ({"length": -1}, ["length", ">= 0"]),
        ({"seed": -1}, ["seed"]),
        ({"correlation": "anti"}, ["anti", "independent", "same", "reversed"]),
        ({"window": 0}, ["window"]),
        ({"warmup": -3}, ["warmup"]),
    ],
)
def test_zipf_bad_parameters(kwargs, words):
    with pytest.raises(ShedError) as excinfo:
        zipf_workload(**{"length": 10, **kwargs})
    assert_one_line_error(excinfo, *words)


# ---------------------------------------------------------------- files: round trips


def write_text(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.mark.parametrize("ext", [".csv", ".csv.gz", ".parquet", ".pq"])
def test_round_trip(tmp_path, ext):
    wl = zipf_workload(length=200, seed=9, window=20)
    path = write_workload(wl, tmp_path / f"w{ext}")
    back = load_workload(path, window=20)
    assert np.array_equal(back.side, wl.side)
    assert np.array_equal(back.time, wl.time)
    assert np.array_equal(back.key, wl.key)
    assert back.window == 20 and back.warmup == 40
    assert np.array_equal(back.meta["source_row"], np.arange(len(wl)))
    assert back.meta["format"] == ("csv" if "csv" in ext else "parquet")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    data=st.lists(
        st.tuples(st.sampled_from([R, S]), st.integers(0, 5), st.integers(-(2**62), 2**62)), max_size=30
    ),
    ext=st.sampled_from([".csv", ".parquet"]),
)
def test_round_trip_property(tmp_path, data, ext):
    data = sorted(data, key=lambda row: row[1])  # stable: keeps the order among equal times
    side = np.array([d[0] for d in data], dtype=np.int8)
    time = np.array([d[1] for d in data], dtype=np.int64)
    key = np.array([d[2] for d in data], dtype=np.int64)
    wl = Workload(side, time, key, window=3, warmup=1)
    back = load_workload(write_workload(wl, tmp_path / f"p{ext}"), window=3, warmup=1)
    assert np.array_equal(back.side, wl.side) and np.array_equal(back.time, wl.time)
    assert np.array_equal(back.key, wl.key)


def test_one_file_interleaved_streams_stable_sort(tmp_path):
    path = write_text(
        tmp_path / "w.csv",
        "Stream,TIME,key,extra\nr,1,4,x\ns,0,5,y\nR,1,7,z\nS,2,3,w\nR,2,1,v\n",
    )
    wl = load_workload(path, window=2)
    assert wl.time.tolist() == [0, 1, 1, 2, 2]
    assert wl.side.tolist() == [S, R, R, S, R]  # file order among equal times
    assert wl.key.tolist() == [5, 4, 7, 3, 1]
    assert wl.meta["source_row"].tolist() == [1, 0, 2, 3, 4]
    assert wl.name == "w.csv"


def test_csv_accepts_integral_floats_and_spaces(tmp_path):
    path = write_text(tmp_path / "w.csv", "stream,time,key\n R , 0 , 3.0\nS,1.0,+4\n")
    wl = load_workload(path, window=2)
    assert wl.key.tolist() == [3, 4] and wl.time.tolist() == [0, 1]


def test_two_streams(tmp_path):
    r = write_text(tmp_path / "r.csv", "time,key\n0,1\n1,2\n1,3\n")
    s_frame = pd.DataFrame({"time": [0, 1, 4], "key": [9, 8, 7]})
    s = tmp_path / "s.parquet"
    s_frame.to_parquet(s, index=False)
    wl = load_two_streams(r, s, window=3)
    assert wl.time.tolist() == [0, 0, 1, 1, 1, 4]
    assert wl.side.tolist() == [R, S, R, R, S, S]  # R before S within a time
    assert wl.key.tolist() == [1, 9, 2, 3, 8, 7]
    assert wl.meta["source_row"].tolist() == [0, 0, 1, 2, 1, 2]
    assert wl.warmup == 6
    ref = Workload.from_streams([0, 1, 1], [1, 2, 3], [0, 1, 4], [9, 8, 7], window=3)
    assert np.array_equal(ref.side, wl.side) and np.array_equal(ref.key, wl.key)


def test_empty_files_give_empty_workload(tmp_path):
    wl = load_workload(write_text(tmp_path / "e.csv", "stream,time,key\n"), window=4)
    assert len(wl) == 0 and wl.n_r == 0 and wl.n_s == 0
    empty = Workload(np.zeros(0), np.zeros(0), np.zeros(0), window=4)
    back = load_workload(write_workload(empty, tmp_path / "e.parquet"), window=4)
    assert len(back) == 0
    r = write_text(tmp_path / "r.csv", "time,key\n")
    s = write_text(tmp_path / "s.csv", "time,key\n0,1\n")
    wl2 = load_two_streams(r, s, window=2)
    assert wl2.n_r == 0 and wl2.n_s == 1


# ---------------------------------------------------------------- files: errors


def load_error(path: Path, *words: str) -> str:
    with pytest.raises(ShedError) as excinfo:
        load_workload(path, window=3)
    return assert_one_line_error(excinfo, *words)


def test_missing_file(tmp_path):
    load_error(tmp_path / "nope.csv", "not found", "nope.csv")
    with pytest.raises(ShedError) as excinfo:
        load_two_streams(tmp_path / "r.csv", tmp_path / "s.csv", window=3)
    assert_one_line_error(excinfo, "not found")


def test_directory_is_not_a_file(tmp_path):
    (tmp_path / "d.csv").mkdir()
    load_error(tmp_path / "d.csv", "not a file")


def test_unknown_extension(tmp_path):
    load_error(write_text(tmp_path / "w.txt", "stream,time,key\n"), "unknown file format", ".csv", ".parquet")
    with pytest.raises(ShedError) as excinfo:
        write_workload(zipf_workload(length=3, window=2), tmp_path / "out.json")
    assert_one_line_error(excinfo, ".csv", ".parquet")


def test_unreadable_files(tmp_path):
    load_error(write_text(tmp_path / "bad.parquet", "this is not parquet\nat all\n"), "cannot read", "parquet")
    bad_gz = tmp_path / "bad.csv.gz"
    bad_gz.write_bytes(b"\x00\x01 not gzip")
    load_error(bad_gz, "cannot read")
    load_error(write_text(tmp_path / "ragged.csv", 'stream,time,key\nR,0,1\nR,1,2,3,4\n"unclosed\n'), "cannot read")
    load_error(write_text(tmp_path / "zero.csv", ""), "empty", "stream, time, key")


def test_missing_columns(tmp_path):
    msg = load_error(write_text(tmp_path / "w.csv", "stream,t,value\nR,0,1\n"), "time", "key", "found columns")
    assert "stream, t, value" in msg
    with pytest.raises(ShedError) as excinfo:
        load_two_streams(write_text(tmp_path / "r.csv", "key\n1\n"), tmp_path / "w.csv", window=3)
    assert_one_line_error(excinfo, "time", "found columns: key")


@pytest.mark.parametrize("sep, named", [(";", "';'"), ("\t", "a tab"), ("|", "'|'")])
def test_a_header_with_another_separator_says_so(tmp_path, sep, named):
    """A spreadsheet's CSV export with semicolons reads as one column: the error says why."""
    path = write_text(tmp_path / "r.csv", f"time{sep}key\n0{sep}1\n")
    with pytest.raises(ShedError) as excinfo:
        load_two_streams(path, path, window=3)
    assert_one_line_error(excinfo, "lacks the column(s) time, key", f"separated by {named}", "comma-separated")
    assert separator_hint(["time", "key"]) == separator_hint(["time;key", "x"]) == "" == separator_hint([])


@pytest.mark.parametrize(
    "body, words",
    [
        ("R,0,1\nS,1,abc\n", ["'key'", "row 2", "abc", "integers"]),
        ("R,0,1\nS,1,2\nR,2.5,1\n", ["'time'", "row 3", "2.5"]),
        ("R,0,1\nS,1,1e400\n", ["'key'", "row 2"]),
        ("R,0,1\nS,1,99999999999999999999999\n", ["'key'", "row 2"]),
        ("R,0,1\nS,,2\n", ["missing", "'time'", "row 2"]),
        ("R,0,1\nS,1,\n", ["missing", "'key'", "row 2"]),
        ("R,0,1\n,1,2\n", ["missing", "'stream'", "row 2"]),
        ("R,0,1\nT,1,2\n", ["'stream'", "R or S", "row 2", "'T'"]),
        ("R,4,1\nS,5,2\nR,3,1\nS,6,1\n", ["backwards", "row 3", "sort by time", "stream R"]),
        ("R,-1,1\n", ["negative", "row 1"]),
        # timestamps read without a time step: how to read them (tests/datasets/test_timestamps.py); a stray word
        # among whole-number keys (a column of text keys is read as text: tests/datasets/test_text_keys.py)
        ("R,0,1\nS,2024-05-01 10:00:00,1\n", ["'time'", "row 2", "give time_step as a length of time"]),
        ("R,0,1\nS,1,2\nR,2,JFK\n", ["'key'", "row 3", "'JFK'", "are whole numbers, so all are read as integers"]),
        ("R,x1,1\n", ["'time'", "row 1", "map the values to integers"]),
    ],
)
def test_bad_csv_values(tmp_path, body, words):
    load_error(write_text(tmp_path / "w.csv", "stream,time,key\n" + body), *words)


def test_interleaved_streams_each_sorted_is_fine(tmp_path):
    # S goes back relative to R but each stream is itself sorted
    wl = load_workload(write_text(tmp_path / "w.csv", "stream,time,key\nR,5,1\nS,1,1\nS,6,1\nR,7,1\n"), window=3)
    assert wl.time.tolist() == [1, 5, 6, 7]


@pytest.mark.parametrize(
    "frame, words",
    [
        (pd.DataFrame({"stream": ["R", "S"], "time": [0.0, np.nan], "key": [1, 2]}), ["missing", "'time'", "row 2"]),
        (pd.DataFrame({"stream": ["R", "S"], "time": [0, 1], "key": [1.0, 1.5]}), ["'key'", "row 2", "1.5"]),
        (pd.DataFrame({"stream": ["R", "S"], "time": [0, 1], "key": ["1", "x"]}), ["'key'", "row 2", "'x'"]),
        (pd.DataFrame({"stream": ["R", "S"], "time": [0, 1], "key": [True, False]}), ["'key'", "boolean"]),
        (pd.DataFrame({"stream": ["R", "Q"], "time": [0, 1], "key": [1, 2]}), ["R or S", "row 2"]),
        (pd.DataFrame({"stream": ["S", "S"], "time": [3, 2], "key": [1, 2]}), ["stream S", "backwards", "row 2"]),
        (pd.DataFrame({"stream": ["S"], "key": [1]}), ["time", "found columns: stream, key"]),
        (pd.DataFrame({"stream": ["S"], "time": pd.to_datetime(["2024-05-01 10:00"]), "key": [1]}),
         ["'time'", "the timestamp 2024-05-01 10:00:00", "give time_step as a length"]),
    ],
)
def test_bad_parquet_values(tmp_path, frame, words):
    path = tmp_path / "w.parquet"
    frame.to_parquet(path, index=False)
    load_error(path, *words)


def test_two_streams_errors(tmp_path):
    good = write_text(tmp_path / "good.csv", "time,key\n0,1\n")
    back = write_text(tmp_path / "back.csv", "time,key\n0,1\n4,1\n2,1\n")
    with pytest.raises(ShedError) as excinfo:
        load_two_streams(good, back, window=3)
    assert_one_line_error(excinfo, "back.csv", "backwards", "row 3", "sort by time")
    bad = write_text(tmp_path / "bad.csv", "time,key\n0,1\n1,x\n")
    with pytest.raises(ShedError) as excinfo:
        load_two_streams(bad, good, window=3)
    assert_one_line_error(excinfo, "bad.csv", "'key'", "row 2")


@pytest.mark.parametrize("window", [0, -2, 1.5, "w"])
def test_loader_bad_window(tmp_path, window):
    path = write_text(tmp_path / "w.csv", "stream,time,key\nR,0,1\n")
    with pytest.raises(ShedError) as excinfo:
        load_workload(path, window=window)
    assert_one_line_error(excinfo, "window")
