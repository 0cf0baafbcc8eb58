"""The exact W-join count for large inputs, without materialising the N-tuples (the analogue of
EXACT, :mod:`shedding.exact`).

Every N-tuple is counted once, from its *anchor*: its first member in (time, stream) order. For a
tuple x of stream i at time t, the other members y of stream j must then lie in
``[t + [j < i], t + bounds[i, j]]`` (and have x's key).

* Form 1 (one bound w for every pair, §3): any members inside ``[t, t + w]`` are within w of each
  other, so the count anchored at x is the product over j of the sizes of those ranges. Every range
  is found by ``searchsorted`` in one index sorted by (stream, key, time): O(N^2 n log n), vectorized.
* Forms 2 and 3: the ranges of later members also depend on the members chosen before them
  (the closure bounds of §5.2), so a compiled depth-first sweep enumerates all but the last member
  and counts the last range by binary search.
* A key band (keys of every pair within ``key_band``, :mod:`.predicates`): the sweep over an index
  sorted by (stream, time), skipping the members whose key leaves the band of the keys chosen
  so far, and counting the last member's range by a scan.
* Directed windows (the path W-join, :mod:`.path`): the sweep takes difference bounds
  ``lower[i, j] <= t_j - t_i <= upper[i, j]`` (:func:`count_between`); undirected windows are
  ``lower = -bounds``, ``upper = bounds``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from shedding.errors import ShedError
from shedding.jit import njit
from shedding.wjoin.predicates import check_key_band
from shedding.wjoin.streams import Streams, check_compatible
from shedding.wjoin.windows import WindowSpec

METHODS = ("auto", "product", "sweep")


@dataclass(frozen=True)
class StreamIndex:
    """All tuples sorted by (stream, key rank, time) as codes ``(stream * n_keys + rank) * span + t``
    (times shifted to start at 0); ``span`` exceeds every time a query can name; ``key`` holds the
    keys in the same order."""

    codes: np.ndarray
    stream: np.ndarray
    rank: np.ndarray
    time: np.ndarray
    n_keys: int
    span: int
    key: np.ndarray

    @classmethod
    def of(cls, streams: Streams, widest: int, by_key: bool = True) -> "StreamIndex":
        """The index of ``streams``; ``by_key=False`` sorts by (stream, time) only (every rank 0)."""
        times = np.concatenate(streams.times)
        keys = np.concatenate(streams.keys)
        stream = np.concatenate([np.full(len(t), i, dtype=np.int64) for i, t in enumerate(streams.times)])
        if by_key:
            _, rank = np.unique(keys, return_inverse=True)
            rank = rank.astype(np.int64).reshape(-1)
        else:
            rank = np.zeros(len(keys), dtype=np.int64)
        n_keys = int(rank.max()) + 1 if len(rank) else 1
        t0 = int(times.min()) if len(times) else 0
        time = times - t0
        span = (int(time.max()) if len(time) else 0) + widest + 2
        if float(streams.n) * n_keys * span >= 2.0**62:
            raise ShedError(f"{n_keys:,} keys over a time range of {span:,} do not fit the 64-bit index; "
                            f"use coarser time units or fewer distinct keys")
        codes = (stream * n_keys + rank) * span + time
        order = np.argsort(codes, kind="stable")
        return cls(codes[order], stream[order], rank[order], time[order], n_keys, span, keys[order])

    def count_in(self, stream: int, rank: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Per query: how many tuples of ``stream`` with key ``rank`` have time in ``[lo, hi]``."""
        base = (stream * self.n_keys + rank) * self.span
        first = np.searchsorted(self.codes, base + lo, side="left")
        last = np.searchsorted(self.codes, base + hi + 1, side="left")
        return np.maximum(last - first, 0)


def exact_count(streams: Streams, windows: WindowSpec, method: str = "auto", key_band: int = 0) -> int:
    """Number of N-tuples of the W-join (keys within ``key_band``, every window met).

    Args:
        streams: The N streams (:class:`~shedding.wjoin.streams.Streams`).
        windows: The window constraints (:class:`~shedding.wjoin.windows.WindowSpec`).
        method: ``product`` (Form 1 and equal keys only), ``sweep`` (any form) or ``auto``
            (product when every closure bound is the same and keys must be equal, else sweep).
        key_band: Keys join within this distance (an integer >= 0; 0: equal keys).

    Returns:
        The number of results.

    Raises:
        ShedError: An unknown ``method`` or a bad ``key_band`` (naming it in ``param``),
            ``product`` where it does not apply, or streams that do not match the windows.
    """
    check_compatible(streams, windows.n)
    band = check_key_band(key_band)
    if method not in METHODS:
        raise ShedError(f"unknown {{param}} {method!r}; choose from {', '.join(METHODS)}", param="method")
    w = windows.uniform_bound
    if method == "product" and (w is None or band):
        raise ShedError("the product count needs one window for every pair (Form 1) and equal keys; "
                        "use method='sweep'")
    if min(streams.lengths()) == 0:
        return 0
    if method == "sweep" or (method == "auto" and (w is None or band)):
        bounds = windows.bounds.astype(np.int64)
        return count_between(streams, -bounds, bounds, band)
    assert w is not None, "the product count was refused above without one window for every pair"
    return _product(StreamIndex.of(streams, windows.widest), streams.n, int(w))


def count_between(streams: Streams, lower: np.ndarray, upper: np.ndarray, key_band: int = 0) -> int:
    """Number of N-tuples whose keys are within ``key_band`` (0: equal) and whose times satisfy
    ``lower[i, j] <= t_j - t_i <= upper[i, j]`` for every pair: the compiled sweep. The bounds must
    be closed (shortest paths: no pair's bounds are looser than a path through another stream) and
    ``lower = -upper.T``."""
    check_compatible(streams, len(upper))
    if min(streams.lengths()) == 0:
        return 0
    lower, upper = np.asarray(lower, dtype=np.int64), np.asarray(upper, dtype=np.int64)
    index = StreamIndex.of(streams, int(np.abs(upper).max()), by_key=key_band == 0)
    return int(_sweep(index.stream, index.rank, index.time, index.codes, index.key, index.n_keys, index.span,
                      lower, upper, streams.n, int(key_band)))


def _product(index: StreamIndex, n: int, w: int) -> int:
    total = 0
    for i in range(n):
        mine = index.stream == i  # in (rank, time) order, so the searches ascend
        rank, t = index.rank[mine], index.time[mine]
        ways = np.ones(len(t), dtype=np.int64)
        for j in range(n):
            if j != i:
                ways *= index.count_in(j, rank, t + (1 if j < i else 0), t + w)
        total += int(ways.sum())
    return total


@njit
def _sweep(stream, rank, time, codes, key, n_keys, span, lower, upper, n, band):  # pragma: no cover - compiled
    total = 0
    others = np.empty(n - 1, dtype=np.int64)
    chosen = np.empty(n, dtype=np.int64)   # time of the member chosen at each level
    cur = np.empty(n, dtype=np.int64)      # next position to try at each level
    stop = np.empty(n, dtype=np.int64)
    klo = np.empty(n + 1, dtype=np.int64)  # the key band each level's member must meet
    khi = np.empty(n + 1, dtype=np.int64)
    for x in range(len(time)):
        i, r, t = stream[x], rank[x], time[x]
        k = 0
        for j in range(n):
            if j != i:
                others[k] = j
                k += 1
        klo[0], khi[0] = key[x] - band, key[x] + band
        level = 0
        fresh = True
        while level >= 0:
            if fresh:
                j = others[level]
                lo = t + max(1 if j < i else 0, lower[i, j])
                hi = t + upper[i, j]
                for m in range(level):
                    s = others[m]
                    lo = max(lo, chosen[m] + lower[s, j])
                    hi = min(hi, chosen[m] + upper[s, j])
                if lo > hi:
                    cur[level], stop[level] = 0, 0
                else:
                    base = (j * n_keys + r) * span
                    cur[level] = np.searchsorted(codes, base + lo)
                    stop[level] = np.searchsorted(codes, base + hi + 1)
                if level == n - 2:
                    if band == 0:  # the range holds the anchor's key only
                        total += max(stop[level] - cur[level], 0)
                    else:
                        for y in range(cur[level], stop[level]):
                            if klo[level] <= key[y] <= khi[level]:
                                total += 1
                    level -= 1
                    fresh = False
                    continue
            y = cur[level]
            while y < stop[level] and not klo[level] <= key[y] <= khi[level]:
                y += 1
            if y < stop[level]:
                chosen[level] = time[y]
                klo[level + 1] = max(klo[level], key[y] - band)
                khi[level + 1] = min(khi[level], key[y] + band)
                cur[level] = y + 1
                level += 1
                fresh = True
            else:
                level -= 1
                fresh = False
    return total
