"""HAZARD's fits by payload groups on their own schedule (shedding.online.agehooks.fit_due): with
groups a refit fits the model anew at most every ``group_fit_every`` arrivals and in between only
judges; without groups every refit fits. Checked against the rule written out here, and on the
learner's state: a refit that only judges leaves the curves, theta and the priorities computed
from them as they were, and counts its choices as a fit counts them.
"""

from __future__ import annotations

import numpy as np
import pytest

from shedding.online import JoinOperator, OnlineEstimator
from shedding.online import agedlayout as L
from shedding.online.agehooks import fit_due, refit_due
from shedding.online.hazard import Q_PRIO
from shedding.online.tuning import HazardTuning


def schedule(counts: list[int], first: int, every: int, fit_every: int, groups: bool) -> tuple[list[int], list[int]]:
    """The arrival counts (of those reached at the ends of steps, ``counts``) at which the learner
    refits and at which it fits, by the rule as the docs state it: a refit at the first count that
    reaches the next one due (at the first arrival, ``first`` later, then each time the arrivals
    double, at most ``every`` apart); with groups fits fall due likewise at most ``fit_every``
    apart, each made at the last refit before it falls due; without groups at every refit."""
    refits, fits, next_refit, due = [], [], 1, 1
    for n in counts:
        if n < next_refit:
            continue
        refits.append(n)
        next_refit = n + min(max(n, first), every)
        if not groups or n >= due or next_refit > due:
            fits.append(n)
            due = n + min(max(n, first), fit_every)
    return refits, fits


@pytest.mark.parametrize(("first", "every", "fit_every", "groups"),
                         [(4, 64, 256, True), (16, 256, 300, True), (64, 4096, 16384, True), (4, 64, 64, True),
                          (4, 64, 16, True), (4, 64, 256, False), (16, 256, 2**62, True)])
@pytest.mark.parametrize("step", [1, 7, 50])
def test_the_fits_follow_their_schedule(first, every, fit_every, groups, step):
    """Arrivals come a step at a time (``step`` at most per step), so a refit can be late."""
    counts = np.cumsum(np.random.default_rng(step).integers(1, step + 1, 60_000 // step)).tolist()
    hsc = np.zeros(L.H_FIELDS, np.int64)
    hsc[L.H_FIRST], hsc[L.H_EVERY], hsc[L.H_FIT_EVERY], hsc[L.H_GROUPS] = first, every, fit_every, int(groups)
    hsc[L.H_NEXT_REFIT] = hsc[L.H_NEXT_FIT] = 1
    refits, fits = [], []
    for n in counts:
        hsc[L.H_ARRIVALS] = n
        if refit_due(hsc):
            refits.append(n)
            if fit_due(hsc):
                fits.append(n)
    assert (refits, fits) == schedule(counts, first, every, fit_every, groups)
    assert set(fits) <= set(refits)
    if not groups or fit_every <= every:
        assert fits == refits
    else:  # fits while the refits double, then at most fit_every arrivals apart (a step late at most)
        assert all(b in fits for a, b in zip(refits, refits[1:]) if max(a, first) <= every)
        assert all(b - a <= fit_every + step for a, b in zip(fits, fits[1:]))
        assert len(fits) < len(refits) or fit_every < 2 * every


def stream(seed: int, window: int = 40, groups: int = 6, n: int = 3000) -> tuple[np.ndarray, ...]:
    """R tuples whose partners come at a lag set by their group, with noise: (side, time, key, group)."""
    rng = np.random.default_rng(seed)
    rt = np.sort(rng.integers(0, n // 2, n))
    rk, rg = rng.integers(0, 50, n), rng.integers(0, groups, n)
    lag = np.minimum(2 + 5 * rg + rng.integers(0, 3, n), window - 1)
    hit = rng.random(n) < 0.7
    side = np.concatenate([np.zeros(n, np.int64), np.ones(hit.sum(), np.int64)])
    time = np.concatenate([rt, rt[hit] + lag[hit]])
    key, group = np.concatenate([rk, rk[hit]]), np.concatenate([rg, rg[hit]])
    order = np.lexsort((side, time))
    return side[order], time[order], key[order], group[order]


def learner(op: JoinOperator):
    """The operator's HAZARD learner arrays (its curves, theta, pooled curve and memo)."""
    return op._aged


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_refit_that_only_judges_keeps_the_curves(seed):
    side, time, key, group = stream(seed)
    tuning = HazardTuning(refit_first=4, refit_every=64, group_fit_every=256, test=False)
    op = JoinOperator(40, 30, "hazard", estimator=OnlineEstimator(), tuning=tuning)
    steps = np.flatnonzero(np.r_[True, time[1:] != time[:-1]])
    bounds = np.r_[steps, len(time)]
    refits = fits = 0
    for a, b in zip(bounds[:-1], bounds[1:]):
        hz = learner(op)
        before = hz.hsc[L.H_REFITS] if hz.active else 0
        curves = [np.array(getattr(hz, f)) for f in ("eg", "th", "ep")] if hz.active else None
        memo = np.array(hz.memo[:, :, :, :Q_PRIO]) if hz.active else None  # not the rows' scratch
        op.feed(side[a:b], time[a:b], key[a:b], group[a:b])
        hz = learner(op)
        if hz.hsc[L.H_REFITS] == before or curves is None:
            continue
        refits += 1
        fitted = any(not np.array_equal(c, getattr(hz, f), equal_nan=True) for c, f in zip(curves, ("eg", "th", "ep")))
        if fitted:
            fits += 1
        else:  # only judged: every priority of the last fit is still there (new key bins may add rows)
            filled = ~np.isnan(memo)
            assert np.array_equal(memo[filled], hz.memo[:, :, :, :Q_PRIO][filled])
    assert refits > 2 * fits > 0
    assert op.guard_choice.endswith(f"/{int(learner(op).hsc[L.H_REFITS])}")


@pytest.mark.parametrize("seed", [3, 4])
def test_fits_at_every_refit_without_groups(seed):
    """Without groups ``group_fit_every`` changes nothing."""
    side, time, key, _ = stream(seed)
    runs = set()
    for fit_every in (1, 64, 2**40):
        op = JoinOperator(40, 30, "hazard", estimator=OnlineEstimator(), record=True,
                          tuning=HazardTuning(refit_first=4, refit_every=64, group_fit_every=fit_every, test=False))
        fed = op.feed(side, time, key, None)
        runs.add((fed.outputs, np.concatenate([fed.departures, op.finish()]).tobytes(), op.guard_choice))
    assert len(runs) == 1


@pytest.mark.parametrize("seed", [5, 6])
def test_fewer_fits_by_groups_change_the_schedule_and_count_as_refits(seed):
    """With groups the fits' schedule is a real choice (another schedule, the same number of
    refits), and fitting at every refit is ``group_fit_every <= refit_every`` exactly."""
    side, time, key, group = stream(seed)
    out = {}
    for fit_every in (16, 64, 1024):
        op = JoinOperator(40, 30, "hazard", estimator=OnlineEstimator(), record=True,
                          tuning=HazardTuning(refit_first=4, refit_every=64, group_fit_every=fit_every, test=False))
        fed = op.feed(side, time, key, group)
        out[fit_every] = (np.concatenate([fed.departures, op.finish()]).tobytes(), op.guard_choice.split("/")[-1])
    assert out[16] == out[64]
    assert out[1024][0] != out[64][0] and out[1024][1] == out[64][1]
