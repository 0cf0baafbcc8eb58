"""The join kernel's hooks for the age-aware kinds, AGE and HAZARD: what happens at an arrival, at
the start and end of a step, when a victim is chosen and at a refit. Each hook sends the work to the
policy's own module: AGE (Srivastava and Widom, VLDB 2004) is all in :mod:`~shedding.online.ageing`;
HAZARD is its learner, :mod:`~shedding.online.hazard`, and its memory,
:mod:`~shedding.online.hazardmemory`.

Both learn from one shadow sample (AGE when it estimates its age curve): the shadow takes its
share of a step's arrivals, and the model is refitted when due (HAZARD's rates and model test, or
AGE's hold ages from the estimated age curve), then the memory is re-sorted (AGE's segments, or
HAZARD's priorities, trees and wheel).

Refits come after the first step, then at twice as many arrivals each time (from ``refit_first``)
up to every ``refit_every`` arrivals: a deterministic schedule of the arrivals alone, so feeding
the stream in pieces changes nothing. With payload groups HAZARD fits its model anew at fewer of
them (at most every ``group_fit_every`` arrivals, :func:`fit_due`); the others only judge. Between refits the arrival rates and the factor that turns
a key's count into its rate beta (the other side's arrivals per step over its total count) stay
as they were, so priorities move only at known events.
"""

import math

import numpy as np

from shedding.jit import njit
from shedding.online import ageing as AG, autogroup as AU, forgetting as F, guard as G, hazardmemory as HM
from shedding.online.agedlayout import (H_ARR0, H_ARRIVALS, H_EVERY, H_FIRST, H_FIT_EVERY, H_GROUPS, H_KNOWN,
                                        H_NEXT_FIT, H_NEXT_REFIT, H_RHEAD0, H_SAMPLE0, H_T0, HF_FAC0, HF_RHO0, K_LAST)
from shedding.online.agelists import seg_push, seg_unlink
from shedding.online.exposure import settle
from shedding.online.hazard import shadow_account_all, shadow_add, shadow_close, shadow_ended, shadow_events
from shedding.online.kinds import AGE, HAZARD, PROB
from shedding.online.layout import F_TOT_R, N_SEQ, N_SIDE, N_TIME, P_VARIABLE, P_W, SC_GHEAD, SC_RANK
from shedding.online.partners import partner_ages


@njit(_nrt=False, inline="always")
def insert(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, lens, edges, x, kind):
    """Tuple x entered memory (age 0, not matched; the kernel has set its payload group): AGE's
    first segment, HAZARD's tree at its priority in bucket 0."""
    if kind == AGE:
        seg_push(hn, sg, node[x, N_SIDE], 0, x)
        return
    HM.admit(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, lens, edges, x)


@njit(_nrt=False, inline="always")
def remove(node, hn, hprio, htree, sg, hsc, x, kind, walk):
    """Tuple x left memory (``walk``: as for :func:`~shedding.online.hazardmemory.leave`)."""
    if kind == AGE:
        seg_unlink(hn, sg, node[x, N_SIDE], x)
        return
    HM.leave(node, hn, hprio, htree, sg, hsc, x, walk)


@njit(_nrt=False, inline="always")
def arrival(node, cls, cnt, hn, hprio, htree, hk, sg, sh, hsc, hf, edges, ab, ev, eg, th, memo, lens, o, k, t,
            last, w, young, end, rank):
    """An arrival of key k on side o at time t (after the estimator counted it), a partner of the
    other side's tuples of k aged ``young`` to ``end`` (their range, docs/semantics.md "Time
    range"): the shadow's events; while HAZARD ranks by age (``rank``), the other side's tuples of
    k it partners are matched (:func:`~shedding.online.hazardmemory.match`)."""
    if hsc[H_KNOWN] == 0:
        shadow_events(sh, hk, hsc, hf, edges, ev, o, k, t, w, young, end)
    hk[o, k, K_LAST] = t
    if rank == HAZARD:
        HM.match(node, cls, cnt, hn, hprio, htree, hk, sg, hsc, hf, edges, ab, eg, th, memo, lens, o, k, last,
                 t - young)


@njit(_nrt=False, inline="always")
def victim(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, lens, edges, ab, sc, part, t, kind):
    """The memory tuple dropped next from partition ``part`` (a side, or both under the variable
    split), -1 when it is empty."""
    if kind == AGE:
        return AG.victim(node, hn, sg, hsc, hf, sc, part, t)
    return HM.victim(node, cnt, hn, hprio, htree, hk, sg, hsc, hf, eg, th, memo, lens, edges, ab, sc, part, t)


@njit(_nrt=False, inline="always")
def loses(node, cnt, hn, hprio, hk, hsc, hf, eg, th, memo, lens, sc, v, s, k, group, t, seq, kind):
    """Whether an arrival (side s, key k, ``group``, sequence number ``seq``) would be dropped
    before the memory tuple v, the partition's next victim."""
    if kind == AGE:
        return AG.age_before(hsc, hf, sc[P_VARIABLE], s, t, seq, node[v, N_SIDE], node[v, N_TIME], node[v, N_SEQ], t)
    return HM.loses(node, cnt, hn, hprio, hk, hsc, hf, eg, th, memo, lens, v, s, k, group, t, seq)


@njit(_nrt=False)
def begin_step(sh, hk, hsc, edges, ab, ex, xc, vm, t, w):
    """Before a step's arrivals: close the shadow entries whose window ended (and take them out of
    HAZARD's guard's virtual memories)."""
    if hsc[H_T0] < 0:
        hsc[H_T0] = t
    if hsc[H_KNOWN] != 0:
        return
    for s in range(2):
        while shadow_ended(sh, hsc, s, t, w):
            G.leave(sh, hsc, vm, s, hsc[H_RHEAD0 + s])
            shadow_close(sh, hk, hsc, edges, ab, ex, xc, s, w)


@njit(_nrt=False)
def take_sample(cnt, sh, hk, hsc, hf, vm, edges, ab, eg, th, memo, lens, side, key, group, i, j, t):
    """After a step's arrivals were joined and counted: count them, and let the shadow sample
    take its share (and HAZARD's guard its share of that)."""
    for x in range(i, j):
        s, k = side[x], key[x]
        hsc[H_ARR0 + s] += 1
        hsc[H_ARRIVALS] += 1
        if hsc[H_KNOWN] == 0:
            beta = cnt[1 - s, k] * hf[HF_FAC0 + 1 - s]
            e = shadow_add(sh, hk, hsc, s, k, group[x] if hsc[H_GROUPS] else 0, beta, t)
            if e >= 0:
                G.enter(sh, cnt, hsc, hf, vm, edges, ab, eg, th, memo, lens, s, e, t)


@njit(_nrt=False)
def refit_due(hsc):
    """Whether the learner refits now (and when it refits next)."""
    if hsc[H_KNOWN] != 0 or hsc[H_ARRIVALS] < hsc[H_NEXT_REFIT]:
        return False
    hsc[H_NEXT_REFIT] = _doubled(hsc, hsc[H_EVERY])
    return True


@njit(_nrt=False)
def _doubled(hsc, most):
    """The arrival count at which the next refit (or fit) falls due: ``refit_first`` arrivals after
    the first, then twice the arrivals so far, at most ``most`` arrivals later."""
    n = hsc[H_ARRIVALS]
    return n + min(max(n, hsc[H_FIRST]), most)


@njit(_nrt=False)
def fit_due(hsc):
    """Whether this refit (:func:`refit_due` has set the next one) fits HAZARD's model anew, and
    when the next fit falls due, or only judges. With payload groups fits fall due on the refits'
    doubling schedule but at most ``group_fit_every`` arrivals apart
    (:class:`~shedding.online.tuning.HazardTuning`), and each is made at the last refit before it
    falls due (at this one when the next refit would come after it), so a fit is never later than
    its schedule and, while the refits double, every refit fits; without groups every refit fits.
    A fit by groups is the refit's work times the groups (each group's curves, and each row of the
    index asked for again: :mod:`~shedding.online.hazardindex`), while a group's statistics grow at
    its share of the arrivals; the refits between fits keep the curves and the index and take the
    new arrival rates and the guard's judgement."""
    if hsc[H_GROUPS] == 0:
        return True
    if hsc[H_ARRIVALS] < hsc[H_NEXT_FIT] and hsc[H_NEXT_REFIT] <= hsc[H_NEXT_FIT]:
        return False
    hsc[H_NEXT_FIT] = _doubled(hsc, hsc[H_FIT_EVERY])
    return True


@njit
def refit(node, cnt, fsc, sc, hz, t, kind):
    """New arrival rates and beta factors, HAZARD's guard's judgement and, when a fit is due
    (:func:`fit_due`; else the last fit's curves stay), its choice of the statistics to fit (all
    or decayed, :mod:`~shedding.online.forgetting`) and of its payload grouping
    (``group="auto"``, :mod:`~shedding.online.autogroup`) and model (and the rank it
    implies: PROB while no side is shaped) or AGE's hold ages, and the memory re-sorted (AGE's segments, or HAZARD's
    priorities, trees and wheel). Returns True when HAZARD goes back to ranking as PROB (the key
    trees need rebuilding)."""
    hsc, hf, sh, ex = hz.hsc, hz.hf, hz.sh, hz.ex
    w = sc[P_W]
    settle(hz.edges, ex, hz.xc)
    shadow_account_all(sh, hsc, hz.edges, hz.ab, ex, t, w)
    steps = max(t - hsc[H_T0] + 1, 1)
    for s in range(2):
        rho = hsc[H_ARR0 + s] / steps
        hf[HF_RHO0 + s] = rho
        tot = fsc[F_TOT_R + s]
        hf[HF_FAC0 + s] = rho / tot if tot > 0.0 else 0.0
        hsc[H_SAMPLE0 + s] = max(1, np.int64(math.ceil(rho * max(w - 1, 1) / sh.shape[1])))
    if kind == HAZARD:
        was = sc[SC_RANK]
        G.judge(hsc, hf, sc)
        if fit_due(hsc):
            AU.score(hsc, hf, hz.ev, ex, hz.evl, hz.exl, hz.ac, hz.th)
            if F.choose(hsc, hf, hz.ev, ex, hz.evd, hz.exd, hz.evl, hz.exl, hz.cf):
                sc[SC_RANK] = HM.refit(hsc, hf, hz.evd, hz.exd, hz.eg, hz.th, hz.ep, hz.memo, False)
            else:
                sc[SC_RANK] = HM.refit(hsc, hf, hz.ev, ex, hz.eg, hz.th, hz.ep, hz.memo, True)
            AU.curves(hsc, hf, hz.ev, ex, hz.ac, hz.eg, hz.th, hz.ep)
        else:
            sc[SC_RANK] = HAZARD if G.rejudge(hsc) else PROB
            F.count_choice(hsc)  # the last fit's statistics (all or decayed) and grouping are kept
            AU.count_picks(hsc)
        if sc[SC_RANK] == PROB:
            return was != PROB
    else:
        AG.estimate_hold(hsc, hf, hz.segedge, hz.ev, ex, hz.edges, hz.lens, sc)
    rebuild(node, cnt, sc, hz, t, sc[SC_RANK])
    return False


@njit(inline="always")
def rebuild(node, cnt, sc, hz, t, rank):
    """Re-sort the memory after a refit: AGE's segments, or (when HAZARD ranks by age, ``rank``)
    every tuple's priority, the trees and the wheel."""
    if rank == HAZARD:
        HM.rebuild(node, cnt, hz.hn, hz.hprio, hz.htree, hz.hk, hz.sg, hz.hsc, hz.hf, hz.eg, hz.th, hz.memo,
                   hz.lens, hz.edges, hz.ab, sc[SC_GHEAD], t, partner_ages(sc, 0)[0], partner_ages(sc, 1)[0])
    else:
        AG.rebuild_segments(node, hz.hn, hz.sg, hz.hsc, hz.segedge, sc[SC_GHEAD], t)
