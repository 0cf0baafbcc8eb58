"""The per-step work of the age-aware kinds AGE and HAZARD, around the memory structures of
:mod:`~shedding.online.agememory`: the shadow sample takes its share of a step's arrivals
(:mod:`~shedding.online.hazard`), the model is refitted when due (HAZARD's rates and model test, or
AGE's hold ages from the estimated age curve, :mod:`~shedding.online.ageing`), and the memory is
re-sorted after a refit (AGE's segments, or HAZARD's priorities, trees and wheel).

Refits come after the first step, then at twice as many arrivals each time (from ``refit_first``)
up to every ``refit_every`` arrivals: a deterministic schedule of the arrivals alone, so feeding
the stream in pieces changes nothing. Between refits the arrival rates and the factor that turns
a key's count into its rate beta (the other side's arrivals per step over its total count) stay
as they were, so priorities move only at known events.
"""

import math

import numpy as np

from shedding.jit import njit
from shedding.online.agememory import (HN_BUCKET, HN_C, HN_DUE, HN_STALE, rebuild_tree, schedule, seg_push,
                                       tuple_prio)
from shedding.online.ageing import age_plan
from shedding.online.hazard import (H_ARR0, H_ARRIVALS, H_EVERY, H_FIRST, H_GROUPS, H_HOLD0, H_KNOWN,
                                    H_NB, H_NEXT_REFIT, H_NSEG0, H_SAMPLE0, H_SHAPED0, H_T0, HF_DENS0, HF_FAC0,
                                    H_WHEEL_NEXT, HF_RHO0, K_LAST, bucket_of, fit, key_bins, pooled_rates,
                                    shadow_account_all, shadow_add, shadow_ended, shadow_expire)
from shedding.online.kinds import HAZARD, PROB
from shedding.online.layout import (F_TOT_R, INF, N_GNEXT, N_KEY, N_SIDE, N_TIME, P_M, P_MR, P_VARIABLE, P_W, SC_GHEAD,
                                    SC_RANK)


@njit(_nrt=False)
def begin_step(sh, hk, hsc, edges, ex, t, w):
    """Before a step's arrivals: close the shadow entries whose window ended."""
    if hsc[H_T0] < 0:
        hsc[H_T0] = t
    if hsc[H_KNOWN] == 0 and (shadow_ended(sh, hsc, 0, t, w) or shadow_ended(sh, hsc, 1, t, w)):
        shadow_expire(sh, hk, hsc, edges, ex, t, w)


@njit(_nrt=False)
def take_sample(cnt, sh, hk, hsc, hf, side, key, group, i, j, t):
    """After a step's arrivals were joined and counted: count them, and let the shadow sample
    take its share."""
    for x in range(i, j):
        s, k = side[x], key[x]
        hsc[H_ARR0 + s] += 1
        hsc[H_ARRIVALS] += 1
        if hsc[H_KNOWN] == 0:
            beta = cnt[1 - s, k] * hf[HF_FAC0 + 1 - s]
            shadow_add(sh, hk, hsc, s, k, group[x] if hsc[H_GROUPS] else 0, beta, t)


@njit(_nrt=False)
def refit_due(hsc):
    """Whether the learner refits now (and when it refits next)."""
    if hsc[H_KNOWN] != 0 or hsc[H_ARRIVALS] < hsc[H_NEXT_REFIT]:
        return False
    n = hsc[H_ARRIVALS]
    hsc[H_NEXT_REFIT] = n + min(max(n, hsc[H_FIRST]), hsc[H_EVERY])
    return True


@njit
def refit(node, cnt, fsc, sc, hz, t, kind):
    """New arrival rates and beta factors, HAZARD's model (and the rank it implies: PROB while no
    side is shaped) or AGE's hold ages, and the memory re-sorted (AGE's segments, or HAZARD's
    priorities, trees and wheel). Returns True when HAZARD goes back to ranking as PROB (the key trees need rebuilding)."""
    hsc, hf, segedge, sh, ev, ex = hz.hsc, hz.hf, hz.segedge, hz.sh, hz.ev, hz.ex
    eg, th, ep, memo, fall, edges = hz.eg, hz.th, hz.ep, hz.memo, hz.fall, hz.edges
    lens = hz.lens
    w = sc[P_W]
    shadow_account_all(sh, hsc, edges, ex, t, w)
    steps = max(t - hsc[H_T0] + 1, 1)
    for s in range(2):
        rho = hsc[H_ARR0 + s] / steps
        hf[HF_RHO0 + s] = rho
        tot = fsc[F_TOT_R + s]
        hf[HF_FAC0 + s] = rho / tot if tot > 0.0 else 0.0
        hsc[H_SAMPLE0 + s] = max(1, np.int64(math.ceil(rho * max(w - 1, 1) / sh.shape[1])))
    nb = hsc[H_NB]
    if kind == HAZARD:
        fit(hsc, hf, ev, ex, eg, th, ep)
        memo[:] = np.nan
        fall[:] = -1
        was = sc[SC_RANK]
        sc[SC_RANK] = HAZARD if hsc[H_SHAPED0] or hsc[H_SHAPED0 + 1] else PROB
        if sc[SC_RANK] == PROB:
            return was != PROB
    else:
        rates = np.empty(nb)
        cum = np.zeros((2, nb + 1))
        for s in range(2):
            pooled_rates(ev, ex, hsc, s, rates)
            for b in range(nb):
                cum[s, b + 1] = cum[s, b] + rates[b] * lens[b]
        budgets = np.array([sc[P_M] if sc[P_VARIABLE] else sc[P_MR], sc[P_MR + 1]])
        set_hold(hsc, hf, segedge, edges, cum, budgets, sc[P_VARIABLE], w)
    rebuild(node, cnt, sc, hz, t, sc[SC_RANK])
    return False


@njit
def set_hold(hsc, hf, segedge, knots, cum, budgets, variable, w):
    """AGE's hold ages and gains per slot from the age curves (``cum`` at ``knots``) and the
    arrival rates, and its two segments per side: within and past the hold age."""
    hold = np.zeros(2, dtype=np.int64)
    density = np.zeros(2)
    age_plan(knots, cum, hf[HF_RHO0:HF_RHO0 + 2], budgets, variable, hold, density)
    for s in range(2):
        hsc[H_HOLD0 + s] = hold[s]
        hf[HF_DENS0 + s] = density[s]
        hsc[H_NSEG0 + s] = 2
        segedge[s, 1] = hold[s] + 1
        segedge[s, 2] = max(w, hold[s] + 2)


@njit
def rebuild(node, cnt, sc, hz, t, rank):
    """Re-sort the memory after a refit: AGE's segments, or (when HAZARD ranks by age, ``rank``)
    every tuple's state, its priority in the bucket of its age as its value in the trees, and the
    wheel of the times they fall."""
    hsc, hf, hn, hprio, htree, hk = hz.hsc, hz.hf, hz.hn, hz.hprio, hz.htree, hz.hk
    sg, segedge, eg, th, memo, fall = hz.sg, hz.segedge, hz.eg, hz.th, hz.memo, hz.fall
    edges, lens = hz.edges, hz.lens
    sg[:] = -1
    if rank == HAZARD:
        key_bins(cnt, hf, hk)
        hsc[H_WHEEL_NEXT] = INF
    x = sc[SC_GHEAD]
    while x >= 0:
        s, k = node[x, N_SIDE], node[x, N_KEY]
        age = t - node[x, N_TIME]
        if rank == HAZARD:
            hn[x, HN_C] = 1 if hsc[H_SHAPED0 + s] and hk[1 - s, k, K_LAST] > node[x, N_TIME] else 0
            hn[x, HN_STALE] = 0
            hn[x, HN_BUCKET] = bucket_of(edges, age)
            hprio[x] = tuple_prio(node, cnt, hn, hsc, hf, hk, eg, th, memo, lens, x, hn[x, HN_BUCKET])
            hn[x, HN_DUE] = -1
            schedule(node, cnt, hn, hprio, hk, sg, hsc, hf, eg, th, memo, fall, lens, edges, x)
        else:
            j = 0
            while j + 1 < hsc[H_NSEG0 + s] and age >= segedge[s, j + 1]:
                j += 1
            seg_push(hn, sg, s, j, x)
        x = node[x, N_GNEXT]
    if rank == HAZARD:
        rebuild_tree(node, hprio, htree, hsc, sc[SC_GHEAD])
