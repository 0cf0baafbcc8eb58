"""The shadow sample's exposure counted at once when an entry closes (shedding.online.exposure):
after the refit's settle, the statistics must be those of stepping every entry along its age
buckets (hazard._account), cell by cell, for whole windows, entries counted in part at a refit,
candidate groupings and windows of one or two buckets."""

from __future__ import annotations

import numpy as np
import pytest

from shedding.online import agedlayout as L
from shedding.online.aged import AgedState
from shedding.online.exposure import settle
from shedding.online.hazard import Q_STATS, _account, shadow_account_all, shadow_add, shadow_close
from shedding.online.kinds import HAZARD
from shedding.online.tuning import HazardTuning


def _state(window: int, ncand: int, ngroups: int) -> AgedState:
    aged = AgedState(HAZARD, window, (50, 50), False, HazardTuning())
    aged.grow(8, 5, np.zeros((8, 16), np.int64), -1)
    hsc = aged.hsc
    hsc[L.H_NCAND] = ncand
    hsc[L.H_GOFF0:L.H_GOFF0 + ncand + 1] = np.arange(ncand + 1) * ngroups
    nb = len(aged.edges) - 1
    shape = (2, ncand * ngroups, 2, nb, Q_STATS)
    aged._set("ex", np.zeros(shape, np.int64))
    aged._set("xc", np.zeros((2, ncand * ngroups, Q_STATS, nb + 1), np.int64))
    return aged


@pytest.mark.parametrize("window,ncand", [(720, 1), (720, 2), (40, 3), (3, 1), (2, 1), (1, 1)])
def test_closes_at_once_count_the_exposure_of_stepping_along_the_buckets(window: int, ncand: int) -> None:
    rng = np.random.default_rng(window + ncand)
    ngroups = 4
    aged = _state(window, ncand, ngroups)
    sh, hk, hsc, edges, ab = aged.sh, aged.hk, aged.hsc, aged.edges, aged.ab
    want = aged.ex.copy()
    for rnd in range(40):  # rounds of entries, some counted in part at a refit before they close
        for s in range(2):
            n = int(rng.integers(1, sh.shape[1] // 4))
            for _ in range(n):
                code = 0
                for a in range(ncand):
                    code |= int(rng.integers(0, ngroups)) << (L.GROUP_BITS * a)
                e = shadow_add(sh, hk, hsc, s, int(rng.integers(0, 5)), code, float(rng.random()), 10 * rnd)
                assert e >= 0
                sh[s, e, L.SH_FIRST] = -1 if rng.random() < 0.3 else int(rng.integers(1, max(window, 2)))
        if rnd % 3 == 0:  # a refit while they are open: each counted up to an age, in part
            t = 10 * rnd + int(rng.integers(0, window))
            shadow_account_all(sh.copy(), hsc, edges, ab, want, t, window)
            shadow_account_all(sh, hsc, edges, ab, aged.ex, t, window)
        for s in range(2):
            while hsc[L.H_RN0 + s] > 0:
                e = hsc[L.H_RHEAD0 + s]
                copy = sh.copy()
                _account(copy, hsc, edges, ab, want, s, e, window - 1)
                shadow_close(sh, hk, hsc, edges, ab, aged.ex, aged.xc, s, window)
    settle(edges, aged.ex, aged.xc)
    assert not aged.xc.any()
    assert np.array_equal(aged.ex, want)
