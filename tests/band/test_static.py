"""Static k-truncation of band joins (paper §3.1.1): the components from networkx, CP-SAT's
exact table per component and the paper's DP across them, against brute force over every subset."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import assert_one_line_error
from shedding.band.static import band_edges, static_truncation, component_table
from shedding.errors import ShedError
from shedding.offline.static import best_keep_dp, components_from_keys


def brute_best(a: list[np.ndarray], b: list[np.ndarray], eps: list[int], keep: int) -> int:
    n_a, n_b = len(a[0]), len(b[0])
    edges = [(i, n_a + j) for i in range(n_a) for j in range(n_b)
             if all(abs(int(ca[i]) - int(cb[j])) <= e for ca, cb, e in zip(a, b, eps))]
    best = 0
    for kept in itertools.combinations(range(n_a + n_b), keep):
        s = set(kept)
        best = max(best, sum(1 for u, v in edges if u in s and v in s))
    return best


@st.composite
def relations(draw):
    n_a, n_b, d = draw(st.integers(0, 5)), draw(st.integers(0, 5)), draw(st.integers(1, 2))
    a = [np.array(draw(st.lists(st.integers(0, 6), min_size=n_a, max_size=n_a)), dtype=np.int64) for _ in range(d)]
    b = [np.array(draw(st.lists(st.integers(0, 6), min_size=n_b, max_size=n_b)), dtype=np.int64) for _ in range(d)]
    eps = [draw(st.integers(0, 2)) for _ in range(d)]
    return a, b, eps, draw(st.integers(0, n_a + n_b))


@settings(max_examples=50, deadline=None)
@given(relations())
def test_band_static_equals_brute_force(case) -> None:
    a, b, eps, keep = case
    res = static_truncation(a, b, ",".join(map(str, eps)), keep)
    best = brute_best(a, b, eps, keep)
    assert res.output == best <= res.upper_bound
    assert int(res.kept_a.sum() + res.kept_b.sum()) == keep
    ea, eb = band_edges(a, b, ",".join(map(str, eps)))
    assert res.total_output == len(ea)
    assert int(np.count_nonzero(res.kept_a[ea] & res.kept_b[eb])) == best


def test_a_band_component_is_not_convex() -> None:
    """A = {0, 0, 2}, B = {1, 1, 3}, eps = 1: one component with 7 edges; its table has
    increments 0, 1, 1, 2, 2, 1, so the convexity behind best_keep_fast fails."""
    a, b = [np.array([0, 0, 2])], [np.array([1, 1, 3])]
    ea, eb = band_edges(a, b, "1")
    gains, _ = component_table(list(zip(ea.tolist(), (eb + 3).tolist())), list(range(6)), 6)
    assert gains.tolist() == [0, 0, 1, 2, 4, 6, 7]
    assert np.any(np.diff(gains, 2) < 0)
    assert static_truncation(a, b, "1", 4).output == 4


def test_eps_zero_is_the_paper_dp() -> None:
    rng = np.random.default_rng(2)
    ka, kb = rng.integers(0, 8, 40), rng.integers(0, 8, 35)
    for keep in (0, 10, 37, 75):
        band = static_truncation([ka], [kb], "0", keep)
        assert band.output == best_keep_dp(components_from_keys(ka, kb), keep).output == band.upper_bound


def test_decimal_band_edges_are_exact() -> None:
    ea, eb = band_edges([np.array([0.8, 0.7])], [np.array([0.5, 0.4])], "0.3")
    assert sorted(zip(ea.tolist(), eb.tolist())) == [(0, 0), (1, 0), (1, 1)]


def test_bad_keep_and_too_large_components_are_one_line() -> None:
    with pytest.raises(ShedError) as exc:
        static_truncation([np.array([1])], [np.array([1])], "0", 3)
    assert_one_line_error(exc, "keep", "0..2")
    with pytest.raises(ShedError) as exc:
        static_truncation([np.arange(40)], [np.arange(40)], "1", 10, max_component=20)
    assert_one_line_error(exc, "component", "80 tuples")
