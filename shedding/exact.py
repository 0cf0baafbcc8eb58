"""EXACT: the full sliding-window join, counted without materialising it.

A pair (r(a), s(b)) with equal keys is a window pair iff ``|a - b| <= w - 1``; it is produced at
time ``max(a, b)`` and counts iff that time is ``>= warmup`` (DESIGN.md section 1; Das, Gehrke,
Riedewald 2003, §2.1 and §4.1). Everything here is vectorized: each stream is sorted once by
(key, time) and every range of partners is found by ``searchsorted``, so the cost is
O(N log N) however many pairs there are.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .model import R, S, Workload


@dataclass(frozen=True)
class SortedSide:
    """One stream sorted by (key, time), as composite codes ``key_rank * span + time``."""

    codes: np.ndarray  # sorted composite codes
    index: np.ndarray  # workload index of each sorted entry


def keyed_sides(wl: Workload) -> tuple[np.ndarray, int, list[SortedSide]]:
    """Per tuple its composite code ``key_rank * span + time``, the span, and each stream sorted
    by code (R first): the index every partner search here uses."""
    _, rank = np.unique(wl.key, return_inverse=True)
    span = int(wl.time[-1]) + wl.window + 2 if len(wl) else 1
    codes = rank.astype(np.int64) * span + wl.time
    sides = []
    for which in (R, S):
        idx = np.flatnonzero(wl.side == which)
        order = np.argsort(codes[idx], kind="stable")
        sides.append(SortedSide(codes[idx][order], idx[order]))
    return codes, span, sides


def _partner_ranges(wl: Workload, codes: np.ndarray, span: int, sides: list[SortedSide], which: int,
                    lo_offset: int, hi_offset: int, only_counted: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For the tuples of side ``which``: [lo, hi) ranges into the other side's sorted order holding
    the partners whose time lies in [a + lo_offset, a + hi_offset] (clamped to the key)."""
    idx = np.flatnonzero(wl.side == which)
    if only_counted:
        idx = idx[wl.time[idx] >= wl.warmup]
    a = wl.time[idx]
    base = codes[idx] - a  # key_rank * span
    other = sides[1 - which].codes
    lo = np.searchsorted(other, base + np.maximum(a + lo_offset, 0), side="left")
    hi = np.searchsorted(other, base + np.maximum(a + hi_offset + 1, 0), side="left")
    return idx, lo, np.maximum(hi, lo)


def exact_count(wl: Workload) -> int:
    """Number of window pairs whose later member arrives at ``t >= warmup``."""
    if len(wl) == 0:
        return 0
    codes, span, sides = keyed_sides(wl)
    w = wl.window
    # each pair is counted once, from its later member; pairs within one batch from the S side
    _, lo, hi = _partner_ranges(wl, codes, span, sides, S, -(w - 1), 0, True)
    total = int((hi - lo).sum())
    _, lo, hi = _partner_ranges(wl, codes, span, sides, R, -(w - 1), -1, True)
    return total + int((hi - lo).sum())


def exact_pairs(wl: Workload) -> np.ndarray:
    """The counted window pairs as an ``(n, 2)`` array of workload indices ``(r_index, s_index)``,
    sorted lexicographically."""
    if len(wl) == 0:
        return np.zeros((0, 2), dtype=np.int64)
    codes, span, sides = keyed_sides(wl)
    w = wl.window
    parts = []
    for which, hi_off in ((S, 0), (R, -1)):
        idx, lo, hi = _partner_ranges(wl, codes, span, sides, which, -(w - 1), hi_off, True)
        n = hi - lo
        own = np.repeat(idx, n)
        starts = np.repeat(lo - np.concatenate([[0], np.cumsum(n)[:-1]]), n)
        other = sides[1 - which].index[starts + np.arange(int(n.sum()))]
        parts.append(np.column_stack([other, own]) if which == S else np.column_stack([own, other]))
    pairs = np.concatenate(parts)
    order = np.lexsort((pairs[:, 1], pairs[:, 0]))
    return pairs[order]


@dataclass(frozen=True)
class PartnerProfile:
    """Per tuple (workload order): how many partners arrived up to and including its own time
    within the window (``earlier``), and when its last later partner arrives (``last_later``,
    -1 when there is none). These decide completeness for the Archive-metric (§2.2)."""

    earlier: np.ndarray
    last_later: np.ndarray


def partner_profile(wl: Workload) -> PartnerProfile:
    """Partner counts and last-partner times for every tuple, vectorized."""
    n = len(wl)
    earlier = np.zeros(n, dtype=np.int64)
    last_later = np.full(n, -1, dtype=np.int64)
    if n == 0:
        return PartnerProfile(earlier, last_later)
    codes, span, sides = keyed_sides(wl)
    w = wl.window
    for which in (R, S):
        idx, lo, hi = _partner_ranges(wl, codes, span, sides, which, -(w - 1), 0, False)
        earlier[idx] = hi - lo
        _, lo2, hi2 = _partner_ranges(wl, codes, span, sides, which, 1, w - 1, False)
        has = hi2 > lo2
        last_code = sides[1 - which].codes[hi2[has] - 1]
        last_later[idx[has]] = last_code - (codes[idx[has]] - wl.time[idx[has]])
    return PartnerProfile(earlier, last_later)
