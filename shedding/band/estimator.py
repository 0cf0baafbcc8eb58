"""PROB for band joins: the probability that an arriving partner falls within eps (issue 13;
Das, Gehrke, Riedewald 2003, §3.3.1 generalized from "has the same key").

The equi-join's p_S(v) is the share of S tuples with key v. For a band join it becomes the share
of S tuples whose attribute lies in ``[v - eps, v + eps]``, estimated from an equi-width histogram
per attribute over the whole stream (the paper's static table), assuming values spread evenly
over the integer points of a bin. With several attributes the per-attribute shares are multiplied
(independence). With bins one scaled unit wide (the default when the value range is at most
``bins`` units) the estimate is the exact share, and with eps = 0 on integer keys it is the
equi-join's p_S(v), so band PROB and LIFE then equal the keyed engine's.

Priorities are kept as a numerator per tuple and a denominator per side, ``count * overlap``
summed over bins and ``bin width * N_side``, so the kernel compares them by cross-multiplying
whole numbers (exact while the products stay below 2^53).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ShedError
from .predicate import BandWorkload

DEFAULT_BINS = 1024


@dataclass(frozen=True)
class BandHistogram:
    """Per attribute: ``lo`` (first value), ``width`` (bin width, scaled units) and the bin
    counts of R and S (``counts[side]``, one row per attribute, padded)."""

    lo: np.ndarray
    width: np.ndarray
    counts: np.ndarray  # (2, d, bins)
    totals: np.ndarray  # (2,) tuples per side

    @classmethod
    def of(cls, bw: BandWorkload, bins: int = DEFAULT_BINS) -> "BandHistogram":
        """The static histogram of the whole workload (``bins`` per attribute at most)."""
        if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
            raise ShedError(f"--bins must be an integer >= 1, got {bins!r}")
        d = bw.n_attrs
        side = bw.workload.side
        if len(bw) == 0:
            return cls(np.zeros(d, np.int64), np.ones(d, np.int64), np.zeros((2, d, 1), np.int64), np.zeros(2, np.int64))
        lo, hi = bw.values.min(axis=0), bw.values.max(axis=0)
        width = np.maximum(1, -(-(hi - lo + 1) // bins))
        n_bins = int(((hi - lo) // width).max()) + 1
        counts = np.zeros((2, d, n_bins), dtype=np.int64)
        b = (bw.values - lo) // width
        for s in (0, 1):
            for c in range(d):
                counts[s, c] = np.bincount(b[side == s, c], minlength=n_bins)
        totals = np.array([np.count_nonzero(side == 0), np.count_nonzero(side == 1)], dtype=np.int64)
        return cls(lo, width, counts, totals)

    def numerators(self, bw: BandWorkload) -> np.ndarray:
        """:meth:`numerators_of` every tuple of ``bw``."""
        return self.numerators_of(bw.workload.side, bw.values, bw.eps)

    def numerators_of(self, side: np.ndarray, values: np.ndarray, eps: np.ndarray) -> np.ndarray:
        """Per tuple, the (scaled) mass of the other side's histogram within eps: the product over
        attributes of ``sum_bins count * |[v - eps, v + eps] ∩ bin|`` (float64)."""
        out = np.ones(len(side), dtype=np.float64)
        other = 1 - np.asarray(side, dtype=np.int64)
        for s in (0, 1):
            mine = np.flatnonzero(other == s)
            for c in range(values.shape[1]):
                out[mine] *= self._mass(self.counts[s, c], c, values[mine, c], int(eps[c]))
        return out

    def denominators(self) -> np.ndarray:
        """Per side of the *partner*: ``prod_attrs width * N_side`` (0 with no partners)."""
        return np.array([float(np.prod(self.width.astype(np.float64) * self.totals[s])) for s in (0, 1)])

    def _mass(self, counts: np.ndarray, c: int, v: np.ndarray, eps: int) -> np.ndarray:
        lo, width = int(self.lo[c]), int(self.width[c])
        end = lo + len(counts) * width - 1
        a, b = np.maximum(v - eps, lo), np.minimum(v + eps, end)
        empty = a > b
        a, b = np.minimum(a, end), np.maximum(b, lo)
        ba, bb = (a - lo) // width, (b - lo) // width
        prefix = np.concatenate([[0], np.cumsum(counts)])
        first_end = lo + (ba + 1) * width - 1
        last_start = lo + bb * width
        same = ba == bb
        mass = np.where(
            same, counts[ba] * (b - a + 1),
            counts[ba] * (first_end - a + 1) + counts[bb] * (b - last_start + 1)
            + width * (prefix[bb] - prefix[np.minimum(ba + 1, bb)]))
        return np.where(empty, 0, mass).astype(np.float64)
