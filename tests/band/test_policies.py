"""The online policies on band joins (paper §3.3): the invariants of the join semantics, the
keyed engine as the eps = 0 special case, and PROB's band probability from the histogram."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shedding.band import BandWorkload, exact_pairs
from shedding.band.estimator import BandHistogram
from shedding.band.simulate import BandReference, simulate_band
from shedding.datasets import zipf_workload
from shedding.exact import exact_memory
from shedding.model import Workload
from shedding.online import simulate
from shedding.online.policies import BAND, names_for

POLICIES = list(names_for(BAND))  # the registry's policies that run on the band join


@pytest.mark.parametrize("estimator", ["static", "online"])
@pytest.mark.parametrize("policy", ["prob", "life", "probv", "lifev"])
def test_eps_zero_equals_the_keyed_engine(policy: str, estimator: str) -> None:
    """With eps = 0 on integer keys and one-unit bins, p is the key's share (of the whole stream,
    or of the arrivals so far): the same run, tuple for tuple (outputs, schedule, ArM), as the
    keyed JoinOperator with the same estimator."""
    wl = zipf_workload(1.0, 20, 700, 5, "independent", 40, None)
    bw = BandWorkload.on_key(wl, 0)
    ref = BandReference.of(bw)
    for memory in (6, 30, 77):
        keyed = simulate(wl, policy, memory, estimator=estimator)
        band = simulate_band(bw, policy, memory, reference=ref, estimator=estimator)
        assert (band.outputs, band.exact, band.arm) == (keyed.outputs, keyed.exact, keyed.arm)
        assert np.array_equal(band.schedule.left, keyed.schedule.left)
        assert np.array_equal(band.schedule.admitted, keyed.schedule.admitted)


@st.composite
def band_workloads(draw, synchronous: bool = False):
    if synchronous:
        n = draw(st.integers(1, 14))
        wl = Workload.synchronous([0] * n, [0] * n, draw(st.integers(1, 5)), draw(st.integers(0, 4)))
    else:
        n = draw(st.integers(0, 28))
        times = sorted(draw(st.lists(st.integers(0, 12), min_size=n, max_size=n)))
        sides = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
        wl = Workload(sides, times, [0] * n, draw(st.integers(1, 5)), draw(st.integers(0, 4)))
    vals = np.array(draw(st.lists(st.integers(0, 40), min_size=len(wl), max_size=len(wl))), dtype=np.int64) / 10
    return BandWorkload.of(wl, [vals], str(draw(st.integers(0, 8)) / 10))


@settings(max_examples=60, deadline=None)
@given(band_workloads(), st.integers(0, 8), st.sampled_from(POLICIES), st.integers(0, 3),
       st.sampled_from(["static", "online"]))
def test_outputs_are_a_subset_of_exact_band_pairs(bw, memory, policy, seed, estimator) -> None:
    res = simulate_band(bw, policy, memory, pairs=True, seed=seed, estimator=estimator)
    exact = {tuple(p) for p in exact_pairs(bw).tolist()}
    got = [tuple(p) for p in res.pairs.tolist()]
    assert len(got) == len(set(got)) == res.outputs <= res.exact == len(exact)
    assert set(got) <= exact
    held = res.schedule.admitted & (res.schedule.left > bw.workload.time)
    assert np.all(res.schedule.left[held] <= bw.workload.time[held] + bw.workload.window - 1)


@settings(max_examples=40, deadline=None)
@given(band_workloads(synchronous=True), st.sampled_from(POLICIES))
def test_memory_2w_minus_2_gives_exact(bw, policy) -> None:
    res = simulate_band(bw, policy, max(0, 2 * bw.workload.window - 2))
    assert res.outputs == res.exact and res.arm == 0


@settings(max_examples=40, deadline=None)
@given(band_workloads(), st.sampled_from(POLICIES))
def test_the_memory_exact_needs_gives_exact_on_batched_streams(bw, policy) -> None:
    need = exact_memory(bw.workload)
    assert simulate_band(bw, "exact", 0).memory == need.fixed
    variable = policy.endswith("v")
    res = simulate_band(bw, policy, need.both if variable else need.fixed,
                        memory_split=None if variable else (need.r, need.s))
    assert res.outputs == res.exact and res.arm == 0


def _share(bw: BandWorkload, x: int) -> Fraction:
    """Reference: the share of the other side's tuples within eps of tuple x on every attribute,
    assuming independent attributes (product of per-attribute shares)."""
    side = bw.workload.side
    others = np.flatnonzero(side != side[x])
    if len(others) == 0:
        return Fraction(0)
    out = Fraction(1)
    for c in range(bw.n_attrs):
        near = np.abs(bw.values[others, c] - bw.values[x, c]) <= bw.eps[c]
        out *= Fraction(int(near.sum()), len(others))
    return out


def test_histogram_with_unit_bins_is_the_exact_share() -> None:
    rng = np.random.default_rng(4)
    wl = Workload.synchronous(np.zeros(150, np.int64), np.zeros(150, np.int64), 10)
    bw = BandWorkload.of(wl, [rng.integers(0, 90, 300) / 10, rng.integers(0, 50, 300)], "0.3,2")
    hist = BandHistogram.of(bw, bins=1000)
    num, den = hist.numerators(bw), hist.denominators()
    for x in range(len(bw)):
        assert Fraction(int(num[x]), int(den[1 - bw.workload.side[x]])) == _share(bw, x)


def test_coarse_bins_spread_counts_evenly() -> None:
    """Values 0..9 (scaled units), bins of width 5: S holds 0, 1, 7 -> bin counts [2, 1]. An R
    tuple at 4 with eps 1 covers points 3..5: 2 of bin 0's 5 points and 1 of bin 1's, so the
    mass is (2 * 2 + 1 * 1) / (5 * 3) = 1/3."""
    wl = Workload([1, 1, 1, 0, 0], [0, 0, 0, 0, 1], [0] * 5, 3, 0)
    bw = BandWorkload.of(wl, [np.array([0, 1, 7, 4, 9])], "1")
    hist = BandHistogram.of(bw, bins=2)
    assert hist.width.tolist() == [5]
    assert Fraction(int(hist.numerators(bw)[3]), int(hist.denominators()[1])) == Fraction(1, 3)


@pytest.mark.parametrize("policy, online", [("prob", False), ("lifev", True), ("rand", False)])
def test_feeding_in_pieces_through_a_pickle_equals_one_feed(policy: str, online: bool) -> None:
    """The operator keeps its state between feeds (pickled in between, as a streaming shell
    would): chunks of whole time steps give the same outputs, pairs and departures."""
    import pickle

    from shedding.band.estimator import BandHistogram
    from shedding.band.operator import BandJoinOperator

    wl = zipf_workload(1.0, 30, 400, 2, "independent", 25, None)
    bw = BandWorkload.on_key(wl, 2)
    hist = BandHistogram.of(bw)

    def make() -> BandJoinOperator:
        return BandJoinOperator(wl.window, 14, policy, bw.eps, histogram=hist, warmup=wl.warmup, seed=4, pairs=True,
                                online=online)

    whole = make()
    one = whole.feed(wl.side, wl.time, bw.values)
    one_dep = np.concatenate([one.departures, whole.finish()])
    op, outputs, pairs, deps = make(), 0, [], []
    cuts = np.searchsorted(wl.time, [0, 90, 91, 250, wl.time[-1] + 1])
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        op = pickle.loads(pickle.dumps(op))
        fed = op.feed(wl.side[lo:hi], wl.time[lo:hi], bw.values[lo:hi])
        outputs += fed.outputs
        pairs.append(fed.pairs)
        deps.append(fed.departures)
    deps.append(op.finish())
    assert outputs == one.outputs
    assert np.array_equal(np.concatenate(pairs), one.pairs)
    assert sorted(map(tuple, np.concatenate(deps).tolist())) == sorted(map(tuple, one_dep.tolist()))
