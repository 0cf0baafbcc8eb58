"""HAZARD's groups' curves read only the beta bins that hold counts (hazard.pool_groups marks them
per cell, hazard.group_curves reads only those): every curve must be the same to the bit as when
every bin is read, on whole and on decayed (forgetting) statistics, with empty groups and cells,
and against the formula computed cell by cell in Python."""

from __future__ import annotations

import numpy as np
import pytest

from shedding.online.hazard import Q_STATS, group_curves, pool_groups, stats_betas


def _stats(seed: int, ng: int, nb: int, decayed: bool) -> tuple[np.ndarray, np.ndarray]:
    """Mostly-zero events and exposure as the flights give them: each group holds a few beta
    bins, each of its cells a prefix of the buckets, some groups nothing; decayed ones are
    fractions over magnitudes apart (the order of a sum shows in its bits)."""
    rng = np.random.default_rng(seed)
    ev = np.zeros((2, ng, 2, nb, Q_STATS))
    ex = np.zeros_like(ev)
    for s in range(2):
        for g in range(ng):
            if rng.random() < 0.2:
                continue  # a group with no counts at all
            for q in rng.choice(Q_STATS, rng.integers(1, 6), replace=False):
                for c in range(2):
                    top = rng.integers(0, nb + 1)
                    ex[s, g, c, :top, q] = rng.integers(1, 5000, top)
                    ev[s, g, c, :top, q] = rng.integers(0, 60, top) * (rng.random(top) < 0.6)
    if decayed:
        scale = 10.0 ** rng.integers(-3, 4, ev.shape)
        return ev * rng.random(ev.shape) * scale, ex * rng.random(ex.shape) * scale
    return ev.astype(np.int64), ex.astype(np.int64)


def _oracle(ev, ex, s, ng, nb, betas, th, e1, kappa):
    """The curves cell by cell in Python, every bin read (the formula before the bins were marked)."""
    out = np.zeros((ng, 2, nb))
    for g in range(ng):
        for c in range(2):
            for j in range(nb):
                to_e, n = 0.0, 0.0
                for q in range(Q_STATS):
                    n += float(ex[s, g, c, j, q])
                    if ev[s, g, c, j, q] > 0:
                        total = e1[c, j] + th[s, c, j] * betas[q]
                        to_e += float(ev[s, g, c, j, q]) * (e1[c, j] / total if total > 0.0 else 1.0)
                out[g, c, j] = (to_e + kappa * e1[c, j]) / (n + kappa) if n + kappa > 0.0 else e1[c, j]
    return out


@pytest.mark.parametrize("decayed", [False, True])
@pytest.mark.parametrize("kappa", [0.0, 0.3, 100.0])
@pytest.mark.parametrize("seed", range(4))
def test_the_bins_held_give_the_curves_of_every_bin_to_the_bit(seed, kappa, decayed):
    ng, nb = 11, 9
    ev, ex = _stats(seed, ng, nb, decayed)
    rng = np.random.default_rng(100 + seed)
    betas = stats_betas()
    th = 10.0 ** rng.uniform(-2, 1, (2, 2, nb))
    th[0, 1, 2] = 0.0
    for s in range(2):
        e1 = 10.0 ** rng.uniform(-7, -1, (2, nb))
        e1[1, 3] = 0.0  # a cell whose events all go to theta (total > 0) ...
        e1[0, 4] = 0.0
        th[s, 0, 4] = 0.0  # ... and one with no rate at all (total = 0)
        pooled = np.zeros((2, nb, Q_STATS)), np.zeros((2, nb, Q_STATS)), np.zeros(Q_STATS), np.zeros(Q_STATS)
        cells = np.full((ng, 2, nb), -1, np.int64)
        pool_groups(ev, ex, s, ng, nb, *pooled, not decayed, cells)
        plain = np.zeros((2, nb, Q_STATS)), np.zeros((2, nb, Q_STATS)), np.zeros(Q_STATS), np.zeros(Q_STATS)
        pool_groups(ev, ex, s, ng, nb, *plain, not decayed)
        for got, want in zip(pooled, plain):  # marking the bins changes no sum
            assert got.tobytes() == want.tobytes()
        held = (ev[s] != 0) | (ex[s] != 0)
        assert np.array_equal(cells, (held * (1 << np.arange(Q_STATS))).sum(axis=3))
        sparse = np.full((2, ng, 2, nb), np.nan)
        dense = np.full((2, ng, 2, nb), np.nan)
        group_curves(ev, ex, s, 0, ng, nb, betas, th, e1, kappa, sparse, cells)
        group_curves(ev, ex, s, 0, ng, nb, betas, th, e1, kappa, dense)
        assert sparse[s].tobytes() == dense[s].tobytes()
        assert sparse[s].tobytes() == _oracle(ev, ex, s, ng, nb, betas, th, e1, kappa).tobytes()
        assert np.isnan(sparse[1 - s]).all()  # the other side untouched


def test_a_block_of_groups_reads_its_own_cells():
    """A candidate grouping's block (from ``base``) takes the cells of its groups, numbered from 0."""
    ng, nb = 5, 6
    ev, ex = _stats(9, 3 * ng, nb, False)
    betas = stats_betas()
    th = np.ones((2, 2, nb))
    e1 = np.full((2, nb), 1e-3)
    base = ng
    pooled = np.zeros((2, nb, Q_STATS)), np.zeros((2, nb, Q_STATS)), np.zeros(Q_STATS), np.zeros(Q_STATS)
    cells = np.zeros((ng, 2, nb), np.int64)
    pool_groups(ev[:, base:base + ng], ex[:, base:base + ng], 1, ng, nb, *pooled, True, cells)
    sparse = np.zeros((2, 3 * ng, 2, nb))
    dense = np.zeros((2, 3 * ng, 2, nb))
    group_curves(ev, ex, 1, base, ng, nb, betas, th, e1, 100.0, sparse, cells)
    group_curves(ev, ex, 1, base, ng, nb, betas, th, e1, 100.0, dense)
    assert sparse.tobytes() == dense.tobytes()
    assert sparse[1, base:base + ng].any() and not sparse[1, :base].any()
