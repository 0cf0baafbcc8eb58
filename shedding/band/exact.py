"""EXACT for band joins: every window pair (|a - b| <= w - 1) whose tuples are within eps on
every attribute, counted from its later member at ``t >= warmup`` (DESIGN.md §1; Das, Gehrke,
Riedewald 2003, §2.1, with the band predicate of issue 13).

Never quadratic:

* **count, one attribute**: a sweep over the arrival batches with one Fenwick tree per side over
  the side's tuples in value order. A tuple enters its side's tree on arrival and leaves when its
  window ends; an arrival counts the partners in ``[v - eps, v + eps]`` (a rank range found by
  ``searchsorted`` beforehand) with two prefix sums. O(N log N) whatever w and eps are.
* **pairs, or several attributes**: per later member, the partner candidates are either the
  other side's tuples in its time window (contiguous in arrival order) or those within eps on
  the first attribute (contiguous in value order); the loop scans the shorter range and checks
  the rest. O(N log N + scanned candidates).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..model import R, Schedule
from .predicate import BandWorkload


@njit(cache=True)
def _fenwick_add(tree, i, v):
    i += 1
    while i < tree.shape[0]:
        tree[i] += v
        i += i & (-i)


@njit(cache=True)
def _fenwick_prefix(tree, i):
    """Sum of entries [0, i)."""
    s = 0
    while i > 0:
        s += tree[i]
        i -= i & (-i)
    return s


@njit(cache=True)
def _sweep_count(side, time, rank, lo, hi, n_r, n_s, w, warmup):
    """The Fenwick sweep of the module docstring; ``rank[i]`` is tuple i's position in its side's
    value order, ``[lo[i], hi[i])`` its partners' rank range in the other side's value order."""
    trees = (np.zeros(n_r + 1, np.int64), np.zeros(n_s + 1, np.int64))
    n = time.shape[0]
    total = 0
    gone = 0  # tuples before this index have left their tree
    i = 0
    while i < n:
        t = time[i]
        j = i
        while j < n and time[j] == t:
            j += 1
        while gone < i and time[gone] + w - 1 < t:
            _fenwick_add(trees[side[gone]], rank[gone], -1)
            gone += 1
        # R arrivals meet S memory; then the batch's R tuples join; then S arrivals meet both
        for s_ in range(2):
            for x in range(i, j):
                if side[x] == s_ and t >= warmup:
                    other = trees[1 - s_]
                    total += _fenwick_prefix(other, hi[x]) - _fenwick_prefix(other, lo[x])
            for x in range(i, j):
                if side[x] == s_:
                    _fenwick_add(trees[s_], rank[x], 1)
        i = j
    return total


@njit(cache=True)
def _scan(side, time, values, eps, w, warmup, t_order, t_lo, t_hi, v_order, v_lo, v_hi, out):
    """Count (``out`` empty) or write (``out`` rows (later, earlier)) the counted band pairs.

    For tuple x: ``t_order[t_lo[x]:t_hi[x]]`` are its partners in the time window, and
    ``v_order[v_lo[x]:v_hi[x]]`` those within eps on attribute 0; the shorter range is scanned."""
    n = time.shape[0]
    d = values.shape[1]
    want = out.shape[0] > 0
    k = 0
    for x in range(n):
        if time[x] < warmup:
            continue
        by_time = t_hi[x] - t_lo[x] <= v_hi[x] - v_lo[x]
        a, b = (t_lo[x], t_hi[x]) if by_time else (v_lo[x], v_hi[x])
        for p in range(a, b):
            y = t_order[p] if by_time else v_order[p]
            if not by_time:
                lag = time[x] - time[y]
                if lag < 0 or lag > w - 1 or (lag == 0 and side[x] == R):
                    continue
            ok = True
            for c in range(d):
                if abs(values[x, c] - values[y, c]) > eps[c]:
                    ok = False
                    break
            if ok:
                if want:
                    out[k, 0] = x
                    out[k, 1] = y
                k += 1
    return k


class BandIndex:
    """Each side's tuples in arrival order and in order of attribute 0, with every tuple's
    partner ranges in both (the one index that EXACT, the pairs and OPT's network search)."""

    def __init__(self, bw: BandWorkload) -> None:
        wl = bw.workload
        self.bw = bw
        side, time, v0 = wl.side, wl.time, bw.values[:, 0] if len(bw) else np.zeros(0, np.int64)
        self.n_side = (int(np.count_nonzero(side == 0)), int(np.count_nonzero(side == 1)))
        lane = side.astype(np.int64)
        # arrival order per side: workload order is time order, so a stable sort by side suffices
        self.t_order = np.argsort(lane, kind="stable")
        t_codes = time[self.t_order]
        base = np.searchsorted(lane[self.t_order], [0, 1, 2])
        # value order per side (ties by arrival)
        self.v_order = np.lexsort((np.arange(len(wl)), v0, lane))
        v_sorted = v0[self.v_order]
        eps0 = int(bw.eps[0]) if len(bw.eps) else 0
        last = time - (side == R)  # an R tuple meets S partners strictly before it
        self.t_lo, self.t_hi, self.v_lo, self.v_hi = (np.zeros(len(wl), dtype=np.int64) for _ in range(4))
        for s_ in (0, 1):
            lo_b, hi_b = base[1 - s_], base[2 - s_]
            # queries in ascending order (the side's own time and value orders): fast searches
            by_t, by_v = self.t_order[base[s_]:base[s_ + 1]], self.v_order[base[s_]:base[s_ + 1]]
            times, vals = t_codes[lo_b:hi_b], v_sorted[lo_b:hi_b]
            self.t_lo[by_t] = lo_b + np.searchsorted(times, time[by_t] - wl.window + 1, "left")
            self.t_hi[by_t] = lo_b + np.searchsorted(times, last[by_t], "right")
            self.v_lo[by_v] = lo_b + np.searchsorted(vals, v0[by_v] - eps0, "left")
            self.v_hi[by_v] = lo_b + np.searchsorted(vals, v0[by_v] + eps0, "right")
        self.t_hi = np.maximum(self.t_hi, self.t_lo)
        rank = np.empty(len(wl), dtype=np.int64)
        rank[self.v_order] = np.arange(len(wl)) - base[lane[self.v_order]]
        self.rank = rank

    def scan(self, out: np.ndarray) -> int:
        wl = self.bw.workload
        return int(_scan(wl.side.astype(np.int64), wl.time, self.bw.values, self.bw.eps, wl.window, wl.warmup,
                         self.t_order, self.t_lo, self.t_hi, self.v_order, self.v_lo, self.v_hi, out))


def band_exact_count(bw: BandWorkload, index: BandIndex | None = None) -> int:
    """EXACT: the number of counted band window pairs (Fenwick sweep for one attribute)."""
    if len(bw) == 0:
        return 0
    ix = index or BandIndex(bw)
    if bw.n_attrs > 1:
        return ix.scan(np.zeros((0, 2), dtype=np.int64))
    wl = bw.workload
    # the sweep counts from the later member: S tuples take R partners of their own batch
    lo = ix.v_lo - np.where(wl.side == R, ix.n_side[0], 0)
    hi = ix.v_hi - np.where(wl.side == R, ix.n_side[0], 0)
    return int(_sweep_count(wl.side.astype(np.int64), wl.time, ix.rank, lo, hi, ix.n_side[0], ix.n_side[1],
                            wl.window, wl.warmup))


def band_exact_pairs(bw: BandWorkload, index: BandIndex | None = None) -> np.ndarray:
    """The counted band window pairs as ``(n, 2)`` workload indices ``(r_index, s_index)``,
    sorted lexicographically."""
    if len(bw) == 0:
        return np.zeros((0, 2), dtype=np.int64)
    ix = index or BandIndex(bw)
    n = ix.scan(np.zeros((0, 2), dtype=np.int64))
    out = np.zeros((max(n, 1), 2), dtype=np.int64)
    ix.scan(out)
    out = out[:n]
    later_is_r = bw.workload.side[out[:, 0]] == R
    pairs = np.column_stack([np.where(later_is_r, out[:, 0], out[:, 1]), np.where(later_is_r, out[:, 1], out[:, 0])])
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


def band_archive_metric(bw: BandWorkload, schedule: Schedule, pairs: np.ndarray) -> int:
    """ArM (§2.2) for a band join: tuples arriving at ``t >= warmup`` that belong to a counted pair
    the schedule did not produce. Every pair of such a tuple is counted (its later member arrives
    at ``t >= warmup`` too); a pair is produced iff it is same-time or its earlier member was
    admitted and left no earlier than the later member's arrival."""
    wl = bw.workload
    if len(pairs) == 0:
        return 0
    tr, ts = wl.time[pairs[:, 0]], wl.time[pairs[:, 1]]
    earlier = np.where(tr < ts, pairs[:, 0], pairs[:, 1])
    later_time = np.maximum(tr, ts)
    produced = (tr == ts) | (schedule.admitted[earlier] & (schedule.left[earlier] >= later_time))
    bad = np.zeros(len(wl), dtype=bool)
    bad[pairs[~produced].ravel()] = True
    return int(np.count_nonzero(bad & (wl.time >= wl.warmup)))
