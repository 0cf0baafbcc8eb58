"""AGE, the policy of Srivastava and Widom (VLDB 2004, "Memory-Limited Execution of Windowed
Stream Joins") for the age-based model of stream arrival: how long to hold a tuple.

In the age-based model a tuple of side s meets on average f_s(a) partners at age a, its *age
curve*, whatever its key (a bid follows its auction, an arrival its departure). A tuple, once
dropped, is gone, so the only choice is how long to keep an admitted one. Keeping every admitted
tuple to age N costs N slots per tuple and catches F_s(N) = f_s(1) + ... + f_s(N) partners; with
r_s arrivals per step and M_s slots, all tuples fit while r_s N <= M_s (gain r_s F_s(N) per step),
else only M_s / N tuples per step do (gain M_s F_s(N) / N). AGE picks the *hold age* N_s that
maximizes the gain, drops the tuples older than N_s first and otherwise refuses the newest
arrivals (:mod:`~shedding.online.agememory` ranks them so). With the variable split the memory goes
to the split of M between the sides with the largest summed gain, and the side with the lower
gain per slot, F_s(N_s) / N_s, gives way first.

The curve is *known* (the mean partners per age over the whole workload, :func:`pair_age_curves`,
as the paper's static frequency table is for PROB, Das, Gehrke, Riedewald 2003, §4) or estimated
online by HAZARD's shadow sample (:mod:`~shedding.online.hazard`), pooled over keys.
"""

from __future__ import annotations

import math

import numpy as np

from shedding.exact import exact_pairs
from shedding.jit import njit
from shedding.model import Workload

#: splits of M tried by AGE's variable split
SPLITS = 65


def pair_age_curves(wl: Workload) -> np.ndarray:
    """f[s, a]: the mean number of partners a side-s tuple meets at age a = 1..w-1 over all
    window pairs of ``wl`` (age 0, the same batch, is free): the known age curve."""
    lag = np.diff(wl.time[exact_pairs(wl.with_params(warmup=0))], axis=1)[:, 0]
    f = np.zeros((2, wl.window))
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
