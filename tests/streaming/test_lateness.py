"""Allowed lateness, idle sources and keys carried as original values, on one shard (no Spark)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from shedding import Workload, simulate, zipf_workload
from shedding.errors import ShedError
from shedding.streaming.event_time import INTEGER, TimeAxis, kind_named, whole_numbers
from shedding.streaming.shard import END, JoinSpec, ShardJoin

END_ROW = pd.DataFrame({"side": [END], "time": [0], "key": [0]})


def frame(side, time, key) -> pd.DataFrame:
    return pd.DataFrame({"side": np.asarray(side, dtype=np.int64), "time": np.asarray(time, dtype=np.int64),
                         "key": np.asarray(key, dtype=np.int64)})


def pair_set(pairs: pd.DataFrame) -> list[tuple]:
    return sorted(zip(pairs["key"], pairs["r_time"], pairs["s_time"]))


def test_tuples_within_the_lateness_join_in_order():
    wl = zipf_workload(1.0, 20, 800, seed=5, window=30, warmup=0)
    rows = frame(wl.side, wl.time, wl.key)
    # S tuples of odd keys from the last 6 steps of every micro-batch come one batch late, after
    # later S tuples: with lateness 6 nothing is late
    delayed = (rows["side"] == 1) & (rows["key"] % 2 == 1) & (rows["time"] % 100 >= 94)
    batches = []
    for lo in range(0, 800, 100):
        now = (rows["time"] >= lo) & (rows["time"] < lo + 100) & ~delayed
        before = (rows["time"] >= lo - 100) & (rows["time"] < lo) & delayed
        batches.append(rows[now | before])
    batches.append(rows[(rows["time"] >= 700) & delayed])
    expected = simulate(wl, "prob", 30, estimator="online", pairs=True).pairs
    for lateness, late in ((6, 0), (0, None)):
        join = ShardJoin(JoinSpec(30, 30, "prob", lateness=lateness))
        out, totals, held = [], 0, []
        for b in [*batches, END_ROW]:
            p, m = join.push(b)
            out.append(p)
            totals += m["late"]
            held.append(m["held"])
        got = pair_set(pd.concat(out))
        if late == 0:
            assert totals == 0
            assert got == sorted(zip(wl.key[expected[:, 0]], wl.time[expected[:, 0]], wl.time[expected[:, 1]]))
            assert max(held) <= 2 * (6 + 6 + 1)  # L steps, and the 6 steps S lags R by, of both streams
        else:
            assert totals > 0  # without lateness the lagging S tuples are late


def test_an_idle_source_stops_holding_the_frontier_back():
    spec = JoinSpec(10, 10, "prob", idle_timeout_ms=5_000)
    join = ShardJoin(spec)
    join.push(frame([0, 1], [0, 0], [1, 1]), now=0)
    held = []
    for i in range(1, 40):  # R goes on, S falls silent at time 0
        _, m = join.push(frame([0] * 10, np.arange(10 * i, 10 * i + 10), [1] * 10), now=1_000 * i)
        held.append(m["held"])
    assert held[3] >= 40  # before the timeout every R step is held back
    assert max(held[6:]) <= 10  # after it, only the batch's last step is (the frontier is R's latest time)
    _, m = join.push(frame([1], [5], [1]), now=40_000)  # S comes back with an old time: late
    assert m["late"] == 1
    # without a timeout the held-back state grows with the stream
    join = ShardJoin(JoinSpec(10, 10, "prob"))
    join.push(frame([0, 1], [0, 0], [1, 1]), now=0)
    for i in range(1, 40):
        _, m = join.push(frame([0] * 10, np.arange(10 * i, 10 * i + 10), [1] * 10), now=1_000 * i)
    assert m["held"] == 392  # all of them: S never passed time 0


def test_original_keys_join_only_when_equal_even_under_one_hash():
    spec = JoinSpec(5, 0, "none", carry_time=True, key_names=("user", "region"))
    join = ShardJoin(spec)
    rows = frame([0, 1, 1, 0], [0, 1, 2, 3], [7, 7, 7, 7])  # one operator key (a hash collision)
    rows["_t"] = [100, 101, 102, 103]
    rows["_k0"] = ["ann", "ann", "bob", "bob"]
    rows["_k1"] = ["eu", "eu", "eu", "us"]
    pairs, m = join.push(rows)
    tail, _ = join.push(END_ROW)
    pairs = pd.concat([pairs, tail])
    assert list(pairs.columns) == ["user", "region", "r_time", "s_time", "event_time"]
    assert sorted(zip(pairs["user"], pairs["region"], pairs["r_time"], pairs["s_time"])) == [("ann", "eu", 100, 101)]


def test_whole_numbers_are_one_rule():
    values = pd.Series(["12", " 13 ", "14.0", "1.5e1", "1.5", "x", "", None, "-3"])
    assert whole_numbers(values).tolist() == [12, 13, 14, 15, pd.NA, pd.NA, pd.NA, pd.NA, -3]
    axis = TimeAxis.of(INTEGER, 5)
    assert axis.steps(50, "window") == 10 and axis.units(10) == 50
    stamps = TimeAxis.of("timestamp", "1 second")
    assert stamps.steps("10 minutes", "window") == 600
    # steps and units round-trip, no lateness included: the job hands the query its lateness in units
    assert [stamps.steps(stamps.units(n), "allowed_lateness") for n in (0, 30)] == [0, 30]


def test_zero_lateness_in_any_unit_and_the_kinds_of_named_types():
    stamps, integers = TimeAxis.of("timestamp", "1 second"), TimeAxis.of(INTEGER, 1)
    assert [a.steps(v, "allowed_lateness") for a in (stamps, integers) for v in ("0 seconds", "0.0 min", 0)] == [0] * 6
    with pytest.raises(ShedError, match="'0 parsecs' is not a length of time"):
        stamps.steps("0 parsecs", "allowed_lateness")
    with pytest.raises(ShedError, match="step '1 second' is a length of time, but the time column holds integers"):
        TimeAxis.of(INTEGER, "1 second")
    assert [kind_named(t, None) for t in ("timestamp_ntz", "timestamp", "date", "bigint", "string")] == \
        ["timestamp", "timestamp", "date", "integer", "integer"]
    assert kind_named("string", "1 second") == "timestamp"


def test_a_workload_in_steps_of_several_units_equals_the_simulator():
    wl = zipf_workload(1.0, 20, 500, seed=1, window=25, warmup=0)
    join = ShardJoin(JoinSpec(25, 25, "prob", carry_time=True))
    rows = frame(wl.side, wl.time, wl.key)
    rows["_t"] = rows["time"] * 60 + 7  # minutes, with seconds inside the step
    pairs = pd.concat([join.push(rows)[0], join.push(END_ROW)[0]])
    expected = simulate(Workload(wl.side, wl.time, wl.key, 25, 0), "prob", 25, estimator="online", pairs=True).pairs
    assert sorted(zip(pairs["key"], pairs["r_time"], pairs["s_time"])) == sorted(
        zip(wl.key[expected[:, 0]], wl.time[expected[:, 0]] * 60 + 7, wl.time[expected[:, 1]] * 60 + 7))


def test_a_cap_on_held_back_tuples_joins_the_oldest_steps_early_or_is_refused_when_strict():
    def stalled(spec: JoinSpec, shard: int = 0) -> tuple[list[int], int]:
        join = ShardJoin(spec, shard)
        join.push(frame([0, 1], [0, 0], [1, 1]))
        held = [join.push(frame([0] * 10, np.arange(10 * i, 10 * i + 10), [1] * 10))[1]["held"]
                for i in range(1, 20)]
        return held, join.push(frame([1], [5], [1]))[1]["late"]  # S comes back with an old time

    held, late = stalled(JoinSpec(10, 10, "prob"))
    assert held[-1] == 192 and late == 0  # no cap: S stalled at time 0 holds every tuple back
    held, late = stalled(JoinSpec(10, 10, "prob", max_held=25))
    assert max(held) <= 25 and held[-1] >= 20 and late == 1  # whole steps of 1 tuple: 25 stay, the rest joined
    held, _ = stalled(JoinSpec(10, 10, "prob", shards=2, max_held=25), shard=1)
    assert max(held) <= 12  # shard 1's share: 25 // 2
    with pytest.raises(ShedError) as exc:
        stalled(JoinSpec(10, 10, "prob", max_held=25, strict=True))
    assert "more than its share 25 of max_held" in str(exc.value) and "\n" not in str(exc.value)
    with pytest.raises(ShedError, match="max_held must be an integer >= 0"):
        JoinSpec(10, 10, "prob", max_held=-1)
