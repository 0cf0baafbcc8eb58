"""The age-aware prototypes (shedding.online.ageing, shedding.online.hazard): the valued engine
agrees with the kernel on PROB, and every valuer keeps the shared invariants."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shedding.datasets import zipf_workload
from shedding.datasets.age import age_workload
from shedding.exact import exact_count, exact_pairs
from shedding.online.ageing import AgeValuer, ProbValuer, hold_age, pair_age_curves, run_valued
from shedding.online.hazard import HazardValuer, geometric_edges
from shedding.run import run_policy
from strategies import workloads


def valuers(wl):
    span = max(int(wl.time[-1] - wl.time[0]) + 1, 1) if len(wl) else 1
    rates = np.array([wl.n_r, wl.n_s]) / span
    group = np.arange(len(wl)) % 3
    return [ProbValuer(), ProbValuer(online=False), AgeValuer(pair_age_curves(wl), rates),
            AgeValuer(learner=HazardValuer(every=2)), HazardValuer(every=2),
            HazardValuer(group=group, sample=2, matched=False, every=3)]


@pytest.mark.parametrize("estimator", ["static", "online"])
@pytest.mark.parametrize("variable", [False, True])
def test_prob_valuer_is_the_kernels_prob(estimator, variable):
    wl = zipf_workload(length=600, window=80, seed=3)
    got = run_valued(wl, 50, ProbValuer(online=estimator == "online"), variable=variable)
    want = run_policy(wl, "probv" if variable else "prob", 50, estimator=estimator)
    assert got.outputs == want.outputs
    assert np.array_equal(got.left, want.schedule.left) and np.array_equal(got.admitted, want.schedule.admitted)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wl=workloads(), memory=st.integers(0, 8), variable=st.booleans())
def test_outputs_are_a_subset_of_exact(wl, memory, variable):
    exact = {tuple(p) for p in exact_pairs(wl).tolist()}
    for valuer in valuers(wl):
        run = run_valued(wl, memory, valuer, variable=variable, pairs=True)
        assert {tuple(p) for p in run.pairs.tolist()} <= exact
        assert run.outputs == len(run.pairs)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wl=workloads(), variable=st.booleans())
def test_enough_memory_is_exact(wl, variable):
    memory = max(2 * wl.window - 2, 0) + 4  # more than any window holds (several tuples per step)
    memory = max(memory, 2 * len(wl))
    for valuer in valuers(wl):
        assert run_valued(wl, memory, valuer, variable=variable).outputs == exact_count(wl)


@pytest.mark.parametrize("variable", [False, True])
def test_at_2w_minus_2_synchronous_streams_are_exact(variable):
    wl = zipf_workload(length=120, window=20, seed=1)
    for valuer in valuers(wl):
        assert run_valued(wl, 2 * wl.window - 2, valuer, variable=variable).outputs == exact_count(wl)


def test_hold_age_keeps_tuples_to_their_partner():
    f = np.zeros(100)
    f[40] = 1.0  # every partner at age 40
    assert hold_age(f, 1.0, 80) == (40, 1.0)  # room for all: hold each to 40
    n, gain = hold_age(f, 1.0, 20)  # room for half: hold half of them to 40
    assert (n, gain) == (40, 0.5)
    decreasing = np.r_[0.0, np.linspace(1.0, 0.0, 99)]
    assert hold_age(decreasing, 1.0, 30)[0] == 30  # decreasing curve: keep the newest


def test_pair_age_curves_count_partners_per_age():
    wl = age_workload(length=2000, window=50, lag="uniform", lag_mean=10, lag_spread=0, background=0.0,
                      domain=10**6, skew=0.0, seed=2)
    f = pair_age_curves(wl)
    assert f[0, 10] == pytest.approx(1.0, abs=0.01) and f[0].sum() == pytest.approx(1.0, abs=0.01)
    assert f[1].sum() < 0.01


def test_geometric_edges_cover_the_window():
    for w in (1, 2, 7, 400, 720):
        edges = geometric_edges(w)
        assert edges[0] == 1 and edges[-1] == max(w, 1) and np.all(np.diff(edges) >= 1)


@pytest.mark.slow
def test_hazard_learns_the_age_curve_and_reduces_to_prob_on_iid():
    wl = age_workload(length=1500, window=100, lag_mean=40, lag_spread=3, background=0.0, domain=10**6, skew=0.0)
    learner = HazardValuer()
    run_valued(wl, 20, learner)
    peak = learner.edges[np.argmax(learner.e[0, 0, 0])]
    assert 30 <= peak <= 45  # the unmatched R tuples' rate peaks at the lag
    iid = zipf_workload(length=2000, window=200, seed=5)
    hazard = run_valued(iid, 100, HazardValuer()).outputs
    prob = run_valued(iid, 100, ProbValuer()).outputs
    assert hazard == pytest.approx(prob, rel=0.01)


def test_partner_rate_is_per_step_so_far_or_over_the_whole_stream():
    from shedding.online.ageing import Counts

    wl = zipf_workload(length=100, window=10, seed=4)
    online, static = Counts(), Counts(online=False)
    for counts in (online, static):
        counts.start(wl, (10, 10))
        counts.arrive(0, 0, 2)
        counts.arrive(1, 2, 4)
    x = np.array([0])
    key = wl.key[0]
    s_keys = wl.key[wl.side == 1]
    assert online.partner_rate(x, 1)[0] == pytest.approx(np.count_nonzero(s_keys[:2] == key) / 2)
    assert static.partner_rate(x, 1)[0] == pytest.approx(np.count_nonzero(s_keys == key) / 100)
