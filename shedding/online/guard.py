"""HAZARD's guard: it judges the age-shaped order by the outputs it keeps, not by how well its
model fits.

HAZARD's model test (:mod:`~shedding.online.hazard`) asks whether the age-shaped rates fit the
shadow sample better than the flat ones; on real streams with busy keys (the flights by carrier or
destination) they do, and still the order they imply keeps fewer pairs than PROB's (Das, Gehrke,
Riedewald 2003, §3.3.1). The guard asks the question that matters, per side:

* two *virtual memories* per side replay the two orders on a sub-sample of the shadow sample
  as it arrives: every ``H_JEVERY``-th shadow entry enters both, and each, when over its
  capacity, drops the entry that is lowest in its order now (ties: the oldest): PROB's order
  (its key's rate beta now) in one, the shaped index HAZARD would give it (its state's index at
  beta's priority bin) in the other. The capacity is the side's share of the memory scaled by
  the sub-sample's rate (M_s / (sample x every) slots, at most :data:`SLOTS`; under the variable
  split M in proportion to the arrival rates), so each is a small copy of the join at the same
  load, time of day and bursts included;
* every partner a shadow entry meets while it is in a virtual memory counts for that order
  (``HF_KEPT``). At each refit (:func:`judge`) the difference, shape minus PROB, and PROB's count
  are added to running sums whose weight halves at each judgement; the shape is allowed
  (``H_OK``) once it keeps more than PROB by the hysteresis share of PROB's count plus the noise
  of that count (its square root, at least 1: PROB may keep nothing, as with unique keys), and
  disallowed once it keeps less by the hysteresis share.

A side ranks by its shape only if the model test finds one and the guard allows it
(:func:`verdict`); before any judgement the guard allows nothing, so HAZARD starts as PROB. Both
replays see only arrivals up to the present, so no decision looks ahead.
"""

from __future__ import annotations

import math

from shedding.jit import njit
from shedding.online.agedlayout import (H_CHOSE0, H_FITSHAPED0, H_GUARD, H_JEVERY0, H_JSEEN0, H_OK0, H_REFITS,
                                        H_SAMPLE0, H_SHAPED0, H_VCAP0, H_VN0, HF_FAC0, HF_HYST, HF_JDEN0,
                                        HF_JNUM0, HF_KEPT0, HF_RHO0, SH_FIRST, SH_GROUP, SH_KEY, SH_TIME, SH_VM0)
from shedding.online.agebuckets import bucket_at
from shedding.online.hazard import Q_PRIO, Q_PRIO_OCTAVE, beta_bin, picked_group
from shedding.online.hazardindex import shaped_prio
from shedding.online.layout import P_M, P_MR, P_VARIABLE

#: the most slots of a virtual memory (its entries are searched for the lowest at each drop)
SLOTS = 16
#: the weight of the past judgements at each new one
_DECAY = 0.5
#: the shape is allowed only with a lead above the hysteresis by this many times the noise of a
#: count, sqrt(PROB's partners, at least 1): few partners, a larger lead
_Z = 1.0


@njit(_nrt=False)
def _prio(sh, cnt, hsc, hf, edges, ab, eg, th, memo, lens, s, e, order, t):
    """Shadow entry e of side s in ``order`` at time t: its key's beta (0: PROB's), or the shaped
    index of its state (1), as HAZARD ranks it in memory (its age bucket from the table ``ab``,
    :mod:`~shedding.online.agebuckets`)."""
    beta = cnt[1 - s, sh[s, e, SH_KEY]] * hf[HF_FAC0 + 1 - s]
    if order == 0:
        return beta
    age = t - sh[s, e, SH_TIME]
    first = sh[s, e, SH_FIRST]
    g = picked_group(hsc, s, sh[s, e, SH_GROUP])
    return shaped_prio(hsc, eg, th, memo, lens, s, g, 1 if 1 <= first <= age else 0, bucket_at(ab, edges, age),
                       beta_bin(beta, Q_PRIO_OCTAVE, Q_PRIO))


@njit(_nrt=False)
def _drop(sh, hsc, vm, s, order, i):
    """Take the entry in slot i out of a virtual memory (the last slot's entry moves into it)."""
    n = hsc[H_VN0 + 2 * s + order] - 1
    x, last = vm[s, order, i], vm[s, order, n]
    vm[s, order, i] = last
    sh[s, last, SH_VM0 + order] = i
    sh[s, x, SH_VM0 + order] = -1
    hsc[H_VN0 + 2 * s + order] = n


@njit(_nrt=False)
def enter(sh, cnt, hsc, hf, vm, edges, ab, eg, th, memo, lens, s, e, t):
    """Shadow entry e of side s joined the sample at time t: every ``H_JEVERY``-th enters both
    virtual memories, and each over its capacity drops its lowest entry in its order."""
    if hsc[H_GUARD] == 0 or hsc[H_VCAP0 + s] == 0:
        return
    seen = hsc[H_JSEEN0 + s]
    hsc[H_JSEEN0 + s] = seen + 1
    if seen % hsc[H_JEVERY0 + s] != 0:
        return
    for order in range(2):
        n = hsc[H_VN0 + 2 * s + order]
        vm[s, order, n] = e
        sh[s, e, SH_VM0 + order] = n
        hsc[H_VN0 + 2 * s + order] = n + 1
        while hsc[H_VN0 + 2 * s + order] > hsc[H_VCAP0 + s]:
            low, at = math.inf, -1
            for i in range(hsc[H_VN0 + 2 * s + order]):
                x = vm[s, order, i]
                p = _prio(sh, cnt, hsc, hf, edges, ab, eg, th, memo, lens, s, x, order, t)
                if at < 0 or p < low or (p == low and sh[s, x, SH_TIME] < sh[s, vm[s, order, at], SH_TIME]):
                    low, at = p, i
            _drop(sh, hsc, vm, s, order, at)


@njit(_nrt=False)
def leave(sh, hsc, vm, s, e):
    """Shadow entry e of side s closes (its window ended): out of the virtual memories."""
    for order in range(2):
        if sh[s, e, SH_VM0 + order] >= 0:
            _drop(sh, hsc, vm, s, order, sh[s, e, SH_VM0 + order])


@njit(_nrt=False)
def _weigh(hsc, hf, s, shape, prob):
    """Add one judgement of side s (the partners each order kept) and update its verdict."""
    hf[HF_JNUM0 + s] = _DECAY * hf[HF_JNUM0 + s] + (shape - prob)
    hf[HF_JDEN0 + s] = _DECAY * hf[HF_JDEN0 + s] + prob
    lead, prob = hf[HF_JNUM0 + s], hf[HF_JDEN0 + s]
    if lead > hf[HF_HYST] * prob + _Z * math.sqrt(max(prob, 1.0)):
        hsc[H_OK0 + s] = 1
    elif lead < -hf[HF_HYST] * prob:
        hsc[H_OK0 + s] = 0


@njit(_nrt=False)
def judge(hsc, hf, sc):
    """At a refit, before the new fit (and after the new arrival rates and shadow rates): the
    partners each virtual memory kept since the last judgement, added to the running judgement
    per side (both sides as one under the variable split); then the virtual memories' capacities
    and sub-sample rates for the new rates."""
    if hsc[H_GUARD] == 0:
        return
    if sc[P_VARIABLE]:
        shape, prob = hf[HF_KEPT0 + 1] + hf[HF_KEPT0 + 3], hf[HF_KEPT0] + hf[HF_KEPT0 + 2]
        if shape + prob > 0.0:
            for s in range(2):
                _weigh(hsc, hf, s, shape, prob)
    else:
        for s in range(2):
            if hf[HF_KEPT0 + 2 * s] + hf[HF_KEPT0 + 2 * s + 1] > 0.0:
                _weigh(hsc, hf, s, hf[HF_KEPT0 + 2 * s + 1], hf[HF_KEPT0 + 2 * s])
    for i in range(4):
        hf[HF_KEPT0 + i] = 0.0
    rho = hf[HF_RHO0] + hf[HF_RHO0 + 1]
    for s in range(2):
        share = (sc[P_M] * hf[HF_RHO0 + s] / rho if rho > 0.0 else 0.0) if sc[P_VARIABLE] else sc[P_MR + s]
        slots = share / hsc[H_SAMPLE0 + s]  # the shadow's share of the memory
        every = max(1, int(math.ceil(slots / SLOTS)))
        hsc[H_JEVERY0 + s] = every
        hsc[H_VCAP0 + s] = min(SLOTS, int(round(slots / every)))


@njit(_nrt=False)
def verdict(hsc):
    """After the new fit: a side ranks by its shape only if the model test found one (kept in
    ``H_FITSHAPED``) and the guard allows it; the choices are counted per side."""
    for s in range(2):
        hsc[H_FITSHAPED0 + s] = hsc[H_SHAPED0 + s]
    _allow(hsc)


@njit(_nrt=False)
def rejudge(hsc):
    """A refit without a new fit (:func:`~shedding.online.agehooks.fit_due`): the last fit's
    verdict of the model test judged again by the guard as it stands now, counted as
    :func:`verdict` counts, and the refit counted; whether a side ranks by its shape."""
    _allow(hsc)
    hsc[H_REFITS] += 1
    return hsc[H_SHAPED0] or hsc[H_SHAPED0 + 1]


@njit(_nrt=False)
def _allow(hsc):
    """A side ranks by its shape if the model test found one (``H_FITSHAPED``) and the guard, when
    it judges, allows it; the choices are counted per side."""
    for s in range(2):
        hsc[H_SHAPED0 + s] = 1 if hsc[H_FITSHAPED0 + s] and (hsc[H_OK0 + s] or not hsc[H_GUARD]) else 0
        hsc[H_CHOSE0 + s] += hsc[H_SHAPED0 + s]
