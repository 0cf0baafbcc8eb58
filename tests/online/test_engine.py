"""Invariants of the online join engine (docs/semantics.md; paper §3.3, §4.1)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shedding import JoinOperator, ShedError, Workload, exact_count, exact_pairs, simulate, zipf_workload
from shedding.exact import exact_memory
from shedding.online import POLICIES as REGISTRY, OnlineEstimator, StaticEstimator
from strategies import workloads

#: every online policy of the one registry (the replays of a given schedule are tested with OPT)
POLICIES = [name for name, pol in REGISTRY.items() if not pol.replay]




def figure2() -> Workload:
    return Workload.synchronous([1, 1, 1, 3, 2], [2, 3, 1, 1, 3], window=3, warmup=0)


def incomplete_by_pairs(wl: Workload, produced: set) -> int:
    """ArM from its definition: tuples arriving at t >= warmup in some unproduced window pair."""
    full = Workload(wl.side, wl.time, wl.key, wl.window, 0)
    bad = set()
    for r, s in map(tuple, exact_pairs(full).tolist()):
        later = r if wl.time[r] > wl.time[s] else s
        if (r, s) not in produced and wl.time[later] >= wl.warmup:
            bad.update(x for x in (r, s) if wl.time[x] >= wl.warmup)
    return len(bad)


def test_figure2_exact_and_policies_below_it():
    wl = figure2()
    assert simulate(wl, "exact", 2).outputs == 7
    for policy in POLICIES:
        res = simulate(wl, policy, 2)
        assert 0 < res.outputs <= 7


@pytest.mark.parametrize("policy", POLICIES)
def test_enough_memory_is_exact(policy):
    wl = zipf_workload(1.0, 20, 1500, seed=5, window=60)
    res = simulate(wl, policy, 2 * wl.window - 2)
    assert res.outputs == res.exact == exact_count(wl)
    assert res.arm == 0


def drops_a_tuple(wl: Workload, policy: str, memory: int, split: tuple[int, int] | None = None) -> bool:
    """Whether some tuple leaves memory before its window ends."""
    left = simulate(wl, policy, memory, memory_split=split).schedule.left
    return bool(np.any(left < wl.time + wl.window - 1))


@settings(max_examples=150, deadline=None)
@given(wl=workloads(), policy=st.sampled_from(POLICIES))
def test_exact_memory_is_the_least_that_keeps_every_tuple_of_batched_streams(wl, policy):
    need = exact_memory(wl)
    assert simulate(wl, "exact", 0).memory == need.fixed
    if REGISTRY[policy].variable:
        assert not drops_a_tuple(wl, policy, need.both)
        assert need.both == 0 or drops_a_tuple(wl, policy, need.both - 1)
    else:
        assert not drops_a_tuple(wl, policy, need.fixed, (need.r, need.s))
        assert need.r == 0 or drops_a_tuple(wl, policy, need.fixed - 1, (need.r - 1, need.s))
        assert need.s == 0 or drops_a_tuple(wl, policy, need.fixed - 1, (need.r, need.s - 1))


@settings(max_examples=60, deadline=None)
@given(wl=workloads(), policy=st.sampled_from(POLICIES))
def test_zero_memory_keeps_only_same_batch_pairs(wl, policy):
    res = simulate(wl, policy, 0, pairs=True)
    same = [(r, s) for r, s in map(tuple, exact_pairs(wl).tolist()) if wl.time[r] == wl.time[s]]
    assert sorted(map(tuple, res.pairs.tolist())) == same


@settings(max_examples=120, deadline=None)
@given(wl=workloads(), memory=st.integers(0, 12), policy=st.sampled_from(POLICIES),
       estimator=st.sampled_from(["static", "online"]))
def test_output_is_a_subset_and_arm_matches_its_definition(wl, memory, policy, estimator):
    res = simulate(wl, policy, memory, estimator=estimator, pairs=True)
    got = set(map(tuple, res.pairs.tolist()))
    assert len(got) == len(res.pairs) == res.outputs
    assert got <= set(map(tuple, exact_pairs(wl).tolist()))
    assert res.arm == incomplete_by_pairs(wl, got)
    assert (res.arm == 0) == (res.outputs == res.exact)


@settings(max_examples=60, deadline=None)
@given(wl=workloads(max_n=40), memory=st.integers(0, 8), policy=st.sampled_from(POLICIES),
       cuts=st.lists(st.integers(0, 14), max_size=4), online=st.booleans())
def test_feeding_in_pieces_changes_nothing(wl, memory, policy, cuts, online):
    est = OnlineEstimator() if online else StaticEstimator.from_workload(wl)

    def run(bounds):
        op = JoinOperator(wl.window, memory, policy, warmup=wl.warmup, estimator=est, seed=7, pairs=True)
        outs, pairs = 0, []
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            fed = op.feed(wl.side[lo:hi], wl.time[lo:hi], wl.key[lo:hi])
            outs += fed.outputs
            pairs += list(map(tuple, fed.pairs.tolist()))
        return outs, sorted(pairs)

    bounds = sorted({0, len(wl)} | {int(np.searchsorted(wl.time, c)) for c in cuts})
    assert run(bounds) == run([0, len(wl)])


def test_rand_is_seeded():
    wl = zipf_workload(1.0, 50, 3000, seed=1, window=200)
    a = simulate(wl, "rand", 100, seed=11)
    b = simulate(wl, "rand", 100, seed=11)
    c = [simulate(wl, "rand", 100, seed=s).outputs for s in range(5)]
    assert a.outputs == b.outputs
    np.testing.assert_array_equal(a.schedule.left, b.schedule.left)
    assert len(set(c)) > 1


def test_rand_grows_linearly_with_memory():
    """Paper §4.1: "The number of output tuples generated by RAND increases linearly"."""
    wl = zipf_workload(1.0, 50, 5600, seed=2, window=400)
    mems = np.array([40, 100, 200, 400, 600])
    means = np.array([np.mean([simulate(wl, "rand", int(m), seed=s).outputs for s in range(3)]) for m in mems])
    assert np.all(np.diff(means) > 0)
    slope, intercept = np.polyfit(mems, means, 1)
    fitted = slope * mems + intercept
    assert np.max(np.abs(fitted - means)) < 0.05 * means[-1]


def test_prob_beats_rand_on_skewed_data():
    wl = zipf_workload(1.0, 50, 5600, seed=0, window=400)
    assert simulate(wl, "prob", 200).outputs > 1.3 * simulate(wl, "rand", 200).outputs


def test_online_estimator_and_decay():
    wl = zipf_workload(1.0, 50, 5600, seed=0, window=400)
    static = simulate(wl, "prob", 200).outputs
    online = simulate(wl, "prob", 200, estimator="online").outputs
    decayed = simulate(wl, "prob", 200, estimator="online", decay=0.995).outputs
    plain = simulate(wl, "prob", 200, estimator="online", decay=1.0).outputs
    assert online == plain
    assert abs(online - static) < 0.05 * static
    assert 0 < decayed <= exact_count(wl)


def test_decay_survives_rescaling():
    # 0.9 per step overflows float64 increments after ~6,700 steps without rescaling
    wl = zipf_workload(1.0, 30, 20_000, seed=4, window=50)
    for policy in ("prob", "lifev"):
        res = simulate(wl, policy, 40, estimator="online", decay=0.9)
        assert 0 < res.outputs <= res.exact


def test_memory_share_is_sampled():
    wl = zipf_workload(1.0, 50, 5600, seed=0, window=400)
    res = simulate(wl, "probv", 400, samples=100)
    assert 90 <= len(res.share_time) <= 120
    assert np.all(res.share_r <= 400)
    fixed = simulate(wl, "prob", 400, samples=100)
    assert np.all(fixed.share_r <= 200)


def test_empty_workload():
    wl = Workload([], [], [], 5, 0)
    for policy in POLICIES + ["exact"]:
        res = simulate(wl, policy, 4)
        assert res.outputs == res.exact == res.arm == 0


def test_state_does_not_grow_with_the_stream():
    sizes = []
    for length in (20_000, 200_000):
        wl = zipf_workload(1.0, 650, length, seed=0, window=5000)
        op = JoinOperator(5000, 2500, "life", warmup=wl.warmup, estimator=StaticEstimator.from_workload(wl))
        op.feed(wl.side, wl.time, wl.key)
        sizes.append(op.state_bytes)
    assert sizes[0] == sizes[1] < 2_000_000


def test_feed_rejects_time_going_back():
    op = JoinOperator(5, 4, "prob")
    op.feed([0, 1], [3, 3], [1, 1])
    with pytest.raises(ShedError, match="not after"):
        op.feed([0], [3], [1])
    with pytest.raises(ShedError, match="backwards"):
        op.feed([0, 0], [9, 8], [1, 1])


@pytest.mark.parametrize("side, time, key, match", [
    ([0, 1], [0, 0], [1.7, 1.2], "key must be integers, found 1.7"),  # were truncated to 1 and joined
    ([0, 1], [0.5, 0.5], [1, 1], "time must be integers, found 0.5"),
    ([0.5, 1], [0, 0], [1, 1], "side must be integers, found 0.5"),
    ([0, 1], [-2, -2], [1, 1], "times must be non-negative, found -2"),  # their outputs were never counted
    ([0, 1], [0, 0], [2**63, 2**63], "key has values beyond 64-bit"),  # was an OverflowError
])
def test_feed_refuses_what_a_workload_refuses(side, time, key, match):
    with pytest.raises(ShedError, match=match):
        JoinOperator(5, 4, "prob").feed(side, time, key)
    with pytest.raises(ShedError, match=match):
        Workload(side, time, key, 5)


def test_feed_takes_integral_floats_as_a_workload_does():
    assert JoinOperator(5, 4, "prob").feed([0.0, 1.0], [0.0, 0.0], [2.0, 2.0]).outputs == 1


@pytest.mark.parametrize("kwargs, match", [
    ({"memory": -1}, "memory"),
    ({"memory": 2.5}, "memory"),
    ({"memory": 6, "memory_split": (3, 4)}, "sums to 7"),
    ({"memory": 6, "memory_split": (-1, 7)}, ">= 0"),
    ({"memory": 6, "policy": "nope"}, "unknown policy"),
])
def test_bad_parameters(kwargs, match):
    args = {"window": 5, "memory": 4, "policy": "prob"} | kwargs
    with pytest.raises(ShedError, match=match):
        JoinOperator(**args)


@pytest.mark.parametrize("window", [0, -3, 2.5])
def test_bad_window(window):
    with pytest.raises(ShedError, match="window"):
        Workload([0], [0], [1], window)


def test_estimator_by_name_is_the_simulators_and_anything_else_is_refused():
    """``estimator="online"`` is the online estimator (as ``simulate`` takes it), not a silent
    third mode; ``"static"`` needs the workload and a wrong object is one clear error."""
    wl = zipf_workload(0.0, 50, 3000, seed=3, window=200)
    for policy in ("prob", "hazard"):
        named = JoinOperator(wl.window, 200, policy, warmup=wl.warmup, estimator="online")
        built = JoinOperator(wl.window, 200, policy, warmup=wl.warmup, estimator=OnlineEstimator())
        outputs = named.feed(wl.side, wl.time, wl.key).outputs
        assert outputs == built.feed(wl.side, wl.time, wl.key).outputs
        assert outputs == simulate(wl, policy, 200, estimator="online").outputs
    with pytest.raises(ShedError, match="static estimator needs the whole workload"):
        JoinOperator(wl.window, 200, "prob", estimator="static")
    with pytest.raises(ShedError, match="estimator must be 'online'"):
        JoinOperator(wl.window, 200, "prob", estimator=3)


@pytest.mark.parametrize("policy", ["prob", "hazard", "surv"])
def test_pairs_far_beyond_the_arrivals_are_all_recorded(policy):
    """The kernel allocates nothing: it pauses when the pairs outgrow their array, the operator grows
    it, and the kernel goes on from the same batch. One key and room for every tuple: each step's
    pairs outnumber the feed's arrivals many times over, across the pauses for HAZARD's refits and
    SURV's parameters."""
    n, w = 600, 200
    wl = Workload.synchronous([7] * n, [7] * n, window=w, warmup=0)
    res = simulate(wl, policy, 2 * w, estimator="online", pairs=True)
    assert res.outputs == exact_count(wl) > 100 * len(wl)
    assert sorted(map(tuple, res.pairs.tolist())) == sorted(map(tuple, exact_pairs(wl).tolist()))
