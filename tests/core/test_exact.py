"""EXACT against a quadratic brute force written from the definition (docs/semantics.md)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from shedding import Workload, exact_count, exact_pairs, zipf_workload
from shedding.exact import exact_memory, partner_profile


def brute_pairs(wl: Workload) -> list[tuple[int, int]]:
    out = []
    for i in range(len(wl)):
        for j in range(len(wl)):
            if wl.side[i] == 0 and wl.side[j] == 1 and wl.key[i] == wl.key[j]:
                if abs(int(wl.time[i]) - int(wl.time[j])) <= wl.window - 1 and max(wl.time[i], wl.time[j]) >= wl.warmup:
                    out.append((i, j))
    return sorted(out)


@st.composite
def workloads(draw):
    n = draw(st.integers(0, 40))
    times = sorted(draw(st.lists(st.integers(0, 20), min_size=n, max_size=n)))
    sides = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    keys = draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n))
    return Workload(sides, times, keys, draw(st.integers(1, 8)), draw(st.integers(0, 10)))


def test_figure2_example():
    wl = Workload.synchronous([1, 1, 1, 3, 2], [2, 3, 1, 1, 3], window=3, warmup=0)
    assert exact_count(wl) == 7
    assert len(exact_pairs(wl)) == 7


@settings(max_examples=200, deadline=None)
@given(wl=workloads())
def test_exact_equals_brute_force(wl):
    pairs = brute_pairs(wl)
    assert exact_count(wl) == len(pairs)
    assert sorted(map(tuple, exact_pairs(wl).tolist())) == pairs


@settings(max_examples=100, deadline=None)
@given(wl=workloads())
def test_partner_profile(wl):
    prof = partner_profile(wl)
    for i in range(len(wl)):
        a = wl.time[i]
        partners = [j for j in range(len(wl)) if wl.side[j] != wl.side[i] and wl.key[j] == wl.key[i]
                    and abs(int(wl.time[j]) - int(a)) <= wl.window - 1]
        earlier = [j for j in partners if wl.time[j] <= a]
        later = [wl.time[j] for j in partners if wl.time[j] > a]
        assert prof.earlier[i] == len(earlier)
        assert prof.last_later[i] == (max(later) if later else -1)


def test_exact_equals_shift_and_compare_on_a_large_workload():
    """An independent count for the tuple-synchronous model: compare r(t) with s(t + d) for
    every lag |d| <= w - 1 (O(T w), fine at this size)."""
    wl = zipf_workload(1.2, 100, 100_000, seed=3, window=150, warmup=1000)
    r = wl.key[wl.side == 0]
    s = wl.key[wl.side == 1]
    t = np.arange(len(r))
    total = 0
    for d in range(-(wl.window - 1), wl.window):
        a = t[max(0, -d): len(r) - max(0, d)]  # r time; s time is a + d
        match = r[a] == s[a + d]
        total += int(np.count_nonzero(match & (np.maximum(a, a + d) >= wl.warmup)))
    assert exact_count(wl) == total


def brute_held(wl: Workload, sides: tuple[int, ...]) -> int:
    """The most tuples of ``sides`` in memory after admission at any step, from the definition:
    a tuple of time a is a candidate at t iff a <= t and a + w - 1 > t (docs/semantics.md)."""
    last = int(wl.time.max()) if len(wl) else 0
    return max([sum(1 for a, side in zip(wl.time.tolist(), wl.side.tolist())
                    if side in sides and a <= t < a + wl.window - 1) for t in range(last + 1)], default=0)


@settings(max_examples=200, deadline=None)
@given(wl=workloads())
def test_exact_memory_equals_brute_force_on_batched_streams(wl):
    need = exact_memory(wl)
    assert (need.r, need.s, need.both) == (brute_held(wl, (0,)), brute_held(wl, (1,)), brute_held(wl, (0, 1)))
    assert need.fixed == need.r + need.s >= need.both


@settings(max_examples=50, deadline=None)
@given(w=st.integers(1, 30), extra=st.integers(0, 40), seed=st.integers(0, 100))
def test_exact_memory_is_2w_minus_2_with_one_tuple_per_stream_per_step(w, extra, seed):
    """The paper's rule: w - 1 tuples per side once the streams are w - 1 steps long."""
    keys = np.random.default_rng(seed).integers(0, 5, size=(2, max(w - 1, 1) + extra))
    need = exact_memory(Workload.synchronous(keys[0], keys[1], w))
    assert (need.r, need.s, need.both, need.fixed) == (w - 1, w - 1, 2 * w - 2, 2 * w - 2)


def test_exact_memory_of_a_batched_workload_is_its_peak_not_2w_minus_2():
    """Three R tuples at time 0 and one at 1, an S tuple at 2: with w = 3 the R tuples of time 0
    are held at steps 0 and 1, so R needs 4 slots (2w - 2 = 4 in all would not do)."""
    need = exact_memory(Workload([0, 0, 0, 0, 1], [0, 0, 0, 1, 2], [1, 2, 3, 1, 1], window=3))
    assert (need.r, need.s, need.both, need.fixed) == (4, 1, 4, 5)
