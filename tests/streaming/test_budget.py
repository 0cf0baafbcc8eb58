"""One memory budget for all shards (no Spark): the division, its invariants, each shard against
the join operator fed with that shard's budget sequence, and the output quality against P = 1."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shedding import zipf_workload
from shedding.online.engine import JoinOperator
from shedding.online.estimators import OnlineEstimator
from shedding.streaming.budget import Census, divide
from shedding.streaming.partition import shard_budgets, shard_of
from shedding.streaming.replay import run_shards
from shedding.streaming.shard import JoinSpec


@settings(max_examples=100, deadline=None)
@given(keys=st.lists(st.integers(-50, 50), min_size=0, max_size=40, unique=True), data=st.data(),
       m_r=st.integers(0, 300), m_s=st.integers(0, 300), shards=st.integers(1, 8), variable=st.booleans(),
       by_worth=st.booleans())
def test_the_budgets_sum_to_m_and_follow_the_census(keys, data, m_r, m_s, shards, variable, by_worth):
    counts = np.array([data.draw(st.lists(st.integers(0, 1000), min_size=len(keys), max_size=len(keys)))
                       for _ in range(2)], dtype=np.int64).reshape(2, len(keys))
    census = Census(np.array(sorted(keys), dtype=np.int64), counts, 0, data.draw(st.integers(0, 5000)))
    budgets = divide(census, 100, (m_r + m_s, m_r, m_s), shards, variable, by_worth)
    assert budgets == divide(census, 100, (m_r + m_s, m_r, m_s), shards, variable, by_worth)  # deterministic
    assert len(budgets) == shards and sum(b[0] for b in budgets) == m_r + m_s
    assert all(b[0] == b[1] + b[2] and min(b) >= 0 for b in budgets)
    if not variable:
        assert sum(b[1] for b in budgets) == m_r and sum(b[2] for b in budgets) == m_s


def test_memory_goes_to_the_shard_of_the_valuable_keys():
    keys = np.arange(1, 9, dtype=np.int64)
    owner = shard_of(keys, 2)
    hot = keys[owner == 0][0]  # one key of shard 0 carries most arrivals on both sides
    counts = np.where(keys == hot, 1000, 10)[None, :].repeat(2, axis=0).astype(np.int64)
    budgets = divide(Census(keys, counts, 0, 999), 100, (100, 50, 50), 2, False)
    assert budgets[0][0] > 90 and budgets[0][0] + budgets[1][0] == 100


def _run_shards(spec: JoinSpec, wl, batches: int):
    """The shards of ``spec`` fed ``batches`` cuts of ``wl``, as the Spark job does."""
    rows = pd.DataFrame({"side": wl.side.astype(np.int64), "time": wl.time, "key": wl.key})
    return run_shards(spec, (rows.iloc[c] for c in np.array_split(np.arange(len(rows)), batches)))


def test_each_shard_equals_the_operator_fed_its_budget_sequence():
    wl = zipf_workload(1.0, 60, 6000, seed=4, window=100, warmup=0)
    spec = JoinSpec(100, 100, "prob", shards=4)
    pairs, metrics = _run_shards(spec, wl, 8)
    owner = shard_of(wl.key, 4)
    assert len({tuple(m["budget_r"] + m["budget_s"] for m in ms) for ms in zip(*metrics)}) > 1  # budgets moved
    for i in range(4):
        m, m_r, m_s = shard_budgets(100, None, 4)[i]
        op = JoinOperator(100, m, "prob", memory_split=(m_r, m_s), estimator=OnlineEstimator(), seed=i, pairs=True)
        mine = np.flatnonzero(owner == i)
        got, done = [], 0
        for m in metrics[i]:
            op.set_memory(m["budget_r"] + m["budget_s"], (m["budget_r"], m["budget_s"]))
            upto = np.searchsorted(wl.time[mine], m["released_until"]) if not m["ended"] else len(mine)
            part = mine[done:upto]
            fed = op.feed(wl.side[part], wl.time[part], wl.key[part])
            got += [(wl.key[mine[a]], wl.time[mine[a]], wl.time[mine[b]]) for a, b in fed.pairs]
            done = upto
            assert m["memory_r"] <= m["budget_r"] and m["memory_s"] <= m["budget_s"]
        assert sorted(got) == sorted(zip(pairs[i]["key"], pairs[i]["r_time"], pairs[i]["s_time"]))
    for batch in zip(*metrics):  # all shards together never hold more than M
        assert sum(m["memory_r"] + m["memory_s"] for m in batch) <= 100
        assert sum(m["budget_r"] + m["budget_s"] for m in batch) == 100


@pytest.mark.slow
@pytest.mark.parametrize("batches", [1, 20])
def test_shared_budget_keeps_97_percent_of_one_shards_output(batches):
    # the paper's workload (§4): 2 x 200,000 Zipf(1) tuples, domain 650, w = M = 500
    wl = zipf_workload(1.0, 650, 200_000, seed=0, window=500, warmup=0)
    one = sum(len(p) for p in _run_shards(JoinSpec(500, 500, "prob"), wl, batches)[0])
    for shards in (2, 4, 8):
        shared = sum(len(p) for p in _run_shards(JoinSpec(500, 500, "prob", shards=shards), wl, batches)[0])
        assert shared >= 0.97 * one, (shards, shared / one)
