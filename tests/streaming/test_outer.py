"""Outer joins in the streaming shard (no Spark): every preserved tuple is in a pair or in exactly
one outer row, an outer row not marked shed has no partner at all (brute force), and without
shedding the outer rows are exactly the tuples without a partner."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import assert_one_line_error
from shedding import Workload, simulate
from shedding.errors import ShedError
from shedding.timerange import range_horizon
from shedding.streaming.shard import END, EVENT_TIME, HOWS, SHED, SHEDDING, JoinSpec, ShardJoin

POLICIES = [p for p in SHEDDING if p != "none"]
OUTER = [h for h in HOWS if h != "inner"]


def workload(r: list, s: list, window: int, bounds: tuple[int, int] | None = None) -> tuple[Workload, pd.DataFrame]:
    """The workload in the shard's order within a step (side, key), and its rows with an ``id``
    payload per tuple (its position in that order)."""
    side = np.array([0] * len(r) + [1] * len(s), dtype=np.int64)
    time = np.array([t for t, _ in r] + [t for t, _ in s], dtype=np.int64)
    key = np.array([k for _, k in r] + [k for _, k in s], dtype=np.int64)
    order = np.lexsort((key, side, time))
    wl = Workload(side[order], time[order], key[order], window, 0, range=bounds)
    rows = pd.DataFrame({"side": wl.side, "time": wl.time, "key": wl.key, "r_id": np.arange(len(wl)),
                         "s_id": np.arange(len(wl))})
    return wl, rows


def run(spec: JoinSpec, rows: pd.DataFrame, cuts: int, seed: int) -> tuple[pd.DataFrame, dict]:
    """The rows in ``cuts`` micro-batches (shuffled within each), the shard restored from its bytes
    before each, then the end marker; the output rows and the summed metrics."""
    rng = np.random.default_rng(seed)
    at = np.sort(rng.choice(np.arange(1, max(len(rows), 2)), size=min(cuts, max(len(rows) - 1, 0)), replace=False))
    parts = [rows.iloc[rng.permutation(idx)] for idx in np.split(np.arange(len(rows)), at)]
    join, out, totals = ShardJoin(spec), [], {}
    for part in [*parts, pd.DataFrame({"side": [END], "time": [0], "key": [0]})]:
        join = ShardJoin.from_bytes(join.to_bytes())
        p, m = join.push(part.reset_index(drop=True))
        out.append(p)
        totals = {k: totals.get(k, 0) + v for k, v in m.items()}
    return pd.concat(out, ignore_index=True), totals


def partners(wl: Workload) -> tuple[set, set]:
    """The ids of the R and of the S tuples with at least one partner (brute force: equal keys,
    lo <= s.time - r.time <= hi)."""
    lo, hi = (-(wl.window - 1), wl.window - 1) if wl.range is None else wl.range
    r = np.flatnonzero(wl.side == 0)
    s = np.flatnonzero(wl.side == 1)
    gap = wl.time[s][None, :] - wl.time[r][:, None]
    hit = (wl.key[r][:, None] == wl.key[s][None, :]) & (lo <= gap) & (gap <= hi)
    return set(r[hit.any(axis=1)].tolist()), set(s[hit.any(axis=0)].tolist())


tuples = st.lists(st.tuples(st.integers(0, 14), st.integers(0, 3)), max_size=25)
#: a time range (lo, hi) with either end negative, zero or positive, or None: the window
ranges = st.one_of(st.none(), st.tuples(st.integers(-5, 5), st.integers(-5, 5)).map(lambda b: tuple(sorted(b))))


@settings(max_examples=100, deadline=None)
@given(r=tuples, s=tuples, window=st.integers(1, 5), bounds=ranges, memory=st.integers(0, 6),
       policy=st.sampled_from(POLICIES + ["none"]), how=st.sampled_from(OUTER), cuts=st.integers(0, 6),
       seed=st.integers(0, 3))
def test_outer_rows_account_for_every_tuple(r, s, window, bounds, memory, policy, how, cuts, seed):
    if bounds is not None:
        window = range_horizon(*bounds)
    wl, rows = workload(r, s, window, bounds)
    spec = JoinSpec(window, memory, policy, seed=seed, how=how, range=bounds, payload_r=("id",), payload_s=("id",))
    out, totals = run(spec, rows, cuts, seed)
    pairs = out[out["r_time"].notna() & out["s_time"].notna()]
    lone = out[out["r_time"].isna() | out["s_time"].isna()]
    expected = simulate(wl, "exact" if policy == "none" else policy, memory, pairs=True, estimator="online",
                        seed=seed).pairs
    assert sorted(zip(pairs["r_id"], pairs["s_id"])) == sorted(map(tuple, expected.tolist()))
    assert totals["outputs"] == len(pairs) and not pairs[SHED].any()
    # the metrics count the outer rows, and those of them marked shed
    assert totals["unpaired"] == len(lone) and totals["unpaired_shed"] == int(lone[SHED].sum())
    assert (pairs[EVENT_TIME] == np.maximum(pairs["r_time"], pairs["s_time"])).all()
    found = partners(wl)
    for side, name, other in ((0, "r", "s"), (1, "s", "r")):
        mine = lone[lone[f"{other}_time"].isna()]
        assert mine[f"{other}_id"].isna().all()
        ids = np.flatnonzero(wl.side == side)
        if side not in spec.preserved:
            assert mine.empty
            continue
        paired = set(pairs[f"{name}_id"].astype(int))
        # every preserved tuple is in a pair or in exactly one outer row
        assert sorted(mine[f"{name}_id"].astype(int)) == sorted(set(ids.tolist()) - paired)
        # a row not marked shed has no partner at all; without shedding none is marked
        clean = set(mine.loc[~mine[SHED].astype(bool), f"{name}_id"].astype(int))
        assert not clean & found[side]
        if policy == "none":
            assert clean == set(ids.tolist()) - found[side]
        # the event time is never before the tuple's own time
        assert (mine[EVENT_TIME] >= mine[f"{name}_time"]).all()


def lone_ids(out: pd.DataFrame, side: int) -> tuple[set, set]:
    """The ids of ``side``'s tuples with an outer row, and of those whose row is not marked shed."""
    name, other = ("r", "s") if side == 0 else ("s", "r")
    mine = out[out[f"{other}_time"].isna()]
    return set(mine[f"{name}_id"].astype(int)), set(mine.loc[~mine[SHED].astype(bool), f"{name}_id"].astype(int))


@pytest.mark.parametrize("policy", ["prob", "life", "rand", "probv"])
@pytest.mark.parametrize("ranged", [False, True])
def test_a_row_not_marked_shed_had_no_partner_on_many_small_streams(policy, ranged):
    """Small memories on short streams, where a partner shed before a kept tuple arrived is common:
    such a tuple's row is marked, and every unmarked row is a tuple without a partner."""
    rng = np.random.default_rng(11)
    marked_kept = 0
    for _ in range(60):
        r, s = ([(int(rng.integers(0, 15)), int(rng.integers(0, 4))) for _ in range(rng.integers(0, 25))]
                for _ in range(2))
        window, memory = int(rng.integers(2, 6)), int(rng.integers(1, 5))
        bounds = tuple(sorted(int(b) for b in rng.integers(-4, 5, 2))) if ranged else None
        window = range_horizon(*bounds) if bounds else window
        wl, rows = workload(r, s, window, bounds)
        spec = JoinSpec(window, memory, policy, how="full", range=bounds, payload_r=("id",), payload_s=("id",))
        out, _ = run(spec, rows, int(rng.integers(0, 5)), 0)
        found = partners(wl)
        for side in (0, 1):
            rowed, clean = lone_ids(out, side)
            assert not clean & found[side]
            marked_kept += len((rowed - clean) & found[side])
    assert marked_kept > 0, "some tuples should lose their partner to shedding"


def test_outer_rows_are_emitted_once_in_time_order_across_batches():
    """Each micro-batch's rows (pairs and outer rows) have event times at or after every earlier
    batch's, so a downstream watermark of 0 drops none."""
    rng = np.random.default_rng(4)
    n = 600
    rows = pd.DataFrame({"side": rng.integers(0, 2, n), "time": np.sort(rng.integers(0, 400, n)),
                         "key": rng.integers(0, 40, n)})
    join, top = ShardJoin(JoinSpec(6, 8, "prob", how="full")), -1
    marked = 0
    for part in [*(rows.iloc[idx] for idx in np.array_split(np.arange(n), 9)), pd.DataFrame({"side": [END], "time": [0], "key": [0]})]:
        out, _ = join.push(part.reset_index(drop=True))
        if len(out):
            assert out[EVENT_TIME].min() >= top
            top = out[EVENT_TIME].max()
            marked += int(out[SHED].sum())
    assert marked > 0, "M = 8 should shed some tuples that never paired"


def test_inner_join_output_has_no_shed_column_and_a_bad_how_is_refused():
    out, _ = run(JoinSpec(3, 4, "prob"), pd.DataFrame({"side": [0, 1], "time": [0, 1], "key": [1, 1]}), 0, 0)
    assert list(out.columns) == ["key", "r_time", "s_time", EVENT_TIME]
    with pytest.raises(ShedError) as err:
        JoinSpec(3, 4, "prob", how="outer_left")
    assert_one_line_error(err, "how")
    assert "inner, left, right, full" in str(err.value)
    assert JoinSpec(3, 4, "prob", how="left").as_dict()["how"] == "left"
    assert "how" not in JoinSpec(3, 4, "prob").as_dict()  # a checkpoint of the inner join made before it existed
