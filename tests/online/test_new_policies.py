"""The project's own policies (SURV, DUAL, FLUID, fixed and variable split): never above OPT / OPTV
(paper §3.2) and, tuple for tuple, what sorting every candidate by its value keeps. The invariants every
policy of the one join kernel passes (a subset of EXACT's pairs, EXACT with M >= 2w - 2, only
same-batch pairs with M = 0, the same result fed in pieces) run on them in tests/online/test_engine.py."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shedding import simulate, zipf_workload
from shedding.offline import solve_opt
from shedding.online import POLICIES

from reference import reference_run
from strategies import workloads

NEW = ["surv", "survv", "dual", "dualv", "fluid", "fluidv"]


def test_registered_in_the_one_kernel():
    assert all(POLICIES[p].kind in (4, 5) for p in NEW)
    assert [POLICIES[p].variable for p in NEW] == [False, True] * 3


@settings(max_examples=150, deadline=None)
@given(wl=workloads(), memory=st.integers(0, 12), policy=st.sampled_from(NEW), online=st.booleans())
def test_never_above_opt(wl, memory, policy, online):
    """OPT (OPTV for a variable split) bounds every schedule of its memory constraint (§3.2)."""
    outputs = simulate(wl, policy, memory, estimator="online" if online else "static").outputs
    opt = solve_opt(wl, memory, allocation="variable" if POLICIES[policy].variable else "fixed")
    assert outputs <= opt.outputs


def test_paper_scale_stays_below_opt():
    """Long enough for sparse parameter updates; still below OPT."""
    wl = zipf_workload(1.0, 50, 3000, seed=1, window=200)
    for policy in NEW:
        m = 150
        res = simulate(wl, policy, m)
        opt = solve_opt(wl, m, allocation="variable" if POLICIES[policy].variable else "fixed")
        assert 0 < res.outputs <= opt.outputs


class Valuer:
    """SURV's and DUAL's values straight from their definitions (shedding.online.kernel._value), with
    the horizon and price re-derived on the same steps, for the sort-everything reference."""

    def __init__(self, policy: str, window: int, m_r: int, m_s: int, memory: int, online: bool) -> None:
        pol = POLICIES[policy]
        self.kind, self.variable, self.alpha = pol.kind, pol.variable, pol.alpha
        self.w, self.caps, self.online = window, ((memory,) if pol.variable else (m_r, m_s)), online
        self.step, self.t0, self.arrivals = 0, None, [0, 0]
        self.h, self.theta, self.n = [0.0, 0.0], [0.0, 0.0], [0, 0]

    def __call__(self, t, batch, counts, totals, side, key, time):
        for x in batch:
            self.arrivals[side[x]] += 1
        self.t0 = t if self.t0 is None else self.t0
        steps = t - self.t0 + 1
        if (self.step & (self.step - 1)) == 0 or self.step % 256 == 0:
            self.n = list(totals)
            for part, cap in enumerate(self.caps):
                if self.kind == 4:
                    arrivals = sum(self.arrivals) if self.variable else self.arrivals[part]
                    self.h[part] = float(math.floor(cap * steps / max(arrivals, 1)))
                else:
                    price = self.alpha * self._fluid(counts, totals, part, cap, steps)
                    for s in (0, 1) if self.variable else (part,):
                        self.theta[s] = price
        self.step += 1

        def value(x):
            s, o = side[x], 1 - side[x]
            p = counts[o].get(key[x], 0) / self.n[o] if self.n[o] > 0 else 0.0
            rem = time[x] + self.w - 1 - t
            if self.kind == 4:
                return p * min(float(rem), self.h[0 if self.variable else s])
            a = p - self.theta[s]
            return a * rem if a > 0 else a

        return value

    def _fluid(self, counts, totals, part, cap, steps):
        items = []
        for s in (0, 1) if self.variable else (part,):
            rate = self.arrivals[s] / steps
            for k in set(counts[0]) | set(counts[1]):
                p = counts[1 - s].get(k, 0) / totals[1 - s] if totals[1 - s] > 0 else 0.0
                need = counts[s].get(k, 0) / totals[s] * rate * self.w if totals[s] > 0 else 0.0
                items.append((p, need))
        used = 0.0
        for p, need in sorted(items, key=lambda item: -item[0]):
            used += need
            if used > cap:
                return p
        return 0.0


@settings(max_examples=150, deadline=None)
@given(wl=workloads(max_n=36), memory=st.integers(0, 8), policy=st.sampled_from(NEW),
       estimator=st.sampled_from(["static", "online"]))
def test_kinetic_trees_equal_sorting_everything(wl, memory, policy, estimator):
    """The engine's tournament trees with certificates keep exactly what sorting every candidate by
    value at every step keeps (tests/reference.py), tuple for tuple."""
    _check_against_reference(wl, policy, memory, estimator)


@pytest.mark.parametrize("policy", NEW)
@pytest.mark.parametrize("estimator", ["static", "online"])
def test_kinetic_trees_on_longer_streams(policy, estimator):
    """Between parameter updates (steps 2^k, then every PARAM_EVERY) the trees run on their
    certificates alone: still tuple for tuple what sorting everything keeps."""
    for seed, skew in ((0, 1.0), (1, 0.5)):
        wl = zipf_workload(skew, 8, 500, seed=seed, window=40)
        _check_against_reference(wl, policy, 14, estimator)


def _check_against_reference(wl, policy, memory, estimator):
    m_r, m_s = memory // 2, memory - memory // 2
    side, time, key = list(wl.side), list(wl.time), list(wl.key)
    valuer = Valuer(policy, wl.window, m_r, m_s, memory, estimator == "online")
    outputs, pairs, left, admitted = reference_run(
        side, time, key, wl.window, m_r, m_s, wl.warmup, policy, POLICIES[policy].variable, estimator, memory,
        valuer=lambda t, batch, counts, totals: valuer(t, batch, counts, totals, side, key, time))
    res = simulate(wl, policy, memory, estimator=estimator, pairs=True)
    assert res.outputs == outputs and sorted(map(tuple, res.pairs.tolist())) == pairs
    np.testing.assert_array_equal(res.schedule.left, left)
    np.testing.assert_array_equal(res.schedule.admitted, admitted)
