"""OPT and OPTV under a time range (docs/semantics.md, "Time range"): every network and solver equals
the exhaustive brute force of tests/oracles.py on tiny workloads and DuckDB's join on larger ones with random ranges (lo > 0 and
hi < 0 included), every schedule replays to its count, the bounds hold OPT between them, and no
online policy gets above OPT (DGR §3.2)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from duckdb_oracle import range_pairs
from oracles import brute_force, produced_pairs, replay, split_of
from shedding import ShedError, Workload, exact_count, exact_pairs, simulate
from shedding.exact import exact_memory
from shedding.offline.keyed import lanes_merge
from shedding.offline.opt import GRAPHS, SOLVERS, bound_opt, solve_opt
from shedding.online import POLICIES
from strategies import ranged, tiny_workloads

ONLINE = [name for name, pol in POLICIES.items() if not pol.replay]


@st.composite
def ranged_tiny(draw: st.DrawFn) -> Workload:
    wl = draw(tiny_workloads())
    lo = draw(st.integers(-4, 4))
    return wl.with_params(range=(lo, lo + draw(st.integers(0, 4))))


def arm_direct(wl: Workload, schedule) -> int:
    missed = exact_pairs(wl)[~produced_pairs(wl, schedule)]
    bad = set(missed.ravel().tolist())
    return sum(1 for x in bad if wl.time[x] >= wl.warmup)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wl=ranged_tiny(), memory=st.integers(0, 4), variable=st.booleans(), data=st.data())
def test_every_network_matches_brute_force(wl: Workload, memory: int, variable: bool, data: st.DataObject) -> None:
    allocation = "variable" if variable else "fixed"
    split = None
    if not variable and data.draw(st.booleans()):
        m_r = data.draw(st.integers(0, memory))
        split = (m_r, memory - m_r)
    lo, hi = wl.bounds
    if split is not None and ((lo >= 0 < hi and split[1]) or (hi <= 0 > lo and split[0])):
        with pytest.raises(ShedError, match="never stores") as exc:  # memory on a side never stored
            solve_opt(wl, memory, split, allocation)
        assert exc.value.param == "memory_split"
        return
    parts = split_of(memory, allocation, split, wl.bounds)
    expected = brute_force(wl, memory, parts)
    for graph in GRAPHS:
        for solver in SOLVERS:
            if graph == "keyed" and not lanes_merge(wl):
                with pytest.raises(ShedError, match="compact"):
                    solve_opt(wl, memory, split, allocation, graph=graph, solver=solver)
                continue
            res = solve_opt(wl, memory, split, allocation, graph=graph, solver=solver)
            assert res.outputs == expected, (graph, solver)
            assert replay(wl, res.schedule, memory, parts) == res.outputs
            assert res.exact == exact_count(wl)
            assert res.arm == arm_direct(wl, res.schedule)
    bounds = bound_opt(wl, memory, split, allocation, iterations=10)
    assert bounds.lower <= expected <= bounds.upper


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wl=ranged_tiny(), memory=st.integers(0, 4), policy=st.sampled_from(ONLINE))
def test_no_online_policy_beats_opt(wl: Workload, memory: int, policy: str) -> None:
    variable = POLICIES[policy].variable
    opt = solve_opt(wl, memory, allocation="variable" if variable else "fixed")
    assert simulate(wl, policy, memory).outputs <= opt.outputs <= exact_count(wl)


def test_auto_never_picks_the_keyed_network_when_tuples_wait_for_their_range() -> None:
    wl = Workload.synchronous([1, 2, 1, 2, 1, 2], [1, 2, 1, 2, 1, 2], window=4, warmup=0)
    assert solve_opt(wl.with_params(range=(2, 3)), 2).graph == "compact"
    assert lanes_merge(wl.with_params(range=(-1, 3))) and not lanes_merge(wl.with_params(range=(-5, -2)))


def test_a_one_sided_range_gives_all_of_memory_to_r() -> None:
    """With 0 <= s.time - r.time <= 2 the S tuples are never stored: OPT with M_S = 0 equals OPTV."""
    wl = Workload.synchronous([1, 2, 1, 2, 1, 2, 3], [2, 1, 1, 2, 3, 1, 2], window=3, warmup=0).with_params(range=(0, 2))
    optv = solve_opt(wl, 2, allocation="variable").outputs
    assert solve_opt(wl, 2, (2, 0)).outputs == optv == brute_force(wl, 2, None)
    assert solve_opt(wl, 2).outputs == optv  # the default split gives all of M to R
    assert solve_opt(wl, 1, (1, 0)).outputs < optv


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wl=ranged(max_n=40), variable=st.booleans())
def test_opt_with_the_memory_exact_needs_equals_duckdb(wl: Workload, variable: bool) -> None:
    """With room for every tuple EXACT holds, OPT and OPTV keep every pair of the SQL join."""
    need = exact_memory(wl)
    if variable:
        opt = solve_opt(wl, need.both, allocation="variable")
    else:
        opt = solve_opt(wl, need.r + need.s, (need.r, need.s))
    assert opt.outputs == opt.exact == len(range_pairs(wl))
