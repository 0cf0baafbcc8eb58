"""W-join load shedding: the policies against a plain reference and invariants, and the CP-SAT
optimum against an exhaustive search."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from helpers import assert_one_line_error
from shedding import ShedError
from shedding.wjoin import Streams, WindowSpec, brute_results, exact_count
from shedding.wjoin.generator import synthetic_streams
from shedding.wjoin.loadshed import POLICIES, ShedWJoin, prob_priorities, shed_wjoin
from shedding.wjoin.fastshed import shed_count, shed_outputs
from shedding.wjoin.opt import solve_opt
from strategies import windows_for


@st.composite
def small(draw, max_n: int = 4, max_len: int = 6, max_t: int = 12):
    n = draw(st.integers(2, max_n))
    times, keys = [], []
    for _ in range(n):
        k = draw(st.integers(0, max_len))
        times.append(sorted(draw(st.lists(st.integers(0, max_t), min_size=k, max_size=k))))
        keys.append(draw(st.lists(st.integers(0, 1), min_size=k, max_size=k)))
    return Streams.of(times, keys), draw(windows_for(n))


def events(streams: Streams):
    """(time, stream, seq) of every tuple, in processing order."""
    return sorted((int(t), i, s) for i in range(streams.n) for s, t in enumerate(streams.times[i].tolist()))


def reference(streams: Streams, windows: WindowSpec, memory: int, policy: str) -> tuple[list, int]:
    """A plain simulation of docs/wjoin.md: join with memory by brute force, expire, then keep the
    best candidates, sorting all of them by (priority, time, stream, seq) each step."""
    n, b = streams.n, windows.bounds
    caps = [memory // n + (1 if i < memory % n else 0) for i in range(n)]
    prio = prob_priorities(streams, windows)
    reach = [max(b[i][j] for j in range(n) if j != i) for i in range(n)]
    mem: list[tuple[int, int, int, int]] = []  # (time, stream, seq, key)
    out, dropped = [], 0
    for t, i, s in events(streams):
        key = int(streams.keys[i][s])
        pools = [[x for x in mem if x[1] == j and x[3] == key] if j != i else [(t, i, s, key)] for j in range(n)]
        for combo in itertools.product(*pools):
            if all(abs(combo[a][0] - combo[c][0]) <= b[a][c] for a in range(n) for c in range(a + 1, n)):
                out.append(tuple(x[2] for x in combo))
        mem = [x for x in mem if x[0] + reach[x[1]] >= t] + [(t, i, s, key)]

        def rank(x):
            p = prio[x[1]][x[3]] * ((x[0] + reach[x[1]] - t) if policy.startswith("life") else 1)
            return (p, x[0], x[1], x[2])

        if policy.endswith("v"):
            if len(mem) > memory:
                mem.remove(min(mem, key=rank))
                dropped += 1
        elif sum(x[1] == i for x in mem) > caps[i]:
            mem.remove(min((x for x in mem if x[1] == i), key=rank))
            dropped += 1
    return sorted(out), dropped


def run_policy(streams, windows, memory, policy, seed=0):
    res = shed_wjoin(streams, windows, memory, policy, seed=seed)
    return res, [tuple(r) for r in res.results.tolist()]


@settings(max_examples=150, deadline=None)
@given(case=small(), memory=st.integers(0, 8), policy=st.sampled_from(["prob", "life", "probv", "lifev"]))
def test_prob_and_life_equal_the_reference(case, memory, policy):
    streams, windows = case
    res, rows = run_policy(streams, windows, memory, policy)
    expected, dropped = reference(streams, windows, memory, policy)
    assert rows == expected and res.dropped == dropped


@settings(max_examples=150, deadline=None)
@given(case=small(), memory=st.integers(0, 8), policy=st.sampled_from(POLICIES), seed=st.integers(0, 3))
def test_invariants_of_every_policy(case, memory, policy, seed):
    streams, windows = case
    exact = {tuple(r) for r in brute_results(streams, windows).tolist()}
    res, rows = run_policy(streams, windows, memory, policy, seed)
    assert set(rows) <= exact and len(rows) == len(set(rows))
    assert res.exact == len(exact)
    if memory == 0:
        assert rows == []
    _, roomy = run_policy(streams, windows, sum(streams.lengths()) * streams.n, policy, seed)
    assert set(roomy) == exact


def test_rand_is_seeded_and_the_split_is_checked():
    s = synthetic_streams(3, 600, domain=5, seed=2)
    w = WindowSpec.uniform(3, 8)
    a, b, c = (shed_wjoin(s, w, 12, "rand", seed=k) for k in (0, 0, 1))
    assert a.outputs == b.outputs and np.array_equal(a.results, b.results)
    assert not np.array_equal(a.results, c.results)
    assert shed_wjoin(s, w, 10, "prob").split == [4, 3, 3]
    assert shed_wjoin(s, w, 10, "probv").split is None
    with pytest.raises(ShedError) as exc:
        shed_wjoin(s, w, 10, "prob", memory_split=[5, 5, 1])
    assert_one_line_error(exc, "sum to the memory 10")
    with pytest.raises(ShedError) as exc:
        shed_wjoin(s, w, 10, "best")
    assert_one_line_error(exc, "unknown policy")


def test_memory_bound_holds_at_every_step():
    s = synthetic_streams(4, 400, rates=[1, 0.5, 2, 1], domain=4, seed=5)
    w = WindowSpec.from_pairs(4, {(0, 1): 4, (1, 2): 6, (2, 3): 3})
    for policy in POLICIES:
        op = ShedWJoin(w, 9, policy, priorities=prob_priorities(s, w))
        stream, seq = s.arrival_order()
        for i, k in zip(stream.tolist(), seq.tolist()):
            op.push(i, int(s.times[i][k]), int(s.keys[i][k]))
            held = [sum(len(b) for b in op.buckets[j].values()) for j in range(4)]
            assert sum(held) <= 9
            if not policy.endswith("v"):
                assert all(h <= c for h, c in zip(held, op.caps))


def exhaustive(streams: Streams, windows: WindowSpec, memory: int, variable: bool) -> int:
    """Every choice of leave event for every tuple (written independently of shedding.wjoin.opt)."""
    n = streams.n
    ev = events(streams)
    at = {(i, s): e for e, (_, i, s) in enumerate(ev)}
    reach = [max(int(windows.bounds[i][j]) for j in range(n) if j != i) for i in range(n)]
    tuples = list(at)
    ends = [max(e for e, (t, _, _) in enumerate(ev) if t <= ev[at[x]][0] + reach[x[0]]) for x in tuples]
    caps = [memory // n + (1 if i < memory % n else 0) for i in range(n)]
    rows = [[at[(i, s)] for i, s in enumerate(r)] for r in brute_results(streams, windows).tolist()]
    best = 0
    for leave in itertools.product(*(range(at[x], end + 1) for x, end in zip(tuples, ends))):
        ok = True
        for e in range(len(ev)):
            here = [x[0] for x, left in zip(tuples, leave) if at[x] < e <= left]
            if (variable and len(here) > memory) or (not variable and any(here.count(i) > caps[i] for i in range(n))):
                ok = False
                break
        if ok:
            stays = {at[x]: left for x, left in zip(tuples, leave)}
            best = max(best, sum(all(stays[e] >= max(r) for e in r if e != max(r)) for r in rows))
    return best


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(case=small(max_n=3, max_len=3, max_t=6), memory=st.integers(0, 4), variable=st.booleans())
def test_optimum_equals_exhaustive_search_and_bounds_every_policy(case, memory, variable):
    streams, windows = case
    n = streams.n
    ev = events(streams)
    reach = [max(int(windows.bounds[i][j]) for j in range(n) if j != i) for i in range(n)]
    choices = 1
    for t, i, _ in ev:
        choices *= 1 + sum(1 for u, _, _ in ev if t <= u <= t + reach[i])
    assume(choices <= 20_000)
    res = solve_opt(streams, windows, memory, allocation="variable" if variable else "fixed")
    assert res.optimal
    assert res.outputs == exhaustive(streams, windows, memory, variable)
    for policy in POLICIES:
        if policy.endswith("v") == variable:
            assert shed_wjoin(streams, windows, memory, policy).outputs <= res.outputs
    if variable:
        assert res.outputs >= solve_opt(streams, windows, memory).outputs


def test_optimum_with_ample_memory_is_exact_and_large_input_is_refused():
    s = synthetic_streams(3, 30, domain=3, seed=1)
    w = WindowSpec.uniform(3, 4)
    assert solve_opt(s, w, 90).outputs == exact_count(s, w) > 0
    assert solve_opt(s, w, 6, allocation="variable").outputs >= shed_wjoin(s, w, 6, "probv").outputs
    with pytest.raises(ShedError) as exc:
        solve_opt(synthetic_streams(3, 500, seed=1), w, 6)
    assert_one_line_error(exc, "small instances")


@settings(max_examples=200, deadline=None)
@given(data=st.data(), memory=st.integers(0, 10), policy=st.sampled_from(POLICIES), seed=st.integers(0, 2))
def test_compiled_count_equals_the_operator(data, memory, policy, seed):
    """Form 1: the compiled count gives PROB/LIFE's exact outputs and drops; RAND keeps the invariants."""
    n = data.draw(st.integers(2, 4))
    times, keys = [], []
    for _ in range(n):
        k = data.draw(st.integers(0, 12))
        times.append(sorted(data.draw(st.lists(st.integers(0, 25), min_size=k, max_size=k))))
        keys.append(data.draw(st.lists(st.integers(0, 2), min_size=k, max_size=k)))
    streams = Streams.of(times, keys)
    windows = WindowSpec.uniform(n, data.draw(st.integers(0, 6)))
    outputs, dropped = shed_count(streams, windows, memory, policy, seed=seed)
    if policy.startswith("rand"):
        assert outputs <= exact_count(streams, windows)
        assert shed_count(streams, windows, memory, policy, seed=seed) == (outputs, dropped)
        if memory == 0:
            assert outputs == 0
    else:
        ref = shed_wjoin(streams, windows, memory, policy)
        assert (outputs, dropped) == (ref.outputs, ref.dropped)
    roomy = sum(streams.lengths()) * n
    assert shed_count(streams, windows, roomy, policy, seed=seed) == (exact_count(streams, windows), 0)


def test_compiled_count_on_larger_streams_and_needs_form_1():
    s = synthetic_streams(3, 3000, rates=[1, 0.3, 1], domain=8, seed=7)
    w = WindowSpec.uniform(3, 12)
    for policy in ("prob", "life", "probv", "lifev"):
        ref = shed_wjoin(s, w, 20, policy)
        assert shed_count(s, w, 20, policy) == (ref.outputs, ref.dropped)
    with pytest.raises(ShedError) as exc:
        shed_count(s, WindowSpec.from_pairs(3, {(0, 1): 2, (1, 2): 3}), 10)
    assert_one_line_error(exc, "Form 1")


def test_shed_outputs_counts_by_the_compiled_count_for_one_window_and_by_the_operator_otherwise():
    s = synthetic_streams(3, 400, rates=[1, 0.3, 1], domain=6, seed=3)
    one, pairs = WindowSpec.uniform(3, 8), WindowSpec.from_pairs(3, {(0, 1): 5, (1, 2): 8})
    for policy in ("rand", "prob", "lifev"):
        assert shed_outputs(s, one, 9, policy, seed=2) == shed_count(s, one, 9, policy, seed=2)
        ref = shed_wjoin(s, pairs, 9, policy, seed=2)
        assert shed_outputs(s, pairs, 9, policy, seed=2, exact=ref.exact) == (ref.outputs, ref.dropped)
