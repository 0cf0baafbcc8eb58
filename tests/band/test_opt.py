"""OPT/OPTV for band joins (Das, Gehrke, Riedewald 2003, §3.2, with the band predicate): equal to an
exhaustive search over every schedule on tiny workloads, replayed through the band engine to the
same count, equal to the keyed OPT at eps = 0, and never below an online policy."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shedding.band import BandWorkload, exact_pairs
from shedding.band.opt import solve_opt
from shedding.band.simulate import simulate_band
from shedding.datasets import zipf_workload
from shedding.model import Workload
from shedding.offline import solve_opt as solve_equi_opt


def exhaustive_opt(bw: BandWorkload, caps: list[int], variable: bool) -> int:
    """The best count over every schedule: each tuple leaves during a step ``left`` in
    ``[a, a + w - 1]`` (``left == a``: never admitted) and is held after the admissions of steps
    ``a .. left - 1``; at most ``caps`` tuples per group may be held after any step. A pair
    counts if same-time, or if its earlier member is held until the later one arrives."""
    wl = bw.workload
    a, w = wl.time, wl.window
    pairs = exact_pairs(bw)
    group = np.zeros(len(wl), dtype=np.int64) if variable else wl.side.astype(np.int64)
    best = 0
    for left in itertools.product(*[range(int(t), int(t) + w) for t in a]):
        left = np.array(left, dtype=np.int64)
        ok = all(np.count_nonzero((group == g) & (a <= t) & (t < left)) <= caps[g]
                 for t in np.unique(a) for g in range(len(caps)))
        if not ok:
            continue
        got = 0
        for r, s in pairs:
            e, b = (r, a[s]) if a[r] < a[s] else (s, a[r])
            got += a[r] == a[s] or left[e] >= b
        best = max(best, got)
    return best


@st.composite
def tiny_band(draw):
    n = draw(st.integers(1, 6))
    times = sorted(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)))
    sides = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    wl = Workload(sides, times, [0] * n, draw(st.integers(1, 3)), draw(st.integers(0, 2)))
    vals = np.array(draw(st.lists(st.integers(0, 6), min_size=n, max_size=n)))
    return BandWorkload.of(wl, [vals], draw(st.integers(0, 2)))


@settings(max_examples=60, deadline=None)
@given(tiny_band(), st.integers(0, 3), st.sampled_from(["fixed", "variable"]), st.sampled_from(["ssp", "ortools"]))
def test_band_opt_equals_exhaustive_search_and_replays(bw, memory, allocation, solver) -> None:
    res = solve_opt(bw, memory, allocation=allocation, solver=solver)
    variable = allocation == "variable"
    caps = [memory] if variable else [memory // 2, memory - memory // 2]
    assert res.outputs == exhaustive_opt(bw, caps, variable)
    replay = simulate_band(bw, "optv-schedule" if variable else "opt-schedule", memory, schedule=res.schedule)
    assert replay.outputs == res.outputs and replay.arm == res.arm


@pytest.mark.parametrize("allocation", ["fixed", "variable"])
def test_eps_zero_equals_the_keyed_opt(allocation: str) -> None:
    wl = zipf_workload(1.0, 20, 500, 3, "independent", 30, None)
    bw = BandWorkload.on_key(wl, 0)
    for memory in (6, 20):
        assert solve_opt(bw, memory, allocation=allocation).outputs == \
            solve_equi_opt(wl, memory, allocation=allocation).outputs


@pytest.mark.parametrize("allocation, policies", [("fixed", ["prob", "life", "rand"]),
                                                  ("variable", ["probv", "lifev", "randv"])])
def test_online_policies_never_above_opt(allocation: str, policies: list[str]) -> None:
    wl = zipf_workload(1.0, 30, 500, 8, "independent", 30, None)
    for eps in (1, 4):
        bw = BandWorkload.on_key(wl, eps)
        for memory in (4, 16, 40):
            opt = solve_opt(bw, memory, allocation=allocation)
            replay = simulate_band(bw, "optv-schedule" if allocation == "variable" else "opt-schedule", memory,
                                   schedule=opt.schedule)
            assert replay.outputs == opt.outputs <= opt.exact
            for policy in policies:
                assert simulate_band(bw, policy, memory).outputs <= opt.outputs
