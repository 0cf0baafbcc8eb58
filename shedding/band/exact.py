"""EXACT for band joins: every window pair (|a - b| <= w - 1) whose tuples are within eps on
every attribute, counted from its later member at ``t >= warmup`` (docs/semantics.md; Das, Gehrke,
Riedewald 2003, §2.1, with the band predicate of :mod:`.predicate`).

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

from shedding.errors import ShedError
from shedding.jit import njit
from shedding.model import INT64_MAX, R, Schedule
from shedding.online.kernel import batch_end
from shedding.band.predicate import BandWorkload


@njit
def fenwick_add(tree, i, v):
    """Add v to entry i of a Fenwick tree (``tree[0]`` unused)."""
    i += 1
    while i < tree.shape[0]:
        tree[i] += v
        i += i & (-i)


@njit
def fenwick_prefix(tree, i):
    """Sum of entries [0, i)."""
    s = 0
    while i > 0:
        s += tree[i]
        i -= i & (-i)
    return s


@njit
def _sweep_count(side, time, rank, lo, hi, n_r, n_s, w, warmup):
    """The Fenwick sweep of the module docstring; ``rank[i]`` is tuple i's position in its side's
    value order, ``[lo[i], hi[i])`` its partners' rank range in the other side's value order."""
    trees = (np.zeros(n_r + 1, np.int32), np.zeros(n_s + 1, np.int32))  # 4 bytes a node: fewer cache misses
    n = time.shape[0]
    total = 0
    gone = 0  # tuples before this index have left their tree
    i = 0
    while i < n:
        t = time[i]
        j = batch_end(time, i)
        while gone < i and time[gone] + w - 1 < t:
            fenwick_add(trees[side[gone]], rank[gone], -1)
            gone += 1
        # R arrivals meet S memory; then the batch's R tuples join; then S arrivals meet both
        for s_ in range(2):
            for x in range(i, j):
                if side[x] == s_ and t >= warmup:
                    other = trees[1 - s_]
                    total += fenwick_prefix(other, hi[x]) - fenwick_prefix(other, lo[x])
            for x in range(i, j):
                if side[x] == s_:
                    fenwick_add(trees[s_], rank[x], 1)
        i = j
    return total


@njit
def _scan(time, values, eps, warmup, g_order, g_lo, g_hi, out):
    """Count (``out`` empty) or write (``out`` rows (later, earlier)) the counted band pairs:
    the candidates of tuple ``x = g_order[p]`` are ``g_order[g_lo[k, p]:g_hi[k, p]]`` for its
    three grid cells k."""
    n = time.shape[0]
    d = values.shape[1]
    want = out.shape[0] > 0
    k = 0
    for p in range(n):
        x = g_order[p]
        if time[x] < warmup:
            continue
        for o in range(3):
            for q in range(g_lo[o, p], g_hi[o, p]):
                y = g_order[q]
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


@njit
def _grid_ranges(codes, side, time, rank, cell, cells, span, w, g_lo, g_hi):
    """Per tuple and neighbouring cell (k = 0, 1, 2 for cell - 1, cell, cell + 1): the range of
    ``codes`` holding the other side's tuples of that cell in the tuple's time window. Every array
    is in the index's order (entry p is the tuple at sorted position p).

    Queries run in the index's order, where each k's targets ascend while the tuple's (side, cell)
    stays the same: the range ends then only move forward (a merge, O(N) in all), with a binary
    search whenever the target lane changes."""
    n_cells = cells.shape[0]
    n = codes.shape[0]
    lo_p, hi_p = np.zeros(3, np.int64), np.zeros(3, np.int64)
    last = np.full(3, -1, np.int64)  # last lo target per k (-1: none)
    for p in range(n):
        t_from = max(time[p] - w + 1, 0)
        t_to = time[p] - 1 if side[p] == R else time[p]  # R meets S partners strictly before it
        base = (1 - side[p]) * (n_cells + 1)
        for k in range(3):
            r = rank[p] + k - 1
            if r < 0 or r >= n_cells or cells[r] != cell[p] + k - 1 or t_to < t_from:
                continue
            lo_t, hi_t = (base + r) * span + t_from, (base + r) * span + t_to
            if last[k] < 0 or lo_t < last[k] or (lo_t - last[k]) >= span:  # another lane: search
                lo_p[k] = np.searchsorted(codes, lo_t, side="left")
                hi_p[k] = np.searchsorted(codes, hi_t, side="right")
            else:
                while lo_p[k] < n and codes[lo_p[k]] < lo_t:
                    lo_p[k] += 1
                if hi_p[k] < lo_p[k]:
                    hi_p[k] = lo_p[k]
                while hi_p[k] < n and codes[hi_p[k]] <= hi_t:
                    hi_p[k] += 1
            last[k] = lo_t
            g_lo[k, p], g_hi[k, p] = lo_p[k], hi_p[k]


class BandIndex:
    """The one index that EXACT, the pairs and OPT's network search; each part is built on first
    use.

    * For the Fenwick sweep (:attr:`ranks`): each tuple's rank in its side's order of attribute 0, and the rank
      range ``[v_lo, v_hi)`` of the other side's tuples within eps on attribute 0.
    * For listing pairs (:attr:`grid`): a grid on attribute 0 with cells ``eps_0 + 1`` units wide, so partners lie
      in the tuple's own cell or a neighbour; each side's tuples sorted by (cell, time). A tuple's
      candidates are three ranges, one per cell, cut to its time window (``g_lo``, ``g_hi``:
      shape (3, N)), a subset of the time window's partners and usually a small one.

    Args:
        bw: The band join's workload (:class:`~shedding.band.predicate.BandWorkload`).
    """

    def __init__(self, bw: BandWorkload) -> None:
        self.bw = bw

    @functools.cached_property
    def ranks(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[int, int]]:
        """The Fenwick sweep's index, built on first use (counting one attribute needs it).

        Returns:
            (rank, v_lo, v_hi, (n_R, n_S)): each tuple's rank in its side's order of attribute 0,
            the rank range of the other side's tuples within eps on it, and the sides' sizes.
        """
        bw, wl = self.bw, self.bw.workload
        n = len(wl)
        side = wl.side.astype(np.int64)
        v0 = bw.values[:, 0] if n else np.zeros(0, np.int64)
        n_side = (int(np.count_nonzero(side == 0)), int(np.count_nonzero(side == 1)))
        base = np.array([0, n_side[0], n])
        eps0 = int(bw.eps[0]) if len(bw.eps) else 0
        # attribute-0 order per side (ties by arrival), queried in ascending order: fast searches;
        # one stable sort of (side, value) codes (values are below 2^53 in magnitude: no overflow)
        span = int(v0.max() - v0.min()) + 1 if n else 1
        v_order = np.argsort((v0 - (v0.min() if n else 0)) + side * span, kind="stable")
        v_sorted = v0[v_order]
        v_lo, v_hi = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
        for s_ in (0, 1):
            lo_b, hi_b = base[1 - s_], base[2 - s_]
            mine, vals = v_order[base[s_]:base[s_ + 1]], v_sorted[lo_b:hi_b]
            v_lo[mine] = lo_b + np.searchsorted(vals, v0[mine] - eps0, "left")
            v_hi[mine] = lo_b + np.searchsorted(vals, v0[mine] + eps0, "right")
        rank = np.empty(n, dtype=np.int64)
        rank[v_order] = np.arange(n) - base[side[v_order]]
        return rank, v_lo, v_hi, n_side

    @functools.cached_property
    def grid(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The grid's index, built on first use (listing pairs, counting several attributes).

        Returns:
            (g_order, g_lo, g_hi): each side's tuples by (cell, time), and per tuple the three
            candidate ranges, one per neighbouring cell, cut to its time window (shape (3, N)).
        """
        bw, wl = self.bw, self.bw.workload
        n = len(wl)
        side, time = wl.side.astype(np.int64), wl.time
        v0 = bw.values[:, 0] if n else np.zeros(0, np.int64)
        eps0 = int(bw.eps[0]) if len(bw.eps) else 0
        # dense cell ranks, codes (side, cell, time)
        cell = v0 // (eps0 + 1)
        cells, inverse = np.unique(cell, return_inverse=True)
        inverse = inverse.reshape(-1)
        span = int(time[-1]) + 2 if n else 1
        if 2 * (len(cells) + 1) * span > INT64_MAX:
            raise ShedError(f"{len(cells):,} grid cells with times up to {span - 2:,} overflow the 64-bit index; "
                            f"shift the times to start near 0 or use a larger eps")
        lane = side * (len(cells) + 1)
        code = (lane + inverse) * span + time
        g_order = np.argsort(code, kind="stable")
        codes = code[g_order]
        g_lo, g_hi = np.zeros((3, n), dtype=np.int64), np.zeros((3, n), dtype=np.int64)
        o = g_order
        _grid_ranges(codes, side[o], time[o], inverse[o], cell[o], cells, span, wl.window, g_lo, g_hi)
        return g_order, g_lo, g_hi

    def scan(self, out: np.ndarray) -> int:
        wl = self.bw.workload
        return int(_scan(wl.time, self.bw.values, self.bw.eps, wl.warmup, *self.grid, out))


def exact_count(bw: BandWorkload, index: BandIndex | None = None) -> int:
    """EXACT (§2.1) of a band join: the number of counted band window pairs (Fenwick sweep for
    one attribute).

    Args:
        bw: The band join's workload.
        index: ``bw``'s :class:`BandIndex`, when the caller already has one; built here when None.

    Returns:
        The number of window pairs within eps on every attribute whose later member arrives at
        ``t >= warmup``.
    """
    if len(bw) == 0:
        return 0
    ix = index or BandIndex(bw)
    if bw.n_attrs > 1:
        return ix.scan(np.zeros((0, 2), dtype=np.int64))
    wl = bw.workload
    rank, v_lo, v_hi, (n_r, n_s) = ix.ranks
    # ranks within the partner side: an R tuple's partners (S) start after the n_R R tuples
    shift = np.where(wl.side == R, n_r, 0)
    return int(_sweep_count(wl.side.astype(np.int64), wl.time, rank, v_lo - shift, v_hi - shift, n_r, n_s,
                            wl.window, wl.warmup))


def exact_pairs(bw: BandWorkload, index: BandIndex | None = None) -> np.ndarray:
    """The band window pairs :func:`exact_count` counts.

    Args:
        bw: The band join's workload.
        index: ``bw``'s :class:`BandIndex`, when the caller already has one; built here when None.

    Returns:
        An ``(n, 2)`` int64 array of workload indices ``(r_index, s_index)``, sorted
        lexicographically."""
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


def archive_metric(bw: BandWorkload, schedule: Schedule, pairs: np.ndarray) -> int:
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
