"""The constrained left-outer BMJ under load shedding: MatWin with at most M tuples in its windows,
against a plain-Python replay of Algorithm 2 with the same drops, and the invariants (M >= the exact
run's peak gives the exact result; never more than M tuples held; only candidate pairs, none
dominating another; false pairs appear when a best partner is shed)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shedding.bestmatch import bestmatch, from_arrays, quality, shed_bestmatch
from shedding.bestmatch.brute import brute_bestmatch, dominates
from shedding.bestmatch.shed import POLICIES, partner_density, priorities, shedding_study
from shedding.bestmatch.generator import synthetic_input
from shedding.errors import ShedError


def replay(R: list, S: list, eps: list, memory: int, prio_r, prio_s, ahead: bool) -> set:  # noqa: ANN001
    """Algorithm 2 with sets for windows: fill, shed the lowest priorities (R before S, older first
    on ties), offer W x W fresh or W'_R x dS u dR x W_S moved, move the bounds by the four cases.
    The result per r is the skyline of the pairs offered to it (the buffer's invariant)."""
    e1 = eps[0]
    offered: dict[int, set] = {}
    if not R:
        return set()
    min_rs = R[0][0] - e1
    max_rs, rn, sn, wr, ws, fresh = min_rs + e1, 0, 0, [], [], True
    while True:
        new_r, new_s = [], []
        while rn < len(R) and R[rn][0] <= max_rs:
            new_r.append(rn)
            rn += 1
        while sn < len(S) and S[sn][0] <= max_rs:
            if S[sn][0] >= min_rs:
                new_s.append(sn)
            sn += 1
        old_r, old_s = list(wr), list(ws)
        wr, ws = wr + new_r, ws + new_s
        if memory >= 0 and len(wr) + len(ws) > memory:
            def prio(p, y1):  # noqa: ANN001, ANN202
                return p * ((y1 + e1 - max_rs + 1) / (2.0 * e1 + 1) if ahead else 1.0)
            cands = [(prio(prio_r[j], R[j][0]), "r", j) for j in wr] + [(prio(prio_s[j], S[j][0]), "s", j) for j in ws]
            gone = {(side, j) for _, side, j in sorted(cands, key=lambda c: c[0])[:len(cands) - memory]}
            wr, old_r, new_r = ([j for j in x if ("r", j) not in gone] for x in (wr, old_r, new_r))
            ws, old_s, new_s = ([j for j in x if ("s", j) not in gone] for x in (ws, old_s, new_s))
        pairs = [(r, s) for r in wr for s in ws] if fresh else \
            [(r, s) for r in old_r for s in new_s] + [(r, s) for r in new_r for s in ws]
        for r, s in pairs:
            if all(abs(a - b) <= e for a, b, e in zip(R[r], S[s], eps)):
                offered.setdefault(r, set()).add(s)
        fresh = False
        wr = [r for r in wr if R[r][0] != min_rs]
        if rn == len(R) and not wr:
            break
        if rn == len(R):
            min_rs = min(R[r][0] for r in wr)
        elif wr:
            min_rs = min(min(R[r][0] for r in wr), R[rn][0] - e1)
        else:
            min_rs, fresh = R[rn][0] - e1, True
        max_rs = min_rs + e1
        ws = [s for s in ws if S[s][0] >= min_rs]
    out = set()
    for r, ss in offered.items():
        sub = brute_bestmatch([R[r]], [S[s] for s in sorted(ss)], eps, [1] * len(eps), "left-outer")
        out |= {(r, sorted(ss)[j]) for _, j in sub}
    return out


@st.composite
def shed_cases(draw):
    d = draw(st.integers(1, 2))
    rows = st.lists(st.tuples(*[st.integers(0, 8)] * d), max_size=10)
    r = sorted(draw(rows), key=lambda t: t[0])
    s = sorted(draw(rows), key=lambda t: t[0])
    eps = draw(st.lists(st.integers(0, 3), min_size=d, max_size=d))
    return (np.array(r, dtype=np.int64).reshape(len(r), d), np.array(s, dtype=np.int64).reshape(len(s), d), eps,
            draw(st.integers(0, 8)), draw(st.sampled_from(POLICIES)), draw(st.integers(0, 3)))


@settings(max_examples=200, deadline=None)
@given(shed_cases())
def test_shed_matwin_equals_the_replay_and_keeps_the_invariants(case):
    R, S, eps, memory, policy, seed = case
    data = from_arrays(R, S, eps)
    res = shed_bestmatch(data, memory, policy, seed=seed)
    prio_r, prio_s, ahead = priorities(data, policy, seed)
    got = res.as_set()
    assert got == replay(R.tolist(), S.tolist(), eps, memory, prio_r.tolist(), prio_s.tolist(), ahead)
    assert res.stats.peak_memory <= memory
    for r, s in got:  # only candidate pairs, and no pair of one r dominates another
        assert all(abs(a - b) <= e for a, b, e in zip(R[r], S[s], eps))
        cost = np.abs(R[r] - S[s])
        assert not any(dominates(tuple(np.abs(R[r] - S[t])), tuple(cost)) for q, t in got if q == r)
    assert shed_bestmatch(data, memory, policy, seed=seed, ego=True).as_set() == got


@settings(max_examples=100, deadline=None)
@given(shed_cases())
def test_memory_of_the_exact_peak_gives_the_exact_result(case):
    R, S, eps, _, policy, seed = case
    data = from_arrays(R, S, eps)
    exact = bestmatch(data, "constrained", "matwin")
    res = shed_bestmatch(data, exact.stats.peak_memory, policy, seed=seed)
    assert res.as_set() == exact.as_set() and res.stats.dropped == 0


def test_shedding_a_best_partner_makes_a_false_pair():
    """r meets s0 (distance 0) and s1 (distance 1); s0 dominates s1. With room for two tuples one
    S tuple goes (equal PROB priorities: the older, s0), and (r, s1), not in the exact result, appears."""
    data = from_arrays(np.array([[0, 0]]), np.array([[0, 0], [0, 1]]), [1, 1])
    assert bestmatch(data, "constrained", "matwin").as_set() == {(0, 0)}
    res = shed_bestmatch(data, 2, "prob")
    assert res.as_set() == {(0, 1)}
    q = quality({(0, 0)}, res.as_set())
    assert (q["precision"], q["recall"], q["symdiff"], q["false"], q["missed"]) == (0.0, 0.0, 2, 1, 1)


def test_partner_density_counts_the_neighbouring_cells():
    X = np.array([[0, 0], [100, 100]])
    Y = np.array([[1, 1], [2, 3], [9, 9], [50, 50]])
    # cells of edge 5 from the smallest value (0, 0): X[0] in cell (0, 0); Y in (0, 0), (0, 0), (1, 1),
    # (10, 10): the three within one cell count, times (2/3)^2 (the eps-box's share of 3 x 3 cells)
    assert partner_density(X, Y, np.array([5, 5])).tolist() == [3 * (2 / 3) ** 2, 0.0]


def test_study_rows_and_bad_policy():
    data = synthetic_input(300, 300, 2, "uniform", 0.1, 3, seed=1)
    df = shedding_study(data, [1.0, 0.3], ["rand", "prob", "ahead"], seeds=2)
    assert len(df) == 2 * 4
    full = df[df.fraction == 1.0]
    assert (full.precision == 1).all() and (full.recall == 1).all() and (full.symdiff == 0).all()
    part = df[df.fraction == 0.3]
    assert (part.symdiff == part["false"] + part.missed).all() and (part.dropped > 0).all()
    with pytest.raises(ShedError, match="^policy life runs on the equi-join, the band join, the W-join and the "
                       "streaming join, not on the bestmatch join; choose from rand, prob, ahead$"):
        shed_bestmatch(data, 10, "life")
