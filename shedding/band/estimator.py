"""PROB for band joins: the probability that an arriving partner falls within eps (Das, Gehrke,
Riedewald 2003, §3.3.1, generalized from "has the same key").

The equi-join's p_S(v) is the share of S tuples with key v. For a band join it becomes the share
of S tuples whose attribute lies in ``[v - eps, v + eps]``, estimated from an equi-width histogram
per attribute, assuming values spread evenly over the integer points of a bin. With several
attributes the per-attribute shares are multiplied (independence). With bins one scaled unit wide
(the default when the value range is at most ``bins`` units) the estimate is the exact share, and
with eps = 0 on integer keys it is the equi-join's p_S(v), so band PROB and LIFE then equal the
keyed engine's.

Two estimators, as for the equi-join: ``static`` counts the whole stream in advance (the paper's
table, §4); ``online`` starts empty and counts the arrivals so far (the current batch included,
before admission). Both fix the bin layout (first value and width per attribute) in advance;
the online estimator learns only the counts, and places a value outside the layout in the nearest
end bin.

Priorities are kept as a numerator per tuple and a denominator per side, ``count * overlap``
summed over bins and ``bin width * N_side`` (per attribute, multiplied), so the kernel compares
them by cross-multiplying whole numbers (exact while the products stay below 2^53). The counts
live in one Fenwick tree per (side, attribute), so a bin range costs two prefix sums.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from shedding.errors import ShedError
from shedding.band.exact import fenwick_add, fenwick_prefix
from shedding.band.predicate import BandWorkload
from shedding.jit import njit

DEFAULT_BINS = 1024
ESTIMATORS = ("static", "online")


@njit
def band_mass(fen, lo, width, v, eps):
    """``sum_bins count * |[v - eps, v + eps] ∩ bin|`` over the integer points of each bin."""
    n_bins = fen.shape[0] - 1
    end = lo + n_bins * width - 1
    a, b = max(v - eps, lo), min(v + eps, end)
    if a > b:
        return 0.0
    ba, bb = (a - lo) // width, (b - lo) // width
    count_a = fenwick_prefix(fen, ba + 1) - fenwick_prefix(fen, ba)
    if ba == bb:
        return float(count_a * (b - a + 1))
    count_b = fenwick_prefix(fen, bb + 1) - fenwick_prefix(fen, bb)
    inner = fenwick_prefix(fen, bb) - fenwick_prefix(fen, ba + 1)
    return float(count_a * (lo + (ba + 1) * width - a) + count_b * (b - lo - bb * width + 1) + width * inner)


@njit
def band_numerator(fen, lo, width, side, row, eps):
    """Priority numerator of a tuple of ``side`` with scaled attributes ``row``: the product over
    attributes of the other side's mass within eps."""
    out = 1.0
    for c in range(row.shape[0]):
        out *= band_mass(fen[1 - side, c], lo[c], width[c], row[c], eps[c])
    return out


@njit
def band_denominator(width, seen):
    """Denominator for a partner side that has ``seen`` tuples: ``prod_attrs width * seen``."""
    out = 1.0
    for c in range(width.shape[0]):
        out *= float(width[c]) * float(seen)
    return out


@njit
def add_to_bins(fen, lo, width, side, row):
    """Count one arrival of ``side`` in every attribute's histogram (outside values: end bins)."""
    n_bins = fen.shape[2] - 1
    for c in range(row.shape[0]):
        fenwick_add(fen[side, c], min(max((row[c] - lo[c]) // width[c], 0), n_bins - 1), 1)


@njit
def _numerators(fen, lo, width, side, values, eps):
    out = np.empty(side.shape[0], dtype=np.float64)
    for i in range(side.shape[0]):
        out[i] = band_numerator(fen, lo, width, side[i], values[i], eps)
    return out


@dataclass(frozen=True)
class BandHistogram:
    """The equi-width histogram per attribute behind PROB and LIFE on a band join: the estimate of
    how many partners a value has (the band join's counterpart of §3.3.1's frequencies).

    Attributes:
        lo: Per attribute, the first bin's first value (scaled units).
        width: Per attribute, the bins' width (scaled units).
        fen: The bin counts of R and S as Fenwick trees, ``fen[side, attribute]``
            (shape (2, d, bins + 1)).
        totals: The tuples counted per side.
    """

    lo: np.ndarray
    width: np.ndarray
    fen: np.ndarray  # (2, d, bins + 1) int64
    totals: np.ndarray  # (2,)

    @classmethod
    def layout(cls, bw: BandWorkload, bins: int = DEFAULT_BINS) -> "BandHistogram":
        """An empty histogram that spans the workload's values (the online estimate's start).

        Args:
            bw: The band join's workload.
            bins: Bins per attribute (>= 1).

        Returns:
            The empty :class:`BandHistogram`.

        Raises:
            ShedError: ``bins`` not an integer >= 1, naming ``bins``.
        """
        if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
            raise ShedError(f"{{param}} must be an integer >= 1, got {bins!r}", param="bins")
        d = bw.n_attrs
        if len(bw) == 0:
            return cls(np.zeros(d, np.int64), np.ones(d, np.int64), np.zeros((2, d, 2), np.int64), np.zeros(2, np.int64))
        lo, hi = bw.values.min(axis=0), bw.values.max(axis=0)
        width = np.maximum(1, -(-(hi - lo + 1) // bins))
        n_bins = int(((hi - lo) // width).max()) + 1
        return cls(lo.astype(np.int64), width.astype(np.int64), np.zeros((2, d, n_bins + 1), np.int64),
                   np.zeros(2, np.int64))

    @classmethod
    def of(cls, bw: BandWorkload, bins: int = DEFAULT_BINS) -> "BandHistogram":
        """The static histogram: every tuple of the workload counted in advance.

        Args:
            bw: The band join's workload.
            bins: Bins per attribute (>= 1).

        Returns:
            The :class:`BandHistogram` with every tuple counted.

        Raises:
            ShedError: As :meth:`layout`.
        """
        empty = cls.layout(bw, bins)
        n_bins = empty.fen.shape[2] - 1
        side = bw.workload.side
        fen = empty.fen.copy()
        for s in (0, 1):
            for c in range(bw.n_attrs):
                b = np.clip((bw.values[side == s, c] - empty.lo[c]) // empty.width[c], 0, n_bins - 1)
                prefix = np.concatenate([[0], np.cumsum(np.bincount(b, minlength=n_bins))])
                k = np.arange(1, n_bins + 1)
                fen[s, c, 1:] = prefix[k] - prefix[k - (k & -k)]
        totals = np.array([np.count_nonzero(side == 0), np.count_nonzero(side == 1)], dtype=np.int64)
        return cls(empty.lo, empty.width, fen, totals)

    def numerators(self, bw: BandWorkload) -> np.ndarray:
        """:meth:`numerators_of` every tuple of ``bw``."""
        return self.numerators_of(bw.workload.side, bw.values, bw.eps)

    def numerators_of(self, side: np.ndarray, values: np.ndarray, eps: np.ndarray) -> np.ndarray:
        """Per tuple, the (scaled) mass of the other side's histogram within eps (float64)."""
        return _numerators(self.fen, self.lo, self.width, np.asarray(side, dtype=np.int64),
                           np.ascontiguousarray(values, dtype=np.int64), np.asarray(eps, dtype=np.int64))

    def denominators(self) -> np.ndarray:
        """Per side of the *partner*: ``prod_attrs width * N_side``."""
        return np.array([band_denominator(self.width, int(self.totals[s])) for s in (0, 1)])
