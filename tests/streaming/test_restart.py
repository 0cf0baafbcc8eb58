"""Exactly once under kill -9: ``shed stream-join`` killed mid-stream and started again with the same
command writes exactly the pairs and metrics totals of an uninterrupted run (the simulator's: HAZARD
by the key's history, whose learner and history are in the checkpointed state), or with
P = 2 shards sharing one budget, those of the shards fed the micro-batches the checkpoint records
(:mod:`shedding.streaming.recorded`); a SIGTERM stops it cleanly."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from shedding import simulate, zipf_workload
from shedding.streaming.recorded import recorded_files
from shedding.streaming.replay import run_shards
from shedding.streaming.results import METRIC_TABLE, PAIRS, read_table
from shedding.streaming.shard import END, JoinSpec, ShardJoin

W, M, FILES = 50, 50, 8
RANGE = "0,40"  # an S tuple up to 40 steps after its R tuple
RANGE_M = 20  # all of it R's (S is never stored), below the 40 R tuples the range holds: some are shed


def command(base: Path, shards: int = 1, files: int = FILES, extent: tuple[str, ...] = ("--window", str(W)),
            policy: tuple[str, ...] = ("--shedding", "prob")) -> list[str]:
    return [sys.executable, "-m", "shedding.cli", "stream-join", "--r", "zipf:1:40", "--s", "zipf:1:40",
            "--length", "1600", "--files", str(files), *extent, "--memory", str(M),
            *policy, "--max-files-per-trigger", "1", "--out", str(base / "out"),
            "--master", "local[2]", "--shards", str(shards), "--json"]


def start(base: Path, shards: int = 1, args: list[str] | None = None) -> subprocess.Popen:
    # output to a file (a full pipe would stall the job); a session of its own, so that the JVM
    # child can be reaped with the group after the kill
    with open(base / "first-run.log", "w") as log:
        return subprocess.Popen(args or command(base, shards), stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)


def kill_after_commits(base: Path, proc: subprocess.Popen, count: int = 3) -> int:
    """Kill the driver by its pid (SIGKILL) once ``count`` micro-batches are committed, then its
    process group (the JVM); the batches committed."""
    try:
        deadline = time.monotonic() + 600
        while commits(base) < count and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert proc.poll() is None, "the job ended before it was killed: " + (base / "first-run.log").read_text()[-500:]
        os.kill(proc.pid, signal.SIGKILL)  # the driver, by its pid
        proc.wait(timeout=60)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # and whatever it started (the JVM)
        except ProcessLookupError:
            pass
    return commits(base)


def recorded_plan(base: Path, shards: int) -> list[tuple]:
    """The pairs of the shards fed the micro-batches the query ran, as its checkpoint records them:
    what the job must have written."""
    batch_of = recorded_files(base / "out" / "checkpoint" / "spark")
    rows = pd.concat([pd.read_csv(path).assign(side=side, batch=batch_of[str(path.resolve())])
                      for side, name in ((0, "r"), (1, "s"))
                      for path in sorted((base / "out" / "sources" / name).glob("part-*.csv"))], ignore_index=True)
    frames = [rows[rows["batch"] == b].drop(columns="batch") for b in sorted(rows["batch"].unique())]
    pairs, _ = run_shards(JoinSpec(W, M, "prob", shards=shards), frames)
    return sorted(p for shard in pairs for p in zip(shard["key"], shard["r_time"], shard["s_time"]))


def assert_recorded_batches_written(base: Path, shards: int) -> None:
    """The pairs are those of the recorded batches, every tuple arrived once, one metrics row per
    shard and batch."""
    assert sorted(zip(*(read_table(base / "out", PAIRS)[c] for c in ("key", "r_time", "s_time")))) == \
        recorded_plan(base, shards)
    metrics = read_table(base / "out", METRIC_TABLE)
    assert not metrics.duplicated(["batch", "shard"]).any() and metrics["arrivals"].sum() == 2 * 1600


def commits(base: Path) -> int:
    folder = base / "out" / "checkpoint" / "spark" / "commits"
    return len([p for p in folder.iterdir() if p.name.isdigit()]) if folder.exists() else 0


#: the policy of the one-shard run killed: HAZARD by the key's history, whose learner and history
#: live in the checkpointed state
HISTORY = ("--shedding", "hazard", "--group", "history")


@pytest.mark.spark
@pytest.mark.parametrize("shards", [1, 2])
def test_kill_9_mid_stream_then_restart_loses_and_duplicates_nothing(tmp_path, shards):
    policy = HISTORY if shards == 1 else ("--shedding", "prob")
    done = kill_after_commits(tmp_path, start(tmp_path, args=command(tmp_path, shards, policy=policy)))
    assert 3 <= done < FILES, done
    again = subprocess.run(command(tmp_path, shards, policy=policy), capture_output=True, text=True, timeout=900)
    assert again.returncode == 0, again.stderr[-2000:]
    if shards > 1:  # one budget re-divided every batch: the pairs of the batches the query ran
        assert_recorded_batches_written(tmp_path, shards)
        return

    wl = zipf_workload(1.0, 40, 1600, seed=0, correlation="independent", window=W, warmup=0)
    ref = simulate(wl, "hazard", M, estimator="online", group="history", pairs=True)
    expected = sorted(zip(wl.key[ref.pairs[:, 0]], wl.time[ref.pairs[:, 0]], wl.time[ref.pairs[:, 1]]))
    pairs = read_table(tmp_path / "out", PAIRS)
    assert sorted(zip(pairs["key"], pairs["r_time"], pairs["s_time"])) == expected  # none lost, none twice
    metrics = read_table(tmp_path / "out", METRIC_TABLE)
    assert metrics["batch"].is_unique  # one shard: one metrics row per batch, replays overwrote theirs
    assert metrics["arrivals"].sum() == len(wl) and metrics["outputs"].sum() == ref.outputs
    shed = np.count_nonzero(~ref.schedule.admitted | (ref.schedule.left < wl.time + W - 1))
    assert metrics["shed"].sum() == shed and metrics["late"].sum() == metrics["bad"].sum() == 0


def rows_of(frame: pd.DataFrame) -> list[tuple]:
    """An outer join's rows as (key, r_time, s_time, shed), a missing time as -1."""
    times = [frame[c].astype("Int64").fillna(-1).astype(int) for c in ("r_time", "s_time")]
    return sorted(zip(frame["key"].astype(int), *times, frame["shed"].astype(bool)))


@pytest.mark.spark
def test_outer_rows_are_written_exactly_once_across_a_kill_9(tmp_path):
    """A full outer join over a time range, killed mid-stream and run again: its pairs and its rows
    without a partner are the shard's fed the whole stream at once, none lost and none twice."""
    args = [*command(tmp_path, extent=("--range", RANGE)), "--how", "full"]
    args[args.index("--memory") + 1] = str(RANGE_M)
    done = kill_after_commits(tmp_path, start(tmp_path, args=args))
    assert 3 <= done < FILES, done
    again = subprocess.run(args, capture_output=True, text=True, timeout=900)
    assert again.returncode == 0, again.stderr[-2000:]
    rows = pd.concat([pd.read_csv(path).assign(side=side) for side, name in ((0, "r"), (1, "s"))
                      for path in sorted((tmp_path / "out" / "sources" / name).glob("part-*.csv"))], ignore_index=True)
    lo, hi = map(int, RANGE.split(","))
    join = ShardJoin(JoinSpec(hi + 1, RANGE_M, "prob", range=(lo, hi), how="full"))
    whole, _ = join.push(rows)
    ended, _ = join.push(pd.DataFrame({"side": [END], "time": [0], "key": [0]}))
    expected = rows_of(pd.concat([whole, ended], ignore_index=True))
    written = read_table(tmp_path / "out", PAIRS)
    assert rows_of(written) == expected
    assert written["shed"].any() and (~written["shed"] & written["r_time"].isna()).any()  # both kinds of row
    lone = written[written["r_time"].isna() | written["s_time"].isna()]
    summary = json.loads(again.stdout.strip().splitlines()[-1])  # --json: the totals over every committed batch
    assert summary["unpaired"] == len(lone) and summary["unpaired_shed"] == int(lone["shed"].sum()) > 0


@pytest.mark.spark
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_after_a_committed_batch_with_exit_0_and_the_same_command_continues(tmp_path, sig):
    """SIGTERM, and SIGINT as Ctrl-C sends it: to the whole process group (the JVM and Python's
    workers too), after Spark installed its own SIGINT handler."""
    interval = [*command(tmp_path), "--trigger", "interval:1"]
    interval.remove("--json")
    with open(tmp_path / "run.log", "w") as log:
        proc = subprocess.Popen(interval, stdout=subprocess.DEVNULL, stderr=log, start_new_session=True)
    try:
        deadline = time.monotonic() + 600
        while commits(tmp_path) < 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        (os.killpg if sig == signal.SIGINT else os.kill)(proc.pid, sig)  # Ctrl-C reaches the whole group
        assert proc.wait(timeout=120) == 0, (tmp_path / "run.log").read_text()[-2000:]
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    lines = (tmp_path / "run.log").read_text().strip().splitlines()
    assert lines[-1].startswith(f"stopped by {sig.name} after micro-batch ") and "run the same command" in lines[-1]
    assert lines[0].startswith("batch 0: ") and "rows/s" in lines[0] and "held" in lines[0]  # the live progress
    again = subprocess.run([*command(tmp_path), "--trigger", "available-now"], capture_output=True, text=True,
                           timeout=900)
    assert again.returncode == 0, again.stderr[-2000:]
    wl = zipf_workload(1.0, 40, 1600, seed=0, correlation="independent", window=W, warmup=0)
    ref = simulate(wl, "hazard", M, estimator="online", group="history", pairs=True)
    pairs = read_table(tmp_path / "out", PAIRS)
    assert sorted(zip(pairs["key"], pairs["r_time"], pairs["s_time"])) == \
        sorted(zip(wl.key[ref.pairs[:, 0]], wl.time[ref.pairs[:, 0]], wl.time[ref.pairs[:, 1]]))


@pytest.mark.parametrize("args, needle", [
    (["--r", "/nonexistent/r", "--s", "/nonexistent/s"], "not found"),
    (["--r", "zipf:1:40", "--s", "/nonexistent/s"], "both --r and --s"),
    (["--r", "zipf:x", "--s", "zipf:1:40"], "zipf:SKEW:DOMAIN"),
    (["--r", "zipf:1:40", "--s", "zipf:1:40", "--shedding", "magic"], "shedding"),
    (["--r", "zipf:1:40", "--s", "zipf:1:40", "--trigger", "sometimes"], "--trigger"),
    (["--r", "zipf:1:40", "--s", "zipf:1:40", "--estimator", "magic"], "--estimator"),
])
@pytest.mark.slow  # a new interpreter per case
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, needle):
    proc = subprocess.run([sys.executable, "-m", "shedding.cli", "stream-join", *args, "--out", str(tmp_path / "o")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and needle.lower() in lines[0].lower(), proc.stderr
