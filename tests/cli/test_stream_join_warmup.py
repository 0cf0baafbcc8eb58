"""``shed stream-join --warmup``: a step of the time axis, or on timestamps and dates an instant,
whose step (floor(microseconds since 1970 UTC / step), docs/semantics.md "Arrivals") begins the
output. The job is built but not started (no Spark here)."""

from __future__ import annotations

import datetime as dt

import pandas as pd
import pytest

from helpers import assert_error_line, run_shed

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


@pytest.fixture
def jobs(monkeypatch) -> list:
    import shedding.cli.stream_join as sj

    built: list = []
    monkeypatch.setattr(sj, "run_job", lambda job, *args: built.append(job) or {})
    return built


def write(folder, times: list[str]) -> None:
    folder.mkdir()
    pd.DataFrame({"time": times, "key": [1] * len(times)}).to_csv(folder / "a.csv", index=False)


@pytest.mark.parametrize("warmup, step, expected", [
    ("2024-05-01 10:07", "1 minute", dt.datetime(2024, 5, 1, 10, 7, tzinfo=dt.timezone.utc)),
    ("2024-05-01 10:07:59", "1 minute", dt.datetime(2024, 5, 1, 10, 7, tzinfo=dt.timezone.utc)),  # its step's start
    ("2024-05-01T12:07:30+02:00", "30 seconds", dt.datetime(2024, 5, 1, 10, 7, 30, tzinfo=dt.timezone.utc)),
    ("2024-05-01", "1 hour", dt.datetime(2024, 5, 1, tzinfo=dt.timezone.utc)),
])
def test_an_instant_is_the_step_it_falls_in(tmp_path, jobs, warmup, step, expected):
    write(tmp_path / "r", ["2024-05-01 10:00:00", "2024-05-01 10:20:00"])
    write(tmp_path / "s", ["2024-05-01 10:01:00"])
    code, _, err = run_shed("stream-join", "--r", tmp_path / "r", "--s", tmp_path / "s", "--out", tmp_path / "o",
                            "--window", "1 hour", "--time-step", step, "--warmup", warmup, "--json")
    assert code == 0, err
    seconds = pd.Timedelta(step).total_seconds()
    assert jobs[0].spec.warmup == (expected - EPOCH).total_seconds() // seconds


def test_an_integer_is_a_step_as_before(tmp_path, jobs):
    write(tmp_path / "r", ["2024-05-01 10:00:00"])
    write(tmp_path / "s", ["2024-05-01 10:01:00"])
    code, _, err = run_shed("stream-join", "--r", tmp_path / "r", "--s", tmp_path / "s", "--out", tmp_path / "o",
                            "--window", "10 minutes", "--warmup", "28577760", "--json")
    assert code == 0, err
    assert jobs[0].spec.warmup == 28577760


@pytest.mark.parametrize("args, needle", [
    (["--warmup", "soon"], "--warmup 'soon' is neither a time step (an integer) nor an instant"),
    (["--warmup", "1960-01-01"], "--warmup '1960-01-01' is before 1970"),
    (["--warmup", "-3"], "--warmup must be >= 0"),
    (["--r", "zipf:1:10", "--s", "zipf:1:10", "--warmup", "2024-05-01"],
     "--warmup '2024-05-01' is an instant, but the time column holds integers"),
])
def test_a_bad_warmup_is_one_line(tmp_path, jobs, args, needle):
    sources = [] if "--r" in args else ["--r", "zipf:1:10", "--s", "zipf:1:10"]
    assert_error_line(run_shed("stream-join", *sources, "--out", tmp_path / "o", *args), needle)
    assert not jobs
