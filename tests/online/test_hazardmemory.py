"""HAZARD's memory structures (shedding.online.hazardmemory) against a brute force after every step:
each memory tuple's value in the tree never exceeds its priority in its present state (in the
bucket of its age) and equals it unless it rose since it was placed (marked stale, or in a later
bucket than the one it was placed in), it is matched exactly when its key arrived on the other side
after it at an age its range meets (any age on the window; from lo on for R under a time range,
from -hi on for S), it waits in the wheel exactly at the first later age at which its priority falls below
its value (and nowhere when it never does), and each tree's root is the minimum of its side's
memory by (value, time, side, sequence number). Together these make the checked victim the true
minimum of the drop order (Das, Gehrke, Riedewald 2003, §2.1; docs/semantics.md)."""

from __future__ import annotations

import numpy as np
import pytest

from shedding.datasets import zipf_workload
from shedding.datasets.age import age_workload
from shedding.online import JoinOperator, OnlineEstimator
from shedding.online import agedlayout as L, hazardmemory as H
from shedding.online.agedlayout import H_LEAVES, H_SHAPED0
from shedding.online.tuning import HazardTuning
from shedding.online.kinds import HAZARD
from shedding.online.layout import N_GNEXT, N_KEY, N_SEQ, N_SIDE, N_TIME, SC_GHEAD, SC_RANK

#: refits often and always takes the shaped model (no model test, no guard), so that short streams rank by age
EAGER = HazardTuning(first=2, ratio=1.5, shadow=8, refit_first=4, refit_every=64, test=False, guard=False)


def memory_of(op: JoinOperator) -> list[int]:
    out, x = [], int(op._sc[SC_GHEAD])
    while x >= 0:
        out.append(x)
        x = int(op._node[x, N_GNEXT])
    return out


def wheel_of(a, s: int) -> dict[int, int]:
    """Every tuple listed in side s's wheel, with its slot (following each slot's links)."""
    listed = {}
    for slot in range(a.sg.shape[1]):
        x = int(a.sg[s, slot, 0])
        while x >= 0:
            assert x not in listed
            listed[x] = slot
            x = int(a.hn[x, L.HN_SNEXT])
    return listed


def check(op: JoinOperator, t: int, last: dict[tuple[int, int], int], young: tuple[int, int]) -> int:
    """Assert the invariants at time t (``last``: each (side, key)'s latest arrival so far; ``young``:
    the youngest age a partner meets an R, an S tuple at, at least 1); returns how many tuples were
    checked while ranking by age."""
    if op._sc[SC_RANK] != HAZARD:
        return 0
    a, node = op._aged, op._node
    edges = a.edges
    nb = len(edges) - 1
    mem = memory_of(op)
    listed = {s: wheel_of(a, s) for s in range(2)}
    for x in mem:
        s, k = int(node[x, N_SIDE]), int(node[x, N_KEY])
        j = min(int(np.searchsorted(edges, t - node[x, N_TIME], side="right")) - 1, nb - 1)
        # a later arrival meets it from the age young on: the latest did if any did
        matched = bool(a.hsc[H_SHAPED0 + s]) and last.get((1 - s, k), -1) >= node[x, N_TIME] + young[s]
        assert a.hn[x, L.HN_C] == matched
        true = H.tuple_prio(node, op._cnt, a.hn, a.hsc, a.hf, a.hk, a.eg, a.th, a.memo, a.lens, x, j)
        assert a.hprio[x] <= true
        shaped = bool(a.hsc[H_SHAPED0 + s])
        if a.hn[x, L.HN_STALE] == 0 and (a.hn[x, L.HN_BUCKET] == j or not shaped):
            assert a.hprio[x] == true
        later = [b for b in range(j + 1, nb) if shaped and H.tuple_prio(
            node, op._cnt, a.hn, a.hsc, a.hf, a.hk, a.eg, a.th, a.memo, a.lens, x, b) < a.hprio[x]]
        due = int(node[x, N_TIME] + edges[later[0]]) if later else -1
        assert a.hn[x, L.HN_DUE] == due
        assert listed[s].pop(x, None) == (None if due < 0 else due % a.sg.shape[1])
    assert not listed[0] and not listed[1]  # no tuple outside memory
    for s in range(2):
        side = [x for x in mem if node[x, N_SIDE] == s]
        root = int(a.htree[s, 1])
        if not side:
            assert root == -1
            continue
        best = min(side, key=lambda x: (a.hprio[x], node[x, N_TIME], node[x, N_SIDE], node[x, N_SEQ]))
        assert root == best
        assert a.htree[s, a.hsc[H_LEAVES] + root] == root
    return len(mem)


@pytest.mark.parametrize("bounds", [None, (5, 39), (-39, -5), (-12, 39)], ids=["window", "lo>0", "hi<0", "asymmetric"])
@pytest.mark.parametrize("policy", ["hazard", "hazardv"])
@pytest.mark.parametrize("make, memory, grouped", [
    (lambda: age_workload(length=900, window=60, lag_mean=20, lag_spread=5, background=0.25, skew=0.0,
                          domain=1_000_000, seed=3), 12, False),
    (lambda: age_workload(length=900, window=60, lag_mean=20, lag_spread=5, background=0.5, skew=0.8, domain=15,
                          seed=4), 12, True),
    (lambda: zipf_workload(1.0, 30, 900, seed=5, window=40), 16, False),
], ids=["age-unique-keys", "age-colliding-keys-groups", "zipf"])
def test_the_trees_and_priorities_hold_after_every_step(make, memory, grouped, policy, bounds):
    wl = make()
    op = JoinOperator(wl.window, memory, policy, warmup=wl.warmup, estimator=OnlineEstimator(), tuning=EAGER,
                      range=bounds)
    group = np.arange(len(wl)) % 3 if grouped else None
    young = (1, 1) if bounds is None else (max(bounds[0], 1), max(-bounds[1], 1))
    side = wl.side if bounds is None or bounds[1] >= 0 else 1 - wl.side  # hi < 0: R tuples follow S's
    starts = np.flatnonzero(np.r_[True, wl.time[1:] != wl.time[:-1]])
    checked, last = 0, {}
    for lo, hi in zip(starts, np.r_[starts[1:], len(wl)]):
        op.feed(side[lo:hi], wl.time[lo:hi], wl.key[lo:hi], None if group is None else group[lo:hi])
        ids = op._map_keys(wl.key[lo:hi])  # the kernel's class ids of the raw keys (all known once fed)
        last.update(((int(s), int(k)), int(wl.time[lo])) for s, k in zip(side[lo:hi], ids))
        checked += check(op, int(wl.time[lo]), last, young)
    assert checked > 1000  # ranked by age for most of the stream, with a full memory
