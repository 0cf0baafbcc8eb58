"""``JoinOperator.set_memory``: a budget changed between feeds equals the reference join run with
that budget from the admission of the last fed step on (what the streaming shards do when they
re-divide M between micro-batches)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference import reference_run
from strategies import workloads
from shedding.errors import ShedError
from shedding.online.engine import JoinOperator
from shedding.online.estimators import OnlineEstimator, StaticEstimator


@st.composite
def runs(draw):
    """A small workload cut into feeds (whole steps), and the budgets set after each feed."""
    wl = draw(workloads())
    steps = sorted(set(wl.time.tolist()))
    cuts = sorted(draw(st.sets(st.sampled_from(steps), max_size=len(steps)))) if steps else []
    budgets = draw(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=len(cuts) + 1,
                            max_size=len(cuts) + 1))
    return wl, cuts, budgets


@settings(max_examples=150, deadline=None)
@given(run=runs(), policy=st.sampled_from(["prob", "life", "probv", "lifev"]),
       estimator=st.sampled_from(["static", "online"]))
def test_budgets_set_between_feeds_equal_the_reference(run, policy, estimator):
    wl, cuts, budgets = run
    side, time, key, w = wl.side, wl.time, wl.key, wl.window
    est = StaticEstimator.from_workload(wl) if estimator == "static" else OnlineEstimator()
    op = JoinOperator(w, sum(budgets[0]), policy, memory_split=budgets[0], warmup=wl.warmup, estimator=est,
                      pairs=True, record=True)
    pairs, departures = [], []
    start = 0
    for cut, budget in zip([*cuts, None], budgets[1:] + [None]):
        end = len(time) if cut is None else int(np.searchsorted(time, cut, side="right"))
        fed = op.feed(side[start:end], time[start:end], key[start:end])
        pairs.append(fed.pairs)
        departures.append(fed.departures)
        if budget is not None:
            departures.append(op.set_memory(sum(budget), budget))
            n_r, n_s = op.in_memory
            assert (n_r + n_s <= sum(budget)) if policy.endswith("v") else (n_r <= budget[0] and n_s <= budget[1])
        start = end
    departures.append(op.finish())

    def budget_at(t):
        # the budget set after the feed that ended at step c holds from step c + 1 on, and a lower
        # one already at c's admission (the tuples it keeps are the best ones c kept)
        j = int(np.searchsorted(cuts, t, side="left"))
        m_r, m_s = budgets[j]
        if j < len(cuts) and cuts[j] == t:
            later = budgets[j + 1]
            total = min(m_r + m_s, sum(later))
            m_r, m_s = min(m_r, later[0]), min(m_s, later[1])
            return total, m_r, m_s
        return m_r + m_s, m_r, m_s

    _, ref_pairs, left, admitted = reference_run(
        list(side), list(time), list(key), w, *budgets[0], wl.warmup, policy.rstrip("v"), policy.endswith("v"), estimator,
        sum(budgets[0]), budget_at=budget_at)
    assert sorted(map(tuple, np.concatenate(pairs).tolist())) == ref_pairs
    dep = np.concatenate(departures)
    assert sorted(dep[:, 0]) == list(range(len(time)))  # every tuple left once
    order = np.argsort(dep[:, 0])
    np.testing.assert_array_equal(dep[order, 1], left)
    np.testing.assert_array_equal(dep[order, 2].astype(bool), admitted)


def test_rand_shrinks_to_the_budget_and_a_schedule_replay_refuses():
    rng = np.random.default_rng(0)
    time = np.repeat(np.arange(40), 2)
    op = JoinOperator(30, 40, "randv", seed=3, record=True)
    op.feed(np.tile([0, 1], 40), time, rng.integers(0, 5, 80))
    assert sum(op.in_memory) == 40
    gone = op.set_memory(7)
    assert sum(op.in_memory) == 7 and len(gone) == 33 and (gone[:, 1] == 39).all()
    with pytest.raises(ShedError, match="fixed"):
        JoinOperator(5, 4, "opt-schedule", schedule_left=np.zeros(10, dtype=np.int64)).set_memory(2)
