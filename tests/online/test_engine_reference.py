"""The engine against the deliberately simple reference in ``reference.py``, tuple for tuple."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from shedding import Workload, simulate
from reference import reference_run


@st.composite
def small_workloads(draw, synchronous: bool = False):
    n = draw(st.integers(0, 28))
    w = draw(st.integers(1, 6))
    domain = draw(st.integers(1, 5))
    if synchronous:
        t = n // 2
        keys_r = draw(st.lists(st.integers(0, domain - 1), min_size=t, max_size=t))
        keys_s = draw(st.lists(st.integers(0, domain - 1), min_size=t, max_size=t))
        return Workload.synchronous(keys_r, keys_s, w, draw(st.integers(0, 2 * w)))
    times = sorted(draw(st.lists(st.integers(0, 12), min_size=n, max_size=n)))
    sides = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    keys = draw(st.lists(st.integers(0, domain - 1), min_size=n, max_size=n))
    return Workload(sides, times, keys, w, draw(st.integers(0, 6)))


def _check(wl: Workload, policy: str, memory: int, estimator: str, split=None) -> None:
    res = simulate(wl, policy, memory, memory_split=split, estimator=estimator, pairs=True)
    m_r, m_s = split if split else (memory // 2, memory - memory // 2)
    outputs, pairs, left, admitted = reference_run(
        list(wl.side), list(wl.time), list(wl.key), wl.window, m_r, m_s, wl.warmup,
        policy.rstrip("v"), policy.endswith("v"), estimator, memory)
    assert res.outputs == outputs
    assert sorted(map(tuple, res.pairs.tolist())) == pairs
    np.testing.assert_array_equal(res.schedule.left, left)
    np.testing.assert_array_equal(res.schedule.admitted, admitted)


@settings(max_examples=150, deadline=None)
@given(wl=small_workloads(), memory=st.integers(0, 8), policy=st.sampled_from(["prob", "life", "probv", "lifev"]),
       estimator=st.sampled_from(["static", "online"]))
def test_engine_equals_reference(wl, memory, policy, estimator):
    _check(wl, policy, memory, estimator)


@settings(max_examples=80, deadline=None)
@given(wl=small_workloads(synchronous=True), memory=st.integers(0, 10),
       policy=st.sampled_from(["prob", "life", "probv", "lifev"]), estimator=st.sampled_from(["static", "online"]))
def test_engine_equals_reference_synchronous(wl, memory, policy, estimator):
    _check(wl, policy, memory, estimator)


@settings(max_examples=60, deadline=None)
@given(wl=small_workloads(), m_r=st.integers(0, 4), m_s=st.integers(0, 4), policy=st.sampled_from(["prob", "life"]))
def test_engine_equals_reference_uneven_split(wl, m_r, m_s, policy):
    _check(wl, policy, m_r + m_s, "static", (m_r, m_s))
