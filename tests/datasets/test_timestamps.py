"""Timestamps in stream files (departures, clicks): with a time step given as a length of time,
an instant is in step floor(microseconds since 1970 UTC / step), counted from the first step of
both streams, the rule ``shed stream-join`` cuts them by; an integer step cuts integer times; a
value that is no timestamp is an error naming its row."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import assert_one_line_error
from shedding.datasets import load_two_streams, load_workload
from shedding.datasets.times import step_of
from shedding.errors import ShedError
from shedding.exact import exact_count
from shedding.run import run_policy

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
BASE = dt.datetime(2013, 3, 1, 5, 17, 31, 250_000, tzinfo=dt.timezone.utc)


def expected_steps(instants: list[dt.datetime], step: dt.timedelta, origin: int) -> list[int]:
    """The rule in plain Python datetime arithmetic (no pandas)."""
    return [(t - EPOCH) // step - origin for t in instants]


def written(t: dt.datetime, style: int) -> str:
    """One instant in one of the layouts users' files have: with a space or a T, with an offset."""
    if style == 0:
        return t.strftime("%Y-%m-%d %H:%M:%S.%f")
    if style == 1:
        return t.isoformat()  # +00:00
    shifted = t.astimezone(dt.timezone(dt.timedelta(hours=-5)))
    return shifted.isoformat()  # the same instant at -05:00


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), step_s=st.sampled_from([1, 60, 90, 3600]))
def test_timestamp_steps_follow_the_streaming_rule(tmp_path: Path, seed: int, step_s: int) -> None:
    rng = np.random.default_rng(seed)
    streams = []
    for _ in range(2):
        offsets = np.sort(rng.integers(0, 6 * 3600 * 10**6, 40))
        streams.append([BASE + dt.timedelta(microseconds=int(o)) for o in offsets])
    r = pd.DataFrame({"time": [written(t, int(rng.integers(0, 3))) for t in streams[0]], "key": rng.integers(0, 4, 40)})
    s = pd.DataFrame({"time": pd.to_datetime(streams[1]), "key": rng.integers(0, 4, 40)})  # a Parquet timestamp
    r.to_csv(tmp_path / "r.csv", index=False)
    s.to_parquet(tmp_path / "s.parquet")
    step = dt.timedelta(seconds=step_s)
    wl = load_two_streams(tmp_path / "r.csv", tmp_path / "s.parquet", window=30, warmup=0, time_step=f"{step_s} s")
    origin = min((t - EPOCH) // step for t in streams[0] + streams[1])
    assert sorted(wl.time[wl.side == 0]) == expected_steps(streams[0], step, origin)
    assert sorted(wl.time[wl.side == 1]) == expected_steps(streams[1], step, origin)
    assert wl.meta["time_origin"] == (EPOCH + origin * step).isoformat()


def test_timestamps_give_the_outputs_of_their_integer_steps(tmp_path: Path) -> None:
    """Steps counted from the first change no pair: EXACT and PROB on the timestamps equal them on
    a file of the integer steps (minutes since 1970) written out."""
    rng = np.random.default_rng(3)
    minutes = np.sort(rng.integers(22_000_000, 22_000_600, 400))
    keys = rng.integers(0, 12, 400)
    side = rng.integers(0, 2, 400)
    stream = np.where(side == 0, "R", "S")
    stamps = pd.to_datetime(minutes * 60 + rng.integers(0, 60, 400), unit="s").strftime("%Y-%m-%dT%H:%M:%S")
    pd.DataFrame({"stream": stream, "time": stamps, "key": keys}).to_csv(tmp_path / "t.csv", index=False)
    pd.DataFrame({"stream": stream, "time": minutes, "key": keys}).to_csv(tmp_path / "m.csv", index=False)
    timed = load_workload(tmp_path / "t.csv", window=20, warmup=0, time_step="1 minute")
    counted = load_workload(tmp_path / "m.csv", window=20, warmup=0)
    assert np.array_equal(timed.time, counted.time - minutes.min()) and timed.meta["time_step"] == "1 minute"
    assert exact_count(timed) == exact_count(counted) > 0
    for policy in ("prob", "hazard"):
        assert run_policy(timed, policy, 15, estimator="online").outputs == \
            run_policy(counted, policy, 15, estimator="online").outputs


def test_dates_are_their_midnight_and_an_integer_step_cuts_integers(tmp_path: Path) -> None:
    pd.DataFrame({"time": [dt.date(2024, 1, 1), dt.date(2024, 1, 3)], "key": [1, 2]}).to_parquet(tmp_path / "r.parquet")
    (tmp_path / "s.csv").write_text("time,key\n2024-01-02,1\n2024-01-02T12:00,2\n")
    wl = load_two_streams(tmp_path / "r.parquet", tmp_path / "s.csv", window=2, warmup=0, time_step="1 day")
    assert sorted(wl.time.tolist()) == [0, 1, 1, 2]
    (tmp_path / "i.csv").write_text("stream,time,key\nR,0,1\nS,9,1\nR,10,1\nS,25,1\n")
    wl = load_workload(tmp_path / "i.csv", window=2, warmup=0, time_step=10)
    assert wl.time.tolist() == [0, 0, 1, 2] and "time_origin" not in wl.meta


@pytest.mark.parametrize("content, step, needle", [
    ("time,key\n2024-01-01 00:00,1\n,2\n", "1 s", "missing value at row 2"),
    ("time,key\n2024-01-01 00:00,1\nsoon,2\n", "1 s", "row 2 has 'soon', not a timestamp"),
    ("time,key\n5,1\n7,2\n", "1 minute", "holds numbers, not timestamps"),
    ("time,key\n2024-01-01 00:05,1\n2024-01-01 00:01,2\n", "1 minute", "times go backwards at row 2"),
    ("time,key\n2024-01-01 00:05,1\n", None, "give time_step as a length of time such as '1 minute'"),
    ("time,key\n5,1\n", 0, "time_step must be an integer >= 1"),
    ("time,key\n5,1\n", "soon", "time_step 'soon' is not a length of time"),
    ("time,key\n5,1\n", 1.5, "time_step must be an integer >= 1 or a length of time"),
])
def test_bad_times_are_one_line_errors(tmp_path: Path, content: str, step: object, needle: str) -> None:
    (tmp_path / "r.csv").write_text(content)
    (tmp_path / "s.csv").write_text("time,key\n2024-01-01 00:00,1\n")  # R's column is read first
    with pytest.raises(ShedError) as exc:
        load_two_streams(tmp_path / "r.csv", tmp_path / "s.csv", window=5, time_step=step)
    assert_one_line_error(exc, needle)


def test_step_of_reads_lengths_and_integers() -> None:
    assert step_of(None) == (False, 1) and step_of(7) == (False, 7)
    assert step_of("90 s") == (True, 90_000_000) and step_of(dt.timedelta(minutes=2)) == (True, 120_000_000)
    with pytest.raises(ShedError, match="time_step"):
        step_of(True)


def test_files_with_and_without_an_offset_are_named(tmp_path: Path, shed) -> None:
    """Times with a time zone or an offset beside times without (read as UTC): the workload names
    the files without one, and the batch commands say so in one warning line; files that agree
    (all with, all without) give none."""
    times = pd.Series(pd.date_range("2024-05-01 10:00", periods=30, freq="37s"))
    frame = pd.DataFrame({"time": times, "key": np.arange(30) % 4})
    frame.assign(time=times.dt.tz_localize("Europe/Berlin")).to_parquet(tmp_path / "zoned.parquet", index=False)
    frame.assign(time=times.dt.strftime("%Y-%m-%dT%H:%M:%S+02:00")).to_csv(tmp_path / "offset.csv", index=False)
    frame.to_parquet(tmp_path / "naive.parquet", index=False)
    frame.assign(time=times.dt.strftime("%Y-%m-%d %H:%M:%S")).to_csv(tmp_path / "naive.csv", index=False)
    for r, s, named in (("zoned.parquet", "naive.parquet", ["naive.parquet"]), ("naive.csv", "offset.csv", ["naive.csv"]),
                        ("zoned.parquet", "offset.csv", None), ("naive.parquet", "naive.csv", None)):
        wl = load_two_streams(tmp_path / r, tmp_path / s, window=60, warmup=0, time_step="1 second")
        assert wl.meta.get("naive_times") == (None if named is None else [str(tmp_path / n) for n in named])
    code, _, err = shed("simulate", "--r", str(tmp_path / "zoned.parquet"), "--s", str(tmp_path / "naive.parquet"),
                        "--window", "1 minute", "--memory", "4", "--policy", "exact")
    warning = [line for line in err.splitlines() if line.startswith("warning:")]
    assert code == 0 and len(warning) == 1 and "naive.parquet have no time zone or UTC offset" in warning[0]


def test_a_warmup_given_as_a_length_of_time_is_that_many_steps(tmp_path: Path, shed) -> None:
    """--warmup '5 minutes' on a file of timestamps is the warmup of 300 steps of 1 second, and of 5
    steps of 1 minute: the same rows."""
    import json

    times = pd.Series(pd.date_range("2024-05-01 10:00", periods=400, freq="7s"))
    frame = pd.DataFrame({"time": times.dt.strftime("%Y-%m-%d %H:%M:%S"), "key": np.arange(400) % 9})
    frame.iloc[::2].to_csv(tmp_path / "r.csv", index=False)
    frame.iloc[1::2].to_csv(tmp_path / "s.csv", index=False)

    def rows(*args: str) -> list[dict]:
        code, out, err = shed("simulate", "--r", str(tmp_path / "r.csv"), "--s", str(tmp_path / "s.csv"),
                              "--memory", "6", "--policy", "exact,prob", "--json", *args)
        assert code == 0, err
        return [{k: r[k] for k in ("policy", "outputs", "warmup")} for r in map(json.loads, out.splitlines())]

    seconds = rows("--window", "3 minutes", "--warmup", "5 minutes")
    assert seconds == rows("--window", "3 minutes", "--warmup", "300") and seconds[0]["warmup"] == 300
    minutes = rows("--window", "3 minutes", "--time-step", "1 minute", "--warmup", "5 minutes")
    assert minutes == rows("--window", "3 minutes", "--time-step", "1 minute", "--warmup", "5")


def test_parquet_dates_are_cut_by_a_day_unless_told(tmp_path: Path, shed) -> None:
    """A Parquet column of dates is cut into steps of a day by default, as ``shed stream-join`` cuts
    it: the rows of ``--time-step '1 day'``, not those of the seconds that timestamps default to
    (which keep a day's tuples in memory until the next day's arrivals, and so shed other tuples).
    CSV dates are text, cut by a second as timestamps are."""
    import json

    rng = np.random.default_rng(3)
    for name in ("r", "s"):
        days = np.sort(rng.integers(0, 60, 200))
        frame = pd.DataFrame({"time": [dt.date(2024, 1, 1) + dt.timedelta(days=int(d)) for d in days],
                              "key": rng.integers(0, 5, 200)})
        frame.to_parquet(tmp_path / f"{name}.parquet", index=False)
        frame.assign(time=frame.time.astype(str)).to_csv(tmp_path / f"{name}.csv", index=False)

    def rows(ext: str, *args: str) -> list[dict]:
        code, out, err = shed("simulate", "--r", str(tmp_path / f"r.{ext}"), "--s", str(tmp_path / f"s.{ext}"),
                              "--window", "3 days", "--memory", "10", "--policy", "exact,prob", "--json", *args)
        assert code == 0, err
        return [{k: r[k] for k in ("policy", "outputs", "window", "time_step")} for r in map(json.loads, out.splitlines())]

    days = rows("parquet")
    assert days == rows("parquet", "--time-step", "1 day") and days[0]["window"] == 3
    seconds = rows("parquet", "--time-step", "1 second")
    assert seconds == rows("csv") and seconds[0]["window"] == 3 * 86_400
    assert days[0]["outputs"] == seconds[0]["outputs"] and days[1]["outputs"] != seconds[1]["outputs"]
    code, _, err = shed("simulate", "--r", str(tmp_path / "r.parquet"), "--s", str(tmp_path / "s.parquet"),
                        "--window", "36 hours", "--memory", "10", "--policy", "prob")
    assert code == 2 and "not a whole number of steps" in err
