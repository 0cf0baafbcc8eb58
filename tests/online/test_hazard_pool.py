"""HAZARD's counts pooled over the payload groups (hazard.pool_groups): the whole-number path sums
the flat counts from the pooled ones, and must give the bits of summing them group by group."""

from __future__ import annotations

import numpy as np

from shedding.online.hazard import Q_STATS, pool_groups


def _pool(ev, ex, s, whole):
    nb = ev.shape[3]
    out = np.zeros((2, nb, Q_STATS)), np.zeros((2, nb, Q_STATS)), np.zeros(Q_STATS), np.zeros(Q_STATS)
    pool_groups(ev, ex, s, ev.shape[1], nb, *out, whole)
    return out


def _oracle(ev, ex, s):
    """Every sum cell by cell in Python, group by group (the order the decayed counts keep)."""
    ng, nb = ev.shape[1], ev.shape[3]
    pev, pex = np.zeros((2, nb, Q_STATS)), np.zeros((2, nb, Q_STATS))
    fev, fex = np.zeros(Q_STATS), np.zeros(Q_STATS)
    for g in range(ng):
        for c in range(2):
            for j in range(nb):
                for q in range(Q_STATS):
                    pev[c, j, q] += float(ev[s, g, c, j, q])
                    pex[c, j, q] += float(ex[s, g, c, j, q])
                    fev[q] += float(ev[s, g, c, j, q])
                    fex[q] += float(ex[s, g, c, j, q])
    return pev, pex, fev, fex


def test_whole_counts_pool_to_the_bits_of_the_group_by_group_sums() -> None:
    rng = np.random.default_rng(3)
    shape = (2, 7, 2, 5, Q_STATS)
    ev = rng.integers(0, 2 ** 40, shape).astype(np.int64)  # large: float sums round unless exact
    ex = rng.integers(0, 2 ** 40, shape).astype(np.int64)
    for s in range(2):
        for got, want in zip(_pool(ev, ex, s, True), _oracle(ev, ex, s)):
            assert np.array_equal(got, want)


def test_decayed_counts_keep_the_group_by_group_order() -> None:
    rng = np.random.default_rng(4)
    shape = (2, 9, 2, 4, Q_STATS)
    ev = rng.random(shape) * 10.0 ** rng.integers(-3, 6, shape)  # magnitudes apart: the order shows in the bits
    ex = rng.random(shape) * 10.0 ** rng.integers(-3, 6, shape)
    for s in range(2):
        for got, want in zip(_pool(ev, ex, s, False), _oracle(ev, ex, s)):
            assert np.array_equal(got, want)
