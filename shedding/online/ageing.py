"""AGE, the policy of Srivastava and Widom (VLDB 2004, "Memory-Limited Execution of Windowed
Stream Joins") for the age-based model of stream arrival: how long to hold a tuple.

In the age-based model a tuple of side s meets on average f_s(a) partners at age a, its *age
curve*, whatever its key (a bid follows its auction, an arrival its departure). A tuple, once
dropped, is gone, so the only choice is how long to keep an admitted one. Keeping every admitted
tuple to age N costs N slots per tuple and catches F_s(N) = f_s(1) + ... + f_s(N) partners; with
r_s arrivals per step and M_s slots, all tuples fit while r_s N <= M_s (gain r_s F_s(N) per step),
else only M_s / N tuples per step do (gain M_s F_s(N) / N). AGE picks the *hold age* N_s that
maximizes the gain, drops the tuples older than N_s first and otherwise refuses the newest
arrivals. With the variable split the memory goes
to the split of M between the sides with the largest summed gain, and the side with the lower
gain per slot, F_s(N_s) / N_s, gives way first.

The curve is *known* (the mean partners per age over the whole workload, :func:`pair_age_curves`,
as the paper's static frequency table is for PROB, Das, Gehrke, Riedewald 2003, §4) or estimated
online by HAZARD's shadow sample (:mod:`~shedding.online.hazard`), pooled over keys.

In memory (compiled for the join kernel, :mod:`~shedding.online.agehooks` calls it) AGE keeps per
side two *age segments*, lists of its memory tuples in arrival order (:mod:`~shedding.online.agelists`)
within and past the hold age. At every step the tuples that reached the next segment's first age are
the oldest of theirs, so *crossing* pops them from one head and appends them to the next tail. The
next victim is the head of the past-hold segment, else the youngest arrivals of the other.
"""

from __future__ import annotations

import math

import numpy as np

from shedding.exact import exact_pairs
from shedding.jit import njit
from shedding.model import Workload
from shedding.online.agedlayout import HF_DENS0, HF_RHO0, HN_SPREV, H_HOLD0, H_NB, H_NSEG0
from shedding.online.agelists import seg_push, seg_unlink
from shedding.online.hazard import pooled_rates
from shedding.online.layout import INF, N_GNEXT, N_SEQ, N_SIDE, N_TIME, P_M, P_MR, P_VARIABLE, P_W

#: splits of M tried by AGE's variable split
SPLITS = 65


def pair_age_curves(wl: Workload) -> np.ndarray:
    """f[s, a]: the mean number of partners a side-s tuple meets at age a = 1..w-1 (up to the
    horizon under a time range) over all pairs of ``wl`` (age 0, the same batch, is free): the known age curve."""
    lag = np.diff(wl.time[exact_pairs(wl.with_params(warmup=0))], axis=1)[:, 0]
    f = np.zeros((2, wl.horizon))
    np.add.at(f[0], lag[lag > 0], 1.0)
    np.add.at(f[1], -lag[lag < 0], 1.0)
    return f / np.maximum([[wl.n_r], [wl.n_s]], 1)


def known_curves(wl: Workload) -> tuple[np.ndarray, np.ndarray]:
    """AGE's known age curves f[s, a] (:func:`pair_age_curves`) and the arrival rates per step of
    the whole workload: what a static estimator knows in advance."""
    span = max(int(wl.time[-1] - wl.time[0]) + 1, 1) if len(wl) else 1
    return pair_age_curves(wl), np.array([wl.n_r, wl.n_s], dtype=np.float64) / span


@njit(_nrt=False)
def _cum_at(knots, cum, n):
    """F(n) from its values at the knots (linear in between)."""
    i = np.searchsorted(knots, n, side="right") - 1
    if i >= knots.shape[0] - 1:
        return cum[knots.shape[0] - 1]
    span = knots[i + 1] - knots[i]
    return cum[i] + (cum[i + 1] - cum[i]) * (n - knots[i]) / span


@njit(_nrt=False)
def hold_age(knots, cum, rate, slots):
    """AGE's hold age N >= 1 and its gain per step min(rate, slots / N) * F(N), for F given at the
    ``knots`` (ages 0 = knots[0] < ... , F linear in between). The best N is a knot or where
    rate * N reaches the slots (F is linear between knots, so the gain is monotone there)."""
    last = knots[knots.shape[0] - 1]
    if last < 1 or rate <= 0.0:
        return max(last, 1), 0.0
    best_n, best_gain = last, -1.0
    kink = slots / rate
    for i in range(1, knots.shape[0] + 2):
        if i < knots.shape[0]:
            n = knots[i]
        elif i == knots.shape[0]:
            n = np.int64(math.floor(kink))
        else:
            n = np.int64(math.ceil(kink))
        if n < 1 or n > last:
            continue
        gain = min(rate, slots / n) * _cum_at(knots, cum, n)
        if gain > best_gain or (gain == best_gain and n < best_n):
            best_n, best_gain = n, gain
    return best_n, best_gain


@njit
def age_plan(knots, cum, rate, budgets, variable, hold, density):
    """AGE's hold ages ``hold[s]`` and gains per slot ``density[s]`` = F_s(N_s) / N_s for the age
    curves F (``cum[s]`` at ``knots``), arrival ``rate[s]`` and the memory ``budgets`` (M_R, M_S),
    or (with ``variable``) the best of ``SPLITS`` splits of M = budgets[0]."""
    if variable:
        m = budgets[0]
        best = -1.0
        for i in range(SPLITS):
            a = np.int64(round(m * i / (SPLITS - 1)))
            n0, g0 = hold_age(knots, cum[0], rate[0], float(a))
            n1, g1 = hold_age(knots, cum[1], rate[1], float(m - a))
            if g0 + g1 > best:
                best = g0 + g1
                hold[0], hold[1] = n0, n1
    else:
        for s in range(2):
            hold[s], _ = hold_age(knots, cum[s], rate[s], float(budgets[s]))
    for s in range(2):
        density[s] = _cum_at(knots, cum[s], hold[s]) / max(hold[s], 1)


# ---------------------------------------------------------------- the hold ages, as memory holds them


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
def estimate_hold(hsc, hf, segedge, ev, ex, edges, lens, sc):
    """The hold ages (:func:`set_hold`) from the age curve that HAZARD's shadow sample estimates,
    pooled over keys and groups (:func:`~shedding.online.hazard.pooled_rates`), and the memory
    parameters of ``sc``."""
    nb = hsc[H_NB]
    rates = np.empty(nb)
    cum = np.zeros((2, nb + 1))
    for s in range(2):
        pooled_rates(ev, ex, hsc, s, rates)
        for b in range(nb):
            cum[s, b + 1] = cum[s, b] + rates[b] * lens[b]
    budgets = np.array([sc[P_M] if sc[P_VARIABLE] else sc[P_MR], sc[P_MR + 1]])
    set_hold(hsc, hf, segedge, edges, cum, budgets, sc[P_VARIABLE], sc[P_W])


# ---------------------------------------------------------------- the age segments


@njit(_nrt=False)
def cross(node, hn, sg, segedge, hsc, t, due0, due1):
    """Move every tuple that reached the first age of its next segment (oldest first).

    ``due0``, ``due1``: per side a time no later than its next crossing (0: unknown). A side is
    not looked at before it; after a look it is the first crossing of the segments' heads, which
    only evictions and expiries change, and they can only delay it (arrivals lower it, see
    :func:`due_after_insert`). Returns the two times for the next step."""
    for s in range(2):
        due = due0 if s == 0 else due1
        if t < due:
            continue
        due = INF
        for j in range(hsc[H_NSEG0 + s] - 1):
            edge = segedge[s, j + 1]
            while True:
                x = sg[s, j, 0]
                if x < 0:
                    break
                if t - node[x, N_TIME] < edge:
                    due = min(due, node[x, N_TIME] + edge)
                    break
                seg_unlink(hn, sg, s, x)
                seg_push(hn, sg, s, j + 1, x)
        if s == 0:
            due0 = due
        else:
            due1 = due
    return due0, due1


@njit(_nrt=False)
def due_after_insert(segedge, hsc, s, t, due):
    """:func:`cross`'s time for side s after an arrival at t entered its first segment."""
    return min(due, t + segedge[s, 1]) if hsc[H_NSEG0 + s] > 1 else due


@njit(_nrt=False)
def rebuild_segments(node, hn, sg, hsc, segedge, head, t):
    """Re-sort the memory tuples (the global list from ``head``) into the segments of their ages at
    t, after the hold ages changed."""
    sg[:] = -1
    x = head
    while x >= 0:
        s = node[x, N_SIDE]
        age = t - node[x, N_TIME]
        j = 0
        while j + 1 < hsc[H_NSEG0 + s] and age >= segedge[s, j + 1]:
            j += 1
        seg_push(hn, sg, s, j, x)
        x = node[x, N_GNEXT]


# ---------------------------------------------------------------- the next victim


@njit(_nrt=False)
def age_before(hsc, hf, variable, sa, ta, qa, sb, tb, qb, t):
    """AGE's drop order of tuple a (side, time, seq) before b at time t: past the hold age first
    (oldest first); then, under the variable split, the side with the lower gain per slot; then
    the youngest; then R; then the sequence number."""
    oa = t - ta > hsc[H_HOLD0 + sa]
    ob = t - tb > hsc[H_HOLD0 + sb]
    if oa != ob:
        return oa
    if oa:
        if ta != tb:
            return ta < tb
    else:
        if variable and hf[HF_DENS0 + sa] != hf[HF_DENS0 + sb]:
            return hf[HF_DENS0 + sa] < hf[HF_DENS0 + sb]
        if ta != tb:
            return ta > tb
    if sa != sb:
        return sa < sb
    return qa < qb


@njit(_nrt=False)
def _side_min(node, hn, sg, s):
    """The next victim of side s: the oldest past the hold age, else the first of the youngest."""
    if sg[s, 1, 0] >= 0:
        return sg[s, 1, 0]
    y = sg[s, 0, 1]
    if y < 0:
        return -1
    while hn[y, HN_SPREV] >= 0 and node[hn[y, HN_SPREV], N_TIME] == node[y, N_TIME]:
        y = hn[y, HN_SPREV]
    return y


@njit(_nrt=False)
def victim(node, hn, sg, hsc, hf, sc, part, t):
    """The memory tuple dropped next from partition ``part`` (a side, or both under the variable
    split, where :func:`age_before` decides between the sides' candidates), -1 when it is empty."""
    if not sc[P_VARIABLE]:
        return _side_min(node, hn, sg, part)
    a, b = _side_min(node, hn, sg, 0), _side_min(node, hn, sg, 1)
    if a < 0 or b < 0:
        return max(a, b)
    if age_before(hsc, hf, True, 1, node[b, N_TIME], node[b, N_SEQ], 0, node[a, N_TIME], node[a, N_SEQ], t):
        return b
    return a
