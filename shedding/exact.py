"""EXACT: the full sliding-window join, counted without materialising it.

A pair (r(a), s(b)) with equal keys is a window pair iff ``|a - b| <= w - 1`` (under a time range
``(lo, hi)``, iff ``lo <= b - a <= hi``: :attr:`~shedding.model.Workload.bounds`); it is produced at
time ``max(a, b)`` and counts iff that time is ``>= warmup`` (docs/semantics.md; Das, Gehrke,
Riedewald 2003, §2.1 and §4.1). Everything here is vectorized: the tuples are sorted once by
(side, key, time) in a :class:`KeyedStreams` index and every range of partners is found by
``searchsorted``, so the cost is O(N log N) however many pairs there are.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from shedding.errors import ShedError
from shedding.model import INT64_MAX, R, Workload, check_workload


@dataclass(frozen=True)
class KeyedStreams:
    """All tuples sorted by (side, key, time) as composite codes ``lane * span + time``, where
    ``lane = side * n_keys + key_rank``; every partner range is found with ``searchsorted``.

    ``rank[i]`` is tuple i's dense key rank, ``codes`` the sorted codes and ``order[j]`` the
    workload index of sorted entry j; ``span`` exceeds every time a query can name. EXACT, the
    Archive-metric and the OPT networks all search this one index.
    """

    rank: np.ndarray
    n_keys: int
    span: int
    codes: np.ndarray
    order: np.ndarray

    @classmethod
    def of(cls, wl: Workload) -> "KeyedStreams":
        keys, rank = np.unique(wl.key, return_inverse=True)
        rank = rank.astype(np.int64)
        span = int(wl.time[-1]) + 2 * wl.window + 2 if len(wl) else 1
        if 2 * len(keys) * span > INT64_MAX:
            raise ShedError(f"{len(keys):,} distinct keys with times up to {int(wl.time[-1]):,} and window "
                            f"{wl.window:,} overflow the 64-bit index; shift the times to start near 0, use a "
                            f"smaller window or fewer distinct keys")
        code = (wl.side.astype(np.int64) * len(keys) + rank) * span + wl.time
        order = np.argsort(code, kind="stable")
        return cls(rank, len(keys), span, code[order], order)

    def lane(self, side: np.ndarray | int, rank: np.ndarray) -> np.ndarray:
        """Lane number of (side, key rank)."""
        return np.asarray(side, dtype=np.int64) * self.n_keys + rank

    def time_of(self, pos: np.ndarray) -> np.ndarray:
        """Arrival times of the entries at sorted positions ``pos``."""
        return self.codes[pos] % self.span

    def range_in(self, lane: np.ndarray, t_from: np.ndarray, t_to: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per query: the sorted positions ``[lo, hi)`` of the tuples of ``lane`` arriving in
        ``[t_from, t_to]`` (empty when ``t_from > t_to``)."""
        base = lane * self.span
        t_from = np.clip(t_from, 0, self.span - 1)
        t_to = np.clip(t_to, -1, self.span - 2)
        lo = np.searchsorted(self.codes, base + t_from, side="left")
        hi = np.searchsorted(self.codes, base + t_to + 1, side="left")
        return lo, np.maximum(hi, lo)

    def partner_lane(self, wl: Workload) -> np.ndarray:
        """For every tuple, the lane of its potential partners (other side, same key)."""
        return self.lane(1 - wl.side, self.rank)

    def partner_ranges(self, wl: Workload, t_from: np.ndarray, t_to: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`range_in` for every tuple's partners (workload order). The searches run in the
        index's own order, where the queries ascend, which is several times faster than
        searching in arrival order on large streams."""
        o = self.order
        lo_o, hi_o = self.range_in(self.partner_lane(wl)[o], t_from[o], t_to[o])
        lo, hi = np.empty_like(lo_o), np.empty_like(hi_o)
        lo[o], hi[o] = lo_o, hi_o
        return lo, hi


def ranges_to_positions(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Expand half-open ranges ``[lo_i, hi_i)``: returns (owner i, position) for every element."""
    n = np.maximum(hi - lo, 0)
    owner = np.repeat(np.arange(len(lo)), n)
    starts = np.repeat(lo - np.concatenate([[0], np.cumsum(n)[:-1]]), n)
    return owner, starts + np.arange(int(n.sum()))


def partner_times(wl: Workload) -> tuple[np.ndarray, np.ndarray]:
    """Per tuple (workload order), the first and the last arrival time of a partner: ``[a + lo,
    a + hi]`` for r(a), ``[b - hi, b - lo]`` for s(b) under the range ``wl.bounds``
    (``[a - w + 1, a + w - 1]`` for the window)."""
    lo, hi = wl.bounds
    is_r = wl.side == R
    return wl.time + np.where(is_r, lo, -hi), wl.time + np.where(is_r, hi, -lo)


def _counted_ranges(wl: Workload, ks: KeyedStreams) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The tuples arriving at ``t >= warmup`` and the ranges of their earlier partners, each pair
    once, from its later member: an S tuple takes R partners up to its own time (same-batch
    pairs), an R tuple S partners strictly before it."""
    a = wl.time
    first, last = partner_times(wl)
    lo, hi = ks.partner_ranges(wl, first, np.minimum(last, a - (wl.side == R)))
    idx = np.flatnonzero(a >= wl.warmup)
    return idx, lo[idx], hi[idx]


def exact_count(wl: Workload, ks: KeyedStreams | None = None) -> int:
    """EXACT (§2.1): the number of window pairs whose later member arrives at ``t >= warmup``.

    Args:
        wl: The workload (:class:`~shedding.model.Workload`).
        ks: ``wl``'s sorted key index, when the caller already has one; built here when None.

    Returns:
        The count of counted pairs (same-time pairs included).

    Raises:
        ShedError: ``wl`` is not a workload (``param`` ``wl``).
    """
    check_workload(wl)
    if len(wl) == 0:
        return 0
    _, lo, hi = _counted_ranges(wl, ks or KeyedStreams.of(wl))
    return int((hi - lo).sum())


def exact_pairs(wl: Workload, ks: KeyedStreams | None = None) -> np.ndarray:
    """The window pairs :func:`exact_count` counts (§2.1).

    Args:
        wl: The workload (:class:`~shedding.model.Workload`).
        ks: ``wl``'s sorted key index, when the caller already has one; built here when None.

    Returns:
        An ``(n, 2)`` int64 array of workload indices ``(r_index, s_index)``, sorted
        lexicographically.

    Raises:
        ShedError: ``wl`` is not a workload (``param`` ``wl``).
    """
    check_workload(wl)
    if len(wl) == 0:
        return np.zeros((0, 2), dtype=np.int64)
    ks = ks or KeyedStreams.of(wl)
    idx, lo, hi = _counted_ranges(wl, ks)
    which, pos = ranges_to_positions(lo, hi)
    own, other = idx[which], ks.order[pos]
    own_is_r = wl.side[own] == R
    pairs = np.column_stack([np.where(own_is_r, own, other), np.where(own_is_r, other, own)])
    order = np.lexsort((pairs[:, 1], pairs[:, 0]))
    return pairs[order]


@dataclass(frozen=True)
class ExactMemory:
    """The memory EXACT needs: the most tuples it holds after admission at any time step, of R
    (``r``), of S (``s``) and of both sides together (``both``).

    A tuple of time ``a`` is held at steps ``a .. a + w - 2`` (docs/semantics.md: it joins the
    arrivals up to ``a + w - 1`` and expires before admission at that step; under a time range an
    R tuple up to ``a + hi - 1``, an S tuple up to ``a - lo - 1``). With one tuple per
    stream per step, as in the paper, ``r = s = w - 1`` once the streams are ``w - 1`` long, so
    EXACT needs ``2w - 2``; batched streams may need far more, or less.
    """

    r: int
    s: int
    both: int

    @property
    def fixed(self) -> int:
        """The smallest M whose fixed split loses nothing, with ``M_R = r`` and ``M_S = s``
        (a split needs ``M_R >= r`` and ``M_S >= s``); the variable split needs ``M >= both``."""
        return self.r + self.s


def _held_at(time: np.ndarray, held: int, at: np.ndarray) -> np.ndarray:
    """How many of the sorted arrival times ``time`` are in ``[t - held + 1, t]`` for each step t
    of ``at``: the tuples held after admission at t when each is held for ``held`` steps."""
    if len(time) == 0 or held < 1:
        return np.zeros(len(at), dtype=np.int64)
    return np.searchsorted(time, at, side="right") - np.searchsorted(time, at - (held - 1), side="left")


def exact_memory(wl: Workload) -> ExactMemory:
    """How many tuples EXACT holds at its peak, per side and in all (vectorized, O(N log N)): an R
    tuple is held for ``hi`` steps, an S tuple for ``-lo`` (``w - 1`` each for the window); the
    count only grows at an arrival, so the arrival times are the steps to try."""
    if len(wl) == 0:
        return ExactMemory(0, 0, 0)
    lo, hi = wl.bounds
    at = wl.time
    r = _held_at(wl.time[wl.side == R], hi, at)
    s = _held_at(wl.time[wl.side != R], -lo, at)
    return ExactMemory(int(r.max()), int(s.max()), int((r + s).max()))


@dataclass(frozen=True)
class PartnerProfile:
    """Per tuple (workload order): how many partners arrived up to and including its own time
    within the window (``earlier``), and when its last later partner arrives (``last_later``,
    -1 when there is none). These decide completeness for the Archive-metric (§2.2)."""

    earlier: np.ndarray
    last_later: np.ndarray


def partner_profile(wl: Workload, ks: KeyedStreams | None = None) -> PartnerProfile:
    """Partner counts and last-partner times for every tuple, vectorized."""
    n = len(wl)
    last_later = np.full(n, -1, dtype=np.int64)
    if n == 0:
        return PartnerProfile(np.zeros(0, dtype=np.int64), last_later)
    ks = ks or KeyedStreams.of(wl)
    a = wl.time
    first, last = partner_times(wl)
    lo, hi = ks.partner_ranges(wl, first, np.minimum(last, a))
    lo2, hi2 = ks.partner_ranges(wl, np.maximum(first, a + 1), last)
    has = hi2 > lo2
    last_later[has] = ks.time_of(hi2[has] - 1)
    return PartnerProfile(hi - lo, last_later)
