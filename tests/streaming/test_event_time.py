"""The library on event time as users have it (real Spark queries): timestamps cut into steps, string
and composite keys joined on their values, payload types kept, a bounded streaming run ended by
the library, and the totals in ``lastProgress``."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

from shedding import Workload, simulate, zipf_workload
from shedding.streaming.end_of_input import EndOfInput
from shedding.streaming.spark_join import configure_session, semantic_window_join

BASE = pd.Timestamp("2024-03-01", tz="UTC")


def events(seed: int, n: int = 2500) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    offset = pd.to_timedelta(np.sort(rng.integers(0, 3_600_000_000, n)), unit="us")  # an hour, sub-second
    return pd.DataFrame({"ts": BASE + offset, "user": rng.choice([f"u{i}" for i in range(25)], n),
                         "region": rng.choice(["eu", "us"], n), "amount": rng.integers(0, 100, n),
                         "score": rng.random(n)})


def test_timestamps_and_a_composite_string_key_join_exactly(spark):
    configure_session(spark, 2)
    r, s = events(1), events(2)
    out = semantic_window_join(spark.createDataFrame(r), spark.createDataFrame(s), key=["user", "region"], time="ts",
                               step="1 second", window="1 minute", memory=0, shedding="none", shards=2,
                               payload=["amount", "score"]).toPandas()
    assert list(out.columns) == ["user", "region", "r_time", "s_time", "event_time", "r_amount", "r_score", "s_amount", "s_score"]
    assert out["r_amount"].dtype == np.int64 and out["r_score"].dtype == np.float64  # payload types kept
    both = r.merge(s, on=["user", "region"], suffixes=("_r", "_s"))
    steps = [(both[f"ts_{x}"] - BASE) // pd.Timedelta(seconds=1) for x in "rs"]
    both = both[(steps[0] - steps[1]).abs() <= 59]
    expected = sorted(zip(both["user"], both["region"], both["ts_r"], both["ts_s"], both["amount_r"], both["amount_s"]))
    got = sorted(zip(out["user"], out["region"], pd.to_datetime(out["r_time"], utc=True),
                     pd.to_datetime(out["s_time"], utc=True), out["r_amount"], out["s_amount"]))
    assert got == expected and len(got) > 1000


def test_string_keys_under_shedding_equal_the_simulator_on_their_hashes(spark):
    configure_session(spark, 1)
    wl = zipf_workload(1.0, 40, 1500, seed=6, window=50, warmup=0)
    frames = [pd.DataFrame({"time": t, "key": [f"k{k}" for k in k]}) for t, k in (wl.stream(0), wl.stream(1))]
    dfs = [spark.createDataFrame(f) for f in frames]
    hashed = dict(dfs[0].union(dfs[1]).selectExpr("key", "xxhash64(key) AS h").distinct().toPandas().values)
    # the simulator on the operator's keys, in the stream join's order within a step (side, key)
    side = np.r_[np.zeros(len(frames[0]), int), np.ones(len(frames[1]), int)]
    time = np.r_[frames[0]["time"], frames[1]["time"]]
    keys = np.array([hashed[k] for k in pd.concat([frames[0]["key"], frames[1]["key"]])], dtype=np.int64)
    names = np.r_[frames[0]["key"], frames[1]["key"]]
    order = np.lexsort((keys, side, time))
    ref = Workload(side[order], time[order], keys[order], 50, 0)
    res = simulate(ref, "prob", 50, estimator="online", pairs=True).pairs
    expected = sorted(zip(names[order][res[:, 0]], ref.time[res[:, 0]], ref.time[res[:, 1]]))
    out = semantic_window_join(*dfs, window=50, memory=50, shedding="prob").toPandas()
    assert sorted(zip(out["key"], out["r_time"], out["s_time"])) == expected


def test_the_batch_commands_cut_timestamp_files_into_the_streaming_steps(spark, tmp_path):
    """Timestamps as text (with and without an offset) and a one-sided range of lengths of time:
    the exact streaming join on Spark's reading of the files has as many pairs as EXACT on
    shedding.datasets' reading of them (load_two_streams with time_step), at steps of 1 and 7
    minutes, where any other cut of the instants into steps would move pairs across the range's
    ends."""
    from shedding.datasets import load_two_streams
    from shedding.exact import exact_count

    configure_session(spark, 2)
    rng = np.random.default_rng(11)
    instants = [BASE + pd.to_timedelta(np.sort(rng.integers(0, 6 * 3600, 800)), unit="s") for _ in range(2)]
    keys = [rng.choice([f"N{i}" for i in range(30)], 800) for _ in range(2)]
    written = [instants[0].tz_convert("America/New_York").map(lambda t: t.isoformat()),  # at -05:00
               instants[1].strftime("%Y-%m-%d %H:%M:%S")]  # UTC, without an offset
    for name, times, key in zip("rs", written, keys):
        pd.DataFrame({"time": times, "key": key}).to_csv(tmp_path / f"{name}.csv", index=False)
    for step, minutes in (("1 minute", 1), ("7 minutes", 7)):
        frames = [spark.read.option("header", True).csv(str(tmp_path / f"{n}.csv")) for n in "rs"]
        streamed = semantic_window_join(*frames, step=step, range=("0 minutes", f"{63 * minutes} minutes"), memory=0,
                                        shedding="none").count()
        wl = load_two_streams(tmp_path / "r.csv", tmp_path / "s.csv", window=63 + 1, warmup=0, time_step=step)
        assert exact_count(wl.with_params(range=(0, 63))) == streamed > 0


def in_order(path, i: int) -> None:
    """Give the i-th file of a source the i-th modification time: Spark's file source reads a
    folder in modification-time order, and files written within one tick of the clock came in any
    order, so a later file's rows could come first and the earlier file's rows be late (dropped by
    the event-time join, as they should be), failing these tests about half the time when they ran
    after other queries. shedding.streaming.sources writes its files the same way."""
    os.utime(path, (1_000_000 + i, 1_000_000 + i))


def test_a_bounded_stream_ends_by_the_library_and_reports_its_totals(spark, tmp_path):
    configure_session(spark, 1)
    wl = zipf_workload(1.0, 30, 1200, seed=2, window=40, warmup=0)
    for side, name in ((0, "r"), (1, "s")):
        t, k = wl.stream(side)
        (tmp_path / name).mkdir()
        for i, idx in enumerate(np.array_split(np.arange(len(t)), 4)):
            pd.DataFrame({"time": t[idx], "key": k[idx]}).to_parquet(tmp_path / name / f"part-{i}.parquet")
            in_order(tmp_path / name / f"part-{i}.parquet", i)

    def read(name):
        return spark.readStream.schema("time long, key long").option("maxFilesPerTrigger", 1) \
            .parquet(str(tmp_path / name))

    end = EndOfInput(tmp_path / "end")
    got: list = []
    query = (semantic_window_join(read("r"), read("s"), window=40, memory=40, shedding="prob", end_of_input=end)
             .writeStream.foreachBatch(lambda df, _: got.extend(map(tuple, df.collect())))
             .option("checkpointLocation", str(tmp_path / "ck")).start())
    reports = end.finish(query)
    res = simulate(wl, "prob", 40, estimator="online", pairs=True).pairs
    assert sorted(g[:3] for g in got) == sorted(zip(wl.key[res[:, 0]], wl.time[res[:, 0]], wl.time[res[:, 1]]))
    assert all(g[3] == max(g[1], g[2]) for g in got)  # a pair's event time: the later of its two
    totals = [p["observedMetrics"]["shedding"] for p in reports if p["observedMetrics"]]
    assert sum(t["arrivals"] for t in totals) == len(wl) and sum(t["late"] for t in totals) == 0
    assert sum(t["outputs"] for t in totals) == len(got) and sum(t["ended"] for t in totals) == 1
    assert query.lastProgress["observedMetrics"]["shedding"]["memory_r"] is not None


@pytest.mark.parametrize("kwargs, needle", [
    ({"time": "ts", "window": 60}, "length of time"),
    ({"time": "ts", "step": "1 second", "window": "90 seconds 2"}, "not a length of time"),
    ({"time": "ts", "step": "7 seconds", "window": "1 minute"}, "whole number of steps"),
    ({"key": ["user", "nope"], "time": "ts", "window": "1 minute"}, "no column 'nope'"),
    ({"time": "ts", "window": "1 minute", "range": ("0 seconds", "1 minute")}, "window or range"),
    ({"time": "ts"}, "window or range"),
    ({"time": "ts", "range": ("0 seconds", "90 seconds"), "step": "1 minute"}, "whole number of steps"),
    ({"time": "ts", "range": ("1 hour", "-1 hour")}, "lo > hi"),
    ({"time": "ts", "range": "1 hour"}, "two bounds"),
    ({"time": "ts", "range": (0, 60)}, "length of time"),
    # integer times (amount): the range's own limits and words (were "window ... overflows" and ">= 0")
    ({"time": "amount", "range": (0, 2**62)}, "range 0,4611686018427387904 reaches beyond 64-bit times"),
    ({"time": "amount", "range": ("0 seconds", "1 hour")}, "range '1 hour' is a length of time, but the time "
                                                           "column holds integers"),
    ({"time": "amount", "range": (0, 1.5)}, "range must be an integer in the time column's unit, got 1.5"),
    ({"time": "ts", "window": "1 minute", "how": "left_anti"}, "how"),
    ({"time": "ts", "window": "1 minute", "how": "sideways"}, "how"),
])
def test_bad_event_time_parameters_are_one_line_errors(spark, kwargs, needle):
    from shedding.errors import ShedError

    df = spark.createDataFrame(events(3, 10))
    with pytest.raises(ShedError) as exc:
        semantic_window_join(df, df, memory=10, key=kwargs.pop("key", "user"), **kwargs)
    assert needle in str(exc.value) and "\n" not in str(exc.value)


def test_a_stalled_source_holds_back_a_bounded_state(spark, tmp_path):
    from shedding.streaming.results import read_table

    configure_session(spark, 1)
    for name, files in (("r", 6), ("s", 1)):  # S falls silent after its first file
        (tmp_path / name).mkdir()
        for i in range(files):
            t = np.arange(100 * i, 100 * i + 100)
            pd.DataFrame({"time": t, "key": t % 7}).to_parquet(tmp_path / name / f"part-{i}.parquet")
            in_order(tmp_path / name / f"part-{i}.parquet", i)
    r, s = (spark.readStream.schema("time long, key long").option("maxFilesPerTrigger", 1).parquet(str(tmp_path / n))
            for n in ("r", "s"))
    end = EndOfInput(tmp_path / "end")
    query = (semantic_window_join(r, s, window=20, memory=20, idle_timeout=0.001, end_of_input=end,
                                  metrics_dir=tmp_path / "metrics", with_metrics=True)
             .writeStream.format("noop").option("checkpointLocation", str(tmp_path / "ck")).start())
    end.finish(query)
    metrics = read_table(tmp_path, "metrics")
    # without the timeout every R tuple after S's last time would be held: 500 by the last batch
    assert metrics["held"].max() <= 2 and metrics["arrivals"].sum() == 700 and metrics["late"].sum() == 0
