"""The compiled band join: the fast-CPU integrated window join of Das, Gehrke, Riedewald (SIGMOD
2003), §2.1, with the band predicate, shedding by the policies of §3.3 (PROB, LIFE, RAND, and a
schedule replay for OPT, §3.2) under the exact semantics of DESIGN.md section 1.

Why not the keyed kernel (:mod:`shedding.online.kernel`): it finds an arrival's partners as one
(side, key) class FIFO and ranks classes in tournament trees. Band partners are not one class
(two tuples both match a third but not each other), so hosting the band predicate there would
rewrite its join and its eviction structures. This kernel is the small alternative: memory is a
flat array of at most M workload indices, an arrival scans the other side's memory (O(M d)), and
eviction scans for the minimum (O(M) per victim). It reuses the keyed kernel's comparison
:func:`~shedding.online.kernel._tuple_before` (priority by cross-multiplication, then older first,
then R before S, then sequence), so the drop order is the same code, and the policies of
:mod:`shedding.online.policies`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .exact import batch_end
from ..online.kernel import P_KIND, P_W, P_WARMUP, RAND, SCHEDULE, _tuple_before

ERR_NONE, ERR_SCHEDULE_OVERFULL = 0, 1


@njit(cache=True, inline="always")
def _matches(values, eps, x, y):
    for c in range(values.shape[1]):
        if abs(values[x, c] - values[y, c]) > eps[c]:
            return False
    return True


@njit(cache=True)
def _expire(mem, n_mem, side, time, w, limit, dep, held):
    """Drop every memory tuple whose window ends at or before ``limit``; returns the new size."""
    k = 0
    for p in range(n_mem):
        y = mem[p]
        if time[y] + w - 1 <= limit:
            dep[y, 0] = time[y] + w - 1
            dep[y, 1] = 1
            held[side[y]] -= 1
        else:
            mem[k] = y
            k += 1
    return k


@njit(cache=True)
def _victim(mem, n_mem, side, time, cnt, fsc, sc, part, variable, t, u):
    """Position in ``mem`` of the next tuple to drop from partition ``part``."""
    best = -1
    if sc[P_KIND] == RAND:  # uniform among the partition's candidates
        n_part = 0
        for p in range(n_mem):
            if variable or side[mem[p]] == part:
                n_part += 1
        pick = min(np.int64(u * n_part), n_part - 1)
        for p in range(n_mem):
            if variable or side[mem[p]] == part:
                if pick == 0:
                    return p
                pick -= 1
        return -1
    for p in range(n_mem):
        x = mem[p]
        if not variable and side[x] != part:
            continue
        if best < 0:
            best = p
            continue
        y = mem[best]
        if _tuple_before(cnt, fsc, sc, side[x], x, time[x], x, side[y], y, time[y], y, t):
            best = p
    return best


@njit(cache=True)
def band_run(side, time, values, eps, cnt, fsc, sc, variable, budgets, draws, sched_left, dep, pairs):
    """Run the band join over the whole workload (sorted by time).

    ``cnt[1 - side[x], x]`` is tuple x's priority numerator and ``fsc`` holds the per-side
    denominators (see :mod:`.estimator`); ``sc`` is a keyed-kernel scalar array with the policy
    kind and the window. ``budgets`` = (M_R, M_S) or (M, M) when ``variable``. ``dep[x]`` receives
    (left, admitted) per tuple; ``pairs`` (if non-empty, large enough for EXACT) the counted pairs.
    Returns (outputs, number of pairs, error code).
    """
    w = sc[P_W]
    warmup = sc[P_WARMUP]
    kind = sc[P_KIND]
    n = time.shape[0]
    mem = np.empty(n, dtype=np.int64)
    n_mem = 0
    held = np.zeros(2, dtype=np.int64)
    outputs = 0
    n_pairs = 0
    want = pairs.shape[0] > 0
    i = 0
    while i < n:
        t = time[i]
        j = batch_end(time, i)
        # (0) tuples whose window ended between batches
        n_mem = _expire(mem, n_mem, side, time, w, t - 1, dep, held)
        # (1) join the batch with memory and with itself (same-batch pairs count once, from S)
        for x in range(i, j):
            for p in range(n_mem):
                y = mem[p]
                if side[y] != side[x] and _matches(values, eps, x, y) and t >= warmup:
                    if want:
                        pairs[n_pairs, side[x]] = x
                        pairs[n_pairs, side[y]] = y
                        n_pairs += 1
                    outputs += 1
            if side[x] == 1 and t >= warmup:
                for y in range(i, j):
                    if side[y] == 0 and _matches(values, eps, x, y):
                        if want:
                            pairs[n_pairs, 0] = y
                            pairs[n_pairs, 1] = x
                            n_pairs += 1
                        outputs += 1
        # (2) expire what cannot meet a future arrival
        n_mem = _expire(mem, n_mem, side, time, w, t, dep, held)
        # (3) admit the batch, then evict down to the budgets
        for x in range(i, j):
            dep[x, 0] = t
            dep[x, 1] = 0
            if w > 1:
                mem[n_mem] = x
                n_mem += 1
                held[side[x]] += 1
        if kind == SCHEDULE:
            k = 0
            for p in range(n_mem):
                y = mem[p]
                if sched_left[y] <= t:
                    dep[y, 0] = t
                    dep[y, 1] = 1 if time[y] < t else 0
                    held[side[y]] -= 1
                else:
                    mem[k] = y
                    k += 1
            n_mem = k
        d = i
        for part in range(1 if variable else 2):
            while (held[0] + held[1] if variable else held[part]) > budgets[part]:
                if kind == SCHEDULE:
                    return outputs, n_pairs, ERR_SCHEDULE_OVERFULL
                p = _victim(mem, n_mem, side, time, cnt, fsc, sc, part, variable, t, draws[min(d, n - 1)])
                d += 1
                v = mem[p]
                dep[v, 0] = t
                dep[v, 1] = 1 if time[v] < t else 0
                held[side[v]] -= 1
                mem[p] = mem[n_mem - 1]
                n_mem -= 1
        i = j
    for p in range(n_mem):  # end of stream: the rest stays until it expires
        y = mem[p]
        dep[y, 0] = time[y] + w - 1
        dep[y, 1] = 1
    return outputs, n_pairs, ERR_NONE
