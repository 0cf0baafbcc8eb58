"""The streaming shard (no Spark): whatever the micro-batches, it equals the batch simulator."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import assert_one_line_error
from shedding import Workload, simulate, zipf_workload
from shedding.errors import ShedError
from shedding.exact import exact_pairs
from shedding.online.engine import JoinOperator
from shedding.online.estimators import StaticEstimator
from shedding.streaming.partition import shard_budgets, shard_of, spark_hash
from shedding.streaming.shard import BAD, END, SHEDDING, JoinSpec, ShardJoin

POLICIES = [p for p in SHEDDING if p != "none"]


def canonical(side, time, key, window: int, warmup: int = 0) -> Workload:
    """The workload in the streaming join's order within a time step: side, then key."""
    order = np.lexsort((key, side, time))
    return Workload(np.asarray(side)[order], np.asarray(time)[order], np.asarray(key)[order], window, warmup)


def frame(wl: Workload, idx=None) -> pd.DataFrame:
    idx = np.arange(len(wl)) if idx is None else idx
    return pd.DataFrame({"side": wl.side[idx].astype(np.int64), "time": wl.time[idx], "key": wl.key[idx]})


def run_stream(spec: JoinSpec, batches: list[pd.DataFrame], table=None, shard: int = 0, roundtrip: bool = True):
    """Push the batches (then the end marker) through one shard; pairs and summed metrics."""
    join = ShardJoin(spec, shard, table)
    pairs, totals, peaks = [], {}, []
    for batch in [*batches, pd.DataFrame({"side": [END], "time": [0], "key": [0]})]:
        if roundtrip:
            join = ShardJoin.from_bytes(join.to_bytes())
        p, m = join.push(batch)
        pairs.append(p)
        peaks.append(m["memory_r"] + m["memory_s"])
        for k, v in m.items():
            totals[k] = totals.get(k, 0) + v
    return pd.concat(pairs, ignore_index=True), totals, peaks


def pair_set(pairs: pd.DataFrame) -> list[tuple]:
    return sorted(zip(pairs["key"], pairs["r_time"], pairs["s_time"]))


def simulated(wl: Workload, policy: str, memory: int, **kw) -> list[tuple]:
    res = simulate(wl, "exact" if policy == "none" else policy, memory, pairs=True, **kw)
    p = res.pairs
    return sorted(zip(wl.key[p[:, 0]], wl.time[p[:, 0]], wl.time[p[:, 1]]))


def out_of_step(wl: Workload, cuts: int, rng: np.random.Generator) -> list[pd.DataFrame]:
    """Micro-batches that cut R and S at different rows, rows shuffled inside each batch."""
    parts = []
    for s in (0, 1):
        idx = np.flatnonzero(wl.side == s)
        at = np.sort(rng.choice(np.arange(1, len(idx)), size=min(cuts, len(idx) - 1), replace=False)) \
            if len(idx) > 1 else []
        parts.append(np.split(idx, at))
    empty = np.zeros(0, dtype=np.int64)
    return [frame(wl, rng.permutation(np.concatenate([a, b])))
            for a, b in itertools.zip_longest(*parts, fillvalue=empty)]


@pytest.mark.parametrize("policy", POLICIES + ["none"])
# slow (make test runs it, make test-fast leaves it out): each case feeds 5,000 tuples through the shard
# three ways, 200 micro-batches among them; the fast loop keeps the property test below
@pytest.mark.slow
@pytest.mark.parametrize("estimator", ["online", "static"])
def test_any_micro_batches_equal_the_simulator(policy, estimator):
    wl = zipf_workload(1.0, 50, 2500, seed=1, window=120, warmup=0)
    rng = np.random.default_rng(7)
    table = StaticEstimator.from_workload(wl) if estimator == "static" else None
    spec = JoinSpec(120, 120, policy, estimator=estimator if policy != "none" else "online", seed=5)
    if table is not None and policy in ("age", "agev"):
        # the stream's static table holds key frequencies only, so AGE estimates its age curve
        # online there, where the simulator's static estimator knows it: compare with the operator
        # given the same table
        op = JoinOperator(120, 120, policy, warmup=wl.warmup, estimator=table, seed=5, pairs=True)
        p = op.feed(wl.side, wl.time, wl.key).pairs
        expected = sorted(zip(wl.key[p[:, 0]], wl.time[p[:, 0]], wl.time[p[:, 1]]))
    else:
        expected = simulated(wl, policy, 120, estimator=estimator, seed=5)
    for batches in (out_of_step(wl, 12, rng), [frame(wl)], out_of_step(wl, 200, rng)):
        pairs, totals, peaks = run_stream(spec, batches, table)
        assert pair_set(pairs) == expected
        assert totals["outputs"] == len(expected) and totals["arrivals"] == len(wl) and totals["late"] == 0
        if policy != "none":
            assert max(peaks) <= 120


@settings(max_examples=60, deadline=None)
@given(
    r=st.lists(st.tuples(st.integers(0, 12), st.integers(0, 3)), max_size=25),
    s=st.lists(st.tuples(st.integers(0, 12), st.integers(0, 3)), max_size=25),
    window=st.integers(1, 5),
    memory=st.integers(0, 6),
    policy=st.sampled_from(POLICIES + ["none"]),
    cuts=st.integers(1, 8),
    seed=st.integers(0, 3),
)
def test_asynchronous_streams_equal_the_simulator(r, s, window, memory, policy, cuts, seed):
    """Several tuples per step, empty steps, streams of different lengths, arbitrary cuts."""
    r, s = sorted(r), sorted(s)
    side = np.array([0] * len(r) + [1] * len(s), dtype=np.int64)
    time = np.array([t for t, _ in r] + [t for t, _ in s], dtype=np.int64)
    key = np.array([k for _, k in r] + [k for _, k in s], dtype=np.int64)
    wl = canonical(side, time, key, window)
    expected = simulated(wl, policy, memory, estimator="online", seed=seed)
    spec = JoinSpec(window, memory, policy, seed=seed)
    batches = out_of_step(wl, cuts, np.random.default_rng(seed))
    pairs, totals, _ = run_stream(spec, batches)
    assert pair_set(pairs) == expected
    assert totals["arrivals"] == len(wl)


def test_none_is_the_exact_join_and_memory_2w_minus_2_changes_nothing():
    wl = zipf_workload(0.8, 30, 1500, seed=3, window=80, warmup=0)
    p = exact_pairs(wl)
    exact = sorted(zip(wl.key[p[:, 0]], wl.time[p[:, 0]], wl.time[p[:, 1]]))
    pairs, _, _ = run_stream(JoinSpec(80, 0, "none"), out_of_step(wl, 9, np.random.default_rng(0)))
    assert pair_set(pairs) == exact
    for policy in POLICIES:
        pairs, totals, _ = run_stream(JoinSpec(80, 2 * 80 - 2, policy), [frame(wl)])
        assert pair_set(pairs) == exact and totals["shed"] == 0


def test_late_tuples_are_counted_and_dropped_or_refused():
    wl = zipf_workload(1.0, 20, 600, seed=2, window=40, warmup=0)
    batches = out_of_step(wl, 6, np.random.default_rng(1))
    late = pd.DataFrame({"side": [0, 1], "time": [3, 5], "key": [1, 2]})  # steps long joined
    spec = JoinSpec(40, 40, "prob")
    pairs, totals, _ = run_stream(spec, batches[:3] + [pd.concat([batches[3], late])] + batches[4:])
    assert totals["late"] == 2 and totals["arrivals"] == len(wl)
    assert pair_set(pairs) == simulated(wl, "prob", 40, estimator="online")
    join = ShardJoin(JoinSpec(40, 40, "prob", strict=True))
    for b in batches[:3]:
        join.push(b)
    with pytest.raises(ShedError) as exc:
        join.push(late)
    assert_one_line_error(exc, "late tuple", "strict")


def test_bad_rows_are_counted_and_skipped():
    wl = zipf_workload(1.0, 20, 400, seed=4, window=30, warmup=0)
    batches = [frame(wl)]
    batches.insert(0, pd.DataFrame({"side": [BAD, BAD, BAD], "time": [0, 0, 0], "key": [0, 0, 0]}))
    pairs, totals, _ = run_stream(JoinSpec(30, 30, "life"), batches)
    assert totals["bad"] == 3
    assert pair_set(pairs) == simulated(wl, "life", 30, estimator="online")


def test_the_end_of_input_joins_the_held_tail_and_later_tuples_are_late():
    # R runs to time 99, S only to 49: steps from 49 on stay held until the end of input
    r_keys = np.arange(100) % 7
    s_keys = np.arange(50) % 5
    wl = Workload.from_streams(np.arange(100), r_keys, np.arange(50), s_keys, window=20, warmup=0)
    join = ShardJoin(JoinSpec(20, 16, "prob"))
    held_pairs, m = join.push(frame(wl))
    assert m["held"] == 51 + 1 and m["released_until"] == 49  # R 49..99 and S 49
    tail, m = join.push(pd.DataFrame({"side": [END], "time": [0], "key": [0]}))
    assert m["held"] == 0 and 0 < m["memory_r"] + m["memory_s"] <= 16  # in memory when the end came
    assert sum(join.op.in_memory) == 0  # then emptied
    assert pair_set(pd.concat([held_pairs, tail])) == simulated(wl, "prob", 16, estimator="online")
    _, m = join.push(frame(wl, np.arange(3)))
    assert m["late"] == 3 and m["arrivals"] == 0


def test_payloads_follow_their_tuples():
    wl = zipf_workload(1.0, 10, 300, seed=0, window=25, warmup=0)
    f = frame(wl)
    f["r_tag"] = np.where(f["side"] == 0, "r" + f["time"].astype(str), None)
    f["s_tag"] = np.where(f["side"] == 1, "s" + f["time"].astype(str), None)
    pairs, _, _ = run_stream(JoinSpec(25, 20, "rand", payload_r=("tag",), payload_s=("tag",)),
                             [f.iloc[:100].sample(frac=1, random_state=0), f.iloc[100:]])
    assert len(pairs) and (pairs["r_tag"] == "r" + pairs["r_time"].astype(str)).all()
    assert (pairs["s_tag"] == "s" + pairs["s_time"].astype(str)).all()


def test_state_stays_bounded_as_the_stream_grows():
    sizes = []
    for length in (2000, 8000):
        wl = zipf_workload(1.0, 50, length, seed=0, window=100, warmup=0)
        join = ShardJoin(JoinSpec(100, 100, "prob"))
        for part in np.array_split(np.arange(len(wl)), 10):
            join.push(frame(wl, part))
        sizes.append(len(join.to_bytes()))
    assert sizes[1] < 1.5 * sizes[0]


def test_shards_split_the_memory_and_the_keys():
    assert shard_budgets(500, None, 4) == [(126, 63, 63), (126, 63, 63), (124, 62, 62), (124, 62, 62)]
    assert sum(m for m, _, _ in shard_budgets(7, (3, 4), 3)) == 7
    keys = np.arange(-1000, 1000)
    shards = shard_of(keys, 8)
    assert shards.min() == 0 and shards.max() == 7 and np.bincount(shards).min() > 150
    # Spark's hash(CAST(0 AS BIGINT)), hash(1L), hash(-1L), hash(2^40L) as printed by Spark SQL
    assert spark_hash(np.array([0, 1, -1, 2**40])).tolist() == [-1670924195, -1712319331, -939490007, -1596767687]


def test_the_learner_is_the_one_the_spec_names():
    """HAZARD's ``tuning`` reaches every shard (and survives the checkpoint's bytes): the stream
    equals the simulator with the same learner, which differs from the default one here."""
    from shedding.datasets.age import age_workload
    from shedding.online.tuning import HazardTuning

    aged = age_workload(length=1500, window=100, lag_mean=30, lag_spread=5)
    wl = canonical(aged.side, aged.time, aged.key, 100)
    tuning = HazardTuning(first=4, ratio=1.5)
    spec = JoinSpec(100, 20, "hazard", tuning=" ratio=1.5,first=4")
    assert spec.tuning == tuning.spec == JoinSpec(**spec.as_dict()).tuning
    assert "tuning" not in JoinSpec(100, 20, "hazard").as_dict()  # parameters as a checkpoint from before it kept them
    pairs, _, _ = run_stream(spec, out_of_step(wl, 7, np.random.default_rng(3)))
    expected = simulated(wl, "hazard", 20, estimator="online", tuning=tuning)
    assert pair_set(pairs) == expected != simulated(wl, "hazard", 20, estimator="online")


def test_the_groups_are_the_ones_the_spec_names():
    """HAZARD's payload groups in the stream (their hash, the rows' GROUP_VALUE column, as Spark's
    xxhash64 gives it) rank as the simulator's groups of the same values (their dense ranks): the
    same pairs, fed in micro-batches cut anywhere, and not the pairs without groups."""
    from shedding.datasets.age import age_workload
    from shedding.streaming.shard import GROUP_VALUE

    aged = age_workload(length=1500, window=100, lag_mean=30, lag_spread=5, background=0.3, skew=0.5, domain=400)
    wl = canonical(aged.side, aged.time, aged.key, 100)
    values = wl.key % 5  # a group per key class, a column of both streams
    wl.meta["payload"] = pd.DataFrame({"endpoint": np.array(["/a", "/b", "/c", "/d", "/e"])[values]})
    spec = JoinSpec(100, 20, "hazard", group="endpoint")
    assert spec.group == ("endpoint",) == JoinSpec(**spec.as_dict()).group
    assert spec.as_dict()["group"] == ["endpoint"] and "group" not in JoinSpec(100, 20, "hazard").as_dict()
    hashed = np.array([-7046029254386353131, 3, 2**62, -1, 12345])[values]  # any 64-bit code per value
    batches = [b.assign(**{GROUP_VALUE: hashed[b.index.to_numpy()]}) for b in
               (frame(wl).iloc[lo:hi] for lo, hi in ((0, 700), (700, 1800), (1800, len(wl))))]
    pairs, _, _ = run_stream(spec, batches)
    expected = simulated(wl, "hazard", 20, estimator="online", group="endpoint")
    assert pair_set(pairs) == expected != simulated(wl, "hazard", 20, estimator="online")


def test_the_spec_takes_hazards_default_grouping_when_none_is_given():
    from shedding.streaming.spec import spec_group

    assert spec_group(None, "hazard", (0, 9)) == ("auto-history",) == spec_group(None, "hazardv", (-3, 9))
    assert spec_group(None, "hazard", None) == () == spec_group(None, "prob", (0, 9))
    assert spec_group("none", "hazard", (0, 9)) == () == spec_group((), "hazard", (0, 9))
    assert spec_group("dest,history", "hazard", None) == ("dest", "history")


@pytest.mark.parametrize("group, bounds", [("history", (0, 39)), ("endpoint,history", None),
                                           ("auto-history", (0, 39)), (None, (0, 39))])
def test_the_keys_history_in_the_stream_is_the_simulators(group, bounds):
    """group="history": a shard keeps its keys' history in its state (through the checkpoint's
    bytes between micro-batches that cut R and S apart anywhere) and ranks as the simulator does
    with the same grouping, alone or beside a payload group, over a range or the window: the
    same pairs, and not those without it. So does ``auto-history``, HAZARD's default under a
    one-sided range (``group`` None: :func:`~shedding.streaming.spec.spec_group` gives the
    simulator's default)."""
    from shedding.streaming.spec import spec_group
    from shedding.streaming.shard import GROUP_VALUE

    rng = np.random.default_rng(5)
    n = 700
    rt, rk = np.sort(rng.integers(0, 2000, n)), rng.integers(0, 60, n)
    side, time, key = np.r_[np.zeros(n, np.int64), np.ones(n, np.int64)], np.r_[rt, rt + 3 + 9 * (rk % 4)], np.r_[rk, rk]
    order = np.lexsort((key, side, time))
    wl = Workload(side[order], time[order], key[order], 40, 0, range=bounds)
    wl.meta["payload"] = pd.DataFrame({"endpoint": np.array(["/a", "/b", "/c"])[wl.key % 3]})
    spec = JoinSpec(40, 12, "hazard", group=spec_group(group, "hazard", bounds), range=bounds)
    assert JoinSpec(**spec.as_dict()).group == spec.group and spec.group_columns == (
        [GROUP_VALUE] if "endpoint" in (group or "") else [])
    assert spec.group == (("auto-history",) if group in (None, "auto-history") else tuple(group.split(",")))
    batches = [b.assign(**{GROUP_VALUE: np.array([11, -3, 2**40])[b["key"].to_numpy() % 3]})
               for b in out_of_step(wl, 9, np.random.default_rng(2))]
    pairs, _, _ = run_stream(spec, batches)
    expected = simulated(wl, "hazard", 12, estimator="online", group=group)
    assert pair_set(pairs) == expected != simulated(wl, "hazard", 12, estimator="online", group="none")


def test_more_groups_than_the_bound_stop_the_shard():
    from shedding.online.groups import MAX_GROUPS
    from shedding.streaming.shard import GROUP_VALUE

    join = ShardJoin(JoinSpec(10, 4, "hazard", group=["endpoint"]))
    n = MAX_GROUPS + 1
    batch = pd.DataFrame({"side": np.arange(n) % 2, "time": np.arange(n) // 2, "key": np.arange(n) % 7,
                          GROUP_VALUE: np.arange(n)})
    end = pd.DataFrame({"side": [END], "time": [0], "key": [0], GROUP_VALUE: [0]})
    join.push(pd.concat([batch.iloc[:-1], end]))  # the end of input releases every held step: 1,000 groups
    with pytest.raises(ShedError, match=f"^group has more than {MAX_GROUPS:,} distinct values"):
        join = ShardJoin(JoinSpec(10, 4, "hazard", group=["endpoint"]))
        join.push(pd.concat([batch, end]))


@pytest.mark.parametrize("bad, needle", [
    (dict(window=5, memory=4, group="endpoint"), "group is HAZARD's payload column"),
    (dict(window=5, memory=4, shedding="none", group="endpoint"), "not none's"),
    (dict(window=5, memory=4, shedding="hazard", group="a,,b"), "empty column name"),
    (dict(window=0, memory=1), "window"),
    (dict(window=5, memory=-1), "memory"),
    (dict(window=5, memory=4, shedding="magic"), "shedding"),
    (dict(window=5, memory=4, shards=0), "shards"),
    (dict(window=5, memory=4, memory_split=(1, 2)), "split"),
    (dict(window=5, memory=4, estimator="static", decay=0.9), "decay"),
    (dict(window=5, memory=4, seed=-1), "seed"),
    (dict(window=5, memory=4, tuning="ratio=2"), "tuning sets the learner of age, agev, hazard, hazardv"),
    (dict(window=5, memory=4, shedding="hazard", tuning="ratio=0"), "ratio must be a number >= 1"),
    # refused on the driver, not in a Spark task
    (dict(window=10**6, memory=4, shedding="hazard", tuning="first=1,ratio=1"), "more than 4,096 age buckets"),
])
def test_bad_parameters_are_one_line_errors(bad, needle):
    with pytest.raises(ShedError) as exc:
        JoinSpec(**bad)
    assert_one_line_error(exc, needle)


def test_the_pickled_processor_imports_neither_pandas_nor_numba(tmp_path) -> None:
    # Spark unpickles the processor in a fresh driver-side Python process when a query plans its
    # first batch; pandas and numba there cost about 0.4 s per query start
    import subprocess
    import sys

    from pyspark import cloudpickle

    from pyspark.sql.types import LongType, StringType, StructField, StructType

    from shedding.streaming.processor import ShedProcessor

    spec = JoinSpec(50, 20, "prob", shards=2, payload_r=("a",))
    table = StaticEstimator(np.array([1, 2]), np.array([3.0, 4.0]), np.array([5.0, 6.0]))
    blob = tmp_path / "processor.pickle"
    schema = StructType([StructField(c, LongType()) for c in ("key", "r_time", "s_time")] +
                        [StructField("r_a", StringType()), StructField("metrics", StringType())])
    blob.write_bytes(cloudpickle.dumps(ShedProcessor(spec, table, schema, str(tmp_path), str(tmp_path))))
    check = ("import pickle, sys; p = pickle.loads(open(sys.argv[1], 'rb').read()); "
             "heavy = sorted(m for m in ('pandas', 'numba', 'shedding.online.engine') if m in sys.modules); "
             "print(heavy, p.spec['shards'], p.table[1].tolist())")
    out = subprocess.run([sys.executable, "-c", check, str(blob)], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["[]", "2", "[3.0,", "4.0]"]


def test_packed_rows_unpack_to_each_shards_rows() -> None:
    import pyarrow as pa

    from shedding.streaming.budget import Census
    from shedding.streaming.processor import Packer, unpack_rows

    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"side": rng.integers(0, 2, 1000).astype(np.int32), "time": rng.integers(0, 99, 1000),
                          "key": rng.integers(0, 9, 1000), "shard": rng.integers(0, 3, 1000).astype(np.int32),
                          "r_tag": [None if i % 3 else f"x{i}" for i in range(1000)]})
    batches = [pa.RecordBatch.from_pandas(part, preserve_index=False) for part in (frame[:600], frame[600:])]
    packed = [p.to_pandas() for p in Packer(4, census=True)(iter(batches))]
    assert sum(len(p) for p in packed) == 8  # one row per shard and Arrow batch, a tick for shard 3
    whole = Census.of(frame["side"].to_numpy(), frame["key"].to_numpy(), frame["time"].to_numpy())
    for shard in range(4):
        mine = [p[p["shard"] == shard] for p in packed]
        got, census, now = unpack_rows(iter(mine))
        expected = frame[frame["shard"] == shard].reset_index(drop=True)
        if shard < 3:
            pd.testing.assert_frame_equal(got, expected)
        else:
            assert got.empty and list(got.columns) == ["side", "time", "key"]
        # every shard learns the census of the whole batch (all shards)
        assert (census.keys == whole.keys).all() and (census.counts == whole.counts).all() and now is None
    one = [p.to_pandas() for p in Packer(1)(iter([pa.RecordBatch.from_pandas(frame.assign(shard=np.int32(0)))]))]
    got, census, _ = unpack_rows(iter(one))
    assert len(one) == 1 and len(got) == 1000 and census is None  # one shard: the batch as it is, no census
