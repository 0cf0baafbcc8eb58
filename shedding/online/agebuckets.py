"""HAZARD's age buckets looked up by age: a table of the bucket of each age below the last edge
(at most :data:`TABLE_AGES` of them; older ages are searched for, :func:`bucket_of`).
A binary search of the edges took about 20 ns a call on the flights' 13 buckets (its branches are
not predictable), and the per-arrival work asks for a bucket at every guard's drop (26 shadow
entries priced each), every tuple settled when its key's partner arrives and every tuple the
wheel turns (:mod:`~shedding.online.guard`, :mod:`~shedding.online.hazardmemory`), and the
shadow's exposure counted step by step and the memory re-sorted at a refit
(:mod:`~shedding.online.hazard`).
"""

import numpy as np

from shedding.jit import njit

#: the most ages of the table (a window of a million steps would otherwise make it 8 MB)
TABLE_AGES = 4096


@njit(_nrt=False)
def bucket_of(edges, age):
    """The bucket holding ``age`` (ages past the last edge belong to the last bucket): a binary
    search of the edges."""
    j = np.searchsorted(edges, age, side="right") - 1
    return min(max(j, 0), edges.shape[0] - 2)


def bucket_table(edges: np.ndarray) -> np.ndarray:
    """The age bucket of each age 0, 1, ... below the last edge, at most :data:`TABLE_AGES` of them."""
    ages = np.arange(min(int(edges[-1]), TABLE_AGES))
    return np.minimum(np.searchsorted(edges, ages, side="right") - 1, len(edges) - 2).astype(np.int64)


@njit(_nrt=False)
def bucket_at(ab, edges, age):
    """The bucket holding ``age``: from the table ``ab`` (:func:`bucket_table`) for the ages it
    holds, else :func:`bucket_of`."""
    return ab[age] if 0 <= age < ab.shape[0] else bucket_of(edges, age)
