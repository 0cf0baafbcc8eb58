"""EXACT for band joins: every window pair (|a - b| <= w - 1) whose tuples are within eps on
every attribute, counted from its later member at ``t >= warmup`` (DESIGN.md §1; Das, Gehrke,
Riedewald 2003, §2.1, with the band predicate of issue 13).

Never quadratic:

* **count, one attribute**: a sweep over the arrival batches with one Fenwick tree per side over
  the side's tuples in value order. A tuple enters its side's tree on arrival and leaves when its
  window ends; an arrival counts the partners in ``[v - eps, v + eps]`` (a rank range found by
  ``searchsorted`` beforehand) with two prefix sums. O(N log N) whatever w and eps are.
* **pairs, or several attributes**: a grid on the first attribute with cells eps + 1 wide; per
  later member, the candidates are the other side's tuples of its own and the two neighbouring
  cells within its time window (three contiguous ranges of one sorted index); the loop checks
  every attribute. O(N log N + candidates), and the candidates are a subset of the time window's.
"""

from __future__ import annotations

import functools

import numpy as np
from numba import njit

from ..errors import ShedError
from ..model import INT64_MAX, R, Schedule
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
def batch_end(time, i):
    """End (exclusive) of the arrival batch that starts at index ``i`` (equal times)."""
    j = i
    while j < time.shape[0] and time[j] == time[i]:
        j += 1
    return j


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
        j = batch_end(time, i)
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
def _scan(time, values, eps, warmup, g_order, g_lo, g_hi, out):
    """Count (``out`` empty) or write (``out`` rows (later, earlier)) the counted band pairs:
    tuple x's candidates are ``g_order[g_lo[o, x]:g_hi[o, x]]`` for the three grid cells o."""
    n = time.shape[0]
    d = values.shape[1]
    want = out.shape[0] > 0
    k = 0
    for x in range(n):
        if time[x] < warmup:
            continue
        for o in range(3):
            for p in range(g_lo[o, x], g_hi[o, x]):
                y = g_order[p]
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
    """The one index that EXACT, the pairs and OPT's network search.

    * For the Fenwick sweep: each tuple's rank in its side's order of attribute 0, and the rank
      range ``[v_lo, v_hi)`` of the other side's tuples within eps on attribute 0.
    * For listing pairs: a grid on attribute 0 with cells ``eps_0 + 1`` units wide, so partners lie
      in the tuple's own cell or a neighbour; each side's tuples sorted by (cell, time). A tuple's
      candidates are three ranges, one per cell, cut to its time window (``g_lo``, ``g_hi``:
      shape (3, N)), a subset of the time window's partners and usually a small one.
    """

    def __init__(self, bw: BandWorkload) -> None:
        wl = bw.workload
        self.bw = bw
        n = len(wl)
        side, time = wl.side.astype(np.int64), wl.time
        v0 = bw.values[:, 0] if n else np.zeros(0, np.int64)
        self.n_side = (int(np.count_nonzero(side == 0)), int(np.count_nonzero(side == 1)))
        base = np.array([0, self.n_side[0], n])
        eps0 = int(bw.eps[0]) if len(bw.eps) else 0
        # attribute-0 order per side (ties by arrival), queried in ascending order: fast searches
        # one stable sort of (side, value) codes; values are below 2^53 in magnitude, so no overflow
        span = int(v0.max() - v0.min()) + 1 if n else 1
        v_order = np.argsort((v0 - (v0.min() if n else 0)) + side * span, kind="stable")
        v_sorted = v0[v_order]
        self.v_lo, self.v_hi = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
        for s_ in (0, 1):
            lo_b, hi_b = base[1 - s_], base[2 - s_]
            mine, vals = v_order[base[s_]:base[s_ + 1]], v_sorted[lo_b:hi_b]
            self.v_lo[mine] = lo_b + np.searchsorted(vals, v0[mine] - eps0, "left")
            self.v_hi[mine] = lo_b + np.searchsorted(vals, v0[mine] + eps0, "right")
        self.rank = np.empty(n, dtype=np.int64)
        self.rank[v_order] = np.arange(n) - base[side[v_order]]

    @functools.cached_property
    def grid(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(g_order, g_lo, g_hi) of the grid, built on first use (only listing needs it)."""
        bw, wl = self.bw, self.bw.workload
        n = len(wl)
        side, time = wl.side.astype(np.int64), wl.time
        v0 = bw.values[:, 0] if n else np.zeros(0, np.int64)
        eps0 = int(bw.eps[0]) if len(bw.eps) else 0
        # dense cell ranks, codes (side, cell, time)
        cell = v0 // (eps0 + 1)
        cells = np.unique(cell)
        span = int(time[-1]) + 2 if n else 1
        if 2 * (len(cells) + 1) * span > INT64_MAX:
            raise ShedError(f"{len(cells):,} grid cells with times up to {span - 2:,} overflow the 64-bit index; "
                            f"shift the times to start near 0 or use a larger eps")
        lane = side * (len(cells) + 1)
        code = (lane + np.searchsorted(cells, cell)) * span + time
        g_order = np.argsort(code, kind="stable")
        codes = code[g_order]
        o = g_order  # queries in the index's order ascend within each cell offset
        t_from = np.maximum(time[o] - wl.window + 1, 0)
        t_to = time[o] - (side[o] == R)  # an R tuple meets S partners strictly before it
        other = (1 - side[o]) * (len(cells) + 1)
        g_lo, g_hi = np.zeros((3, n), dtype=np.int64), np.zeros((3, n), dtype=np.int64)
        for k, off in enumerate((-1, 0, 1)):
            r = np.searchsorted(cells, cell[o] + off)
            exists = (r < len(cells)) & (cells[np.minimum(r, len(cells) - 1)] == cell[o] + off)
            lo = np.searchsorted(codes, (other + r) * span + t_from, "left")
            hi = np.searchsorted(codes, (other + r) * span + t_to, "right")
            g_lo[k, o] = lo
            g_hi[k, o] = np.where(exists & (t_to >= t_from), np.maximum(hi, lo), lo)
        return g_order, g_lo, g_hi

    def scan(self, out: np.ndarray) -> int:
        wl = self.bw.workload
        return int(_scan(wl.time, self.bw.values, self.bw.eps, wl.warmup, *self.grid, out))


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
