"""The compiled band join: the fast-CPU integrated window join of Das, Gehrke, Riedewald (SIGMOD
2003), §2.1, with the band predicate, shedding by the policies of §3.3 (PROB, LIFE, RAND, and a
schedule replay for OPT, §3.2) under the join semantics (docs/semantics.md).

Why not the keyed kernel (:mod:`shedding.online.kernel`): it finds an arrival's partners as one
(side, key) class FIFO and ranks classes in tournament trees. Band partners are not one class
(two tuples both match a third but not each other), so hosting the band predicate there would
rewrite its join and its eviction structures. This kernel is the small alternative: memory is a
flat array of at most M slots (swap-remove), an arrival scans the other side's slots (O(M d)),
and eviction scans for the minimum (O(M) per victim). It reuses the keyed kernel's comparison
:func:`~shedding.online.kernel.tuple_before` (priority by cross-multiplication, then older first,
then R before S, then sequence number), so the drop order is the same code.

State: a :class:`BandState` (``BandJoinOperator._state``), read by name. With the online estimator
the histogram learns each batch after the join and every held tuple's numerator is recomputed
(O(M d log bins) per step). It can be pickled between feeds.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from shedding.jit import njit
from shedding.online.kernel import (F_TOT_R, P_KIND, P_M, P_MR, P_ONLINE, P_VARIABLE, P_W, P_WARMUP, RAND,
                             SCHEDULE, tuple_before, batch_end)
from shedding.band.estimator import add_to_bins, band_denominator, band_numerator

ERR_NONE, ERR_SCHEDULE_OVERFULL = 0, 1
M_SEQ, M_SIDE, M_TIME = 0, 1, 2
B_USED, B_HELD_R, B_SEEN_R = 0, 1, 3
BS_FIELDS = 5


class BandState(NamedTuple):
    """The band join's state, as the compiled join takes it (C slots, d attributes), by name."""

    mem: np.ndarray  #: int64 [3, C]: per slot seq, side, time
    vals: np.ndarray  #: int64 [C, d]: per slot its attribute values (scaled integers)
    cnt: np.ndarray  #: float64 [2, C]: per slot its priority numerator (``cnt[1 - side, slot]``)
    eps: np.ndarray  #: int64 [d]: the band width of each attribute (scaled)
    sc: np.ndarray  #: int64: the keyed kernel's scalars (window, kind, warmup, budgets, online flag)
    fsc: np.ndarray  #: float64: the keyed kernel's float scalars (the per-side denominators)
    bs: np.ndarray  #: int64 [5]: slots used, R held, S held, R seen, S seen (``B_*``)
    h_lo: np.ndarray  #: int64 [d]: the histogram's lower edges (:mod:`.estimator`)
    h_width: np.ndarray  #: int64 [d]: its bin widths
    h_fen: np.ndarray  #: the Fenwick counts of its bins


@njit
def _matches(a, b, eps):
    for c in range(eps.shape[0]):
        if abs(a[c] - b[c]) > eps[c]:
            return False
    return True


@njit
def _take(mem, vals, cnt, bs, p, left, admitted, dep, n_dep):
    """Record slot p's departure (seq, left, admitted) and free it (the last slot moves in)."""
    dep[n_dep, 0] = mem[M_SEQ, p]
    dep[n_dep, 1] = left
    dep[n_dep, 2] = admitted
    bs[B_HELD_R + mem[M_SIDE, p]] -= 1
    last = bs[B_USED] - 1
    mem[:, p] = mem[:, last]
    vals[p] = vals[last]
    cnt[:, p] = cnt[:, last]
    bs[B_USED] = last
    return n_dep + 1


@njit
def _expire(mem, vals, cnt, bs, w, limit, dep, n_dep):
    """Expire every slot whose window ends at or before ``limit``."""
    p = 0
    while p < bs[B_USED]:
        end = mem[M_TIME, p] + w - 1
        if end <= limit:
            n_dep = _take(mem, vals, cnt, bs, p, end, 1, dep, n_dep)
        else:
            p += 1
    return n_dep


@njit
def _victim(mem, cnt, fsc, sc, bs, part, t, u):
    """The slot to drop next from partition ``part`` (a side, or all slots when variable)."""
    variable = sc[P_VARIABLE]
    if sc[P_KIND] == RAND:  # uniform among the partition's candidates
        n_part = bs[B_HELD_R] + bs[B_HELD_R + 1] if variable else bs[B_HELD_R + part]
        pick = min(np.int64(u * n_part), n_part - 1)
        for p in range(bs[B_USED]):
            if variable or mem[M_SIDE, p] == part:
                if pick == 0:
                    return p
                pick -= 1
        return -1
    best = -1
    for p in range(bs[B_USED]):
        if not variable and mem[M_SIDE, p] != part:
            continue
        if best < 0 or tuple_before(cnt, fsc, sc, mem[M_SIDE, p], p, mem[M_TIME, p], mem[M_SEQ, p],
                                     mem[M_SIDE, best], best, mem[M_TIME, best], mem[M_SEQ, best], t, None):  # a window
            best = p
    return best


@njit
def band_process(st, side, time, values, seq, draws, sched_left, dep, pairs):
    """Run the band join over a feed of whole arrival batches sorted by time.

    ``values[i]``: arrival i's scaled attributes; ``seq``: its global tuple number; ``draws``: one uniform number per arrival (RAND); ``sched_left[seq]``: the
    replayed schedule (SCHEDULE). ``dep`` receives rows (seq, left, admitted); ``pairs`` (when
    non-empty) rows (r seq, s seq) of counted outputs, grown as needed.
    Returns (outputs, departures, pair rows, pairs array, error code).
    """
    mem, vals, cnt, eps, sc, fsc = st.mem, st.vals, st.cnt, st.eps, st.sc, st.fsc
    bs, h_lo, h_width, h_fen = st.bs, st.h_lo, st.h_width, st.h_fen
    w, warmup, kind, variable = sc[P_W], sc[P_WARMUP], sc[P_KIND], sc[P_VARIABLE]
    want = pairs.shape[0] > 0
    n = time.shape[0]
    outputs = np.int64(0)
    n_dep = 0
    n_pairs = 0
    i = 0
    while i < n:
        t = time[i]
        j = batch_end(time, i)
        # (0) windows that ended between batches
        n_dep = _expire(mem, vals, cnt, bs, w, t - 1, dep, n_dep)
        # (1) join the batch with memory and with itself (same-batch pairs count once, from S)
        if t >= warmup:
            for x in range(i, j):
                if want and n_pairs + bs[B_USED] + (j - i) > pairs.shape[0]:
                    grown = np.empty((2 * (n_pairs + bs[B_USED] + (j - i)), 2), dtype=np.int64)
                    grown[:n_pairs] = pairs[:n_pairs]
                    pairs = grown
                for p in range(bs[B_USED]):
                    if mem[M_SIDE, p] != side[x] and _matches(values[x], vals[p], eps):
                        if want:
                            pairs[n_pairs, side[x]] = seq[x]
                            pairs[n_pairs, 1 - side[x]] = mem[M_SEQ, p]
                            n_pairs += 1
                        outputs += 1
                if side[x] == 1:
                    for y in range(i, j):
                        if side[y] == 0 and _matches(values[x], values[y], eps):
                            if want:
                                pairs[n_pairs, 0] = seq[y]
                                pairs[n_pairs, 1] = seq[x]
                                n_pairs += 1
                            outputs += 1
        # the online estimator learns this batch before deciding what to keep
        if sc[P_ONLINE]:
            for x in range(i, j):
                add_to_bins(h_fen, h_lo, h_width, side[x], values[x])
                bs[B_SEEN_R + side[x]] += 1
            for s_ in range(2):
                fsc[F_TOT_R + s_] = band_denominator(h_width, bs[B_SEEN_R + s_])
            for p in range(bs[B_USED]):
                cnt[1 - mem[M_SIDE, p], p] = band_numerator(h_fen, h_lo, h_width, mem[M_SIDE, p], vals[p], eps)
        # (2) expire what cannot meet a future arrival
        n_dep = _expire(mem, vals, cnt, bs, w, t, dep, n_dep)
        # (3) admit the batch, then evict down to the budgets
        for x in range(i, j):
            if w == 1:  # expires at once
                dep[n_dep, 0] = seq[x]
                dep[n_dep, 1] = t
                dep[n_dep, 2] = 0
                n_dep += 1
                continue
            p = bs[B_USED]
            mem[M_SEQ, p], mem[M_SIDE, p], mem[M_TIME, p] = seq[x], side[x], t
            vals[p] = values[x]
            cnt[1 - side[x], p] = band_numerator(h_fen, h_lo, h_width, side[x], values[x], eps)
            cnt[side[x], p] = 0.0
            bs[B_USED] = p + 1
            bs[B_HELD_R + side[x]] += 1
        if kind == SCHEDULE:
            p = 0
            while p < bs[B_USED]:
                if sched_left[mem[M_SEQ, p]] <= t:
                    n_dep = _take(mem, vals, cnt, bs, p, t, 1 if mem[M_TIME, p] < t else 0, dep, n_dep)
                else:
                    p += 1
        d = i
        for part in range(1 if variable else 2):
            while (bs[B_HELD_R] + bs[B_HELD_R + 1] > sc[P_M]) if variable else (bs[B_HELD_R + part] > sc[P_MR + part]):
                if kind == SCHEDULE:
                    return outputs, n_dep, n_pairs, pairs, ERR_SCHEDULE_OVERFULL
                p = _victim(mem, cnt, fsc, sc, bs, part, t, draws[min(d, n - 1)])
                d += 1
                n_dep = _take(mem, vals, cnt, bs, p, t, 1 if mem[M_TIME, p] < t else 0, dep, n_dep)
        i = j
    return outputs, n_dep, n_pairs, pairs, ERR_NONE


@njit
def band_flush(st, dep):
    """End of stream: every tuple still in memory is kept until it expires."""
    mem, vals, cnt, sc, bs = st.mem, st.vals, st.cnt, st.sc, st.bs
    n_dep = 0
    while bs[B_USED] > 0:
        n_dep = _take(mem, vals, cnt, bs, 0, mem[M_TIME, 0] + sc[P_W] - 1, 1, dep, n_dep)
    return n_dep
