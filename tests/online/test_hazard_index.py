"""HAZARD's index a row at a time (shedding.online.hazardindex: index_row, shaped_prio, forget_rows) against its
definition, the per-cell loop it replaced, kept here as the oracle: the best mean rate of partners
per step over a horizon of whole buckets j..n, computed alone for each (state, bucket, beta). Every
value must be the same to the bit, since the values rank tuples; and a row is computed again after
a refit, never served from an older fit."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shedding.jit import njit
from shedding.online.agedlayout import H_FIELDS, H_ROWS
from shedding.online.hazard import Q_PRIO, Q_PRIO_OCTAVE, age_buckets, bin_beta
from shedding.online.hazardindex import MEMO_BINS, forget_rows, index_row, shaped_prio


@njit(cache=False)
def cell_index(eg, th, lens, s, g, c, j, beta):
    """The index as it was defined cell by cell: the priority of a tuple in state (s, g, c) at the
    start of bucket j, its key's rate beta."""
    best = -1.0
    cum_e = 0.0
    cum_l = 0.0
    still = 1.0
    for b in range(j, lens.shape[0]):
        steps = lens[b]
        if steps <= 0.0:
            continue
        l1 = eg[s, g, 1, b] + th[s, 1, b] * beta
        if c == 1:
            expected = l1 * steps
        else:
            l0 = eg[s, g, 0, b] + th[s, 0, b] * beta
            if l0 > 0.0:
                surv = math.exp(-l0 * steps)
                first = still * (1.0 - surv)
                unmatched = first / l0
            else:
                surv = 1.0
                first = 0.0
                unmatched = still * steps
            expected = first + l1 * (still * steps - unmatched)
            still *= surv
        cum_e += expected
        cum_l += steps
        if cum_e / cum_l > best:
            best = cum_e / cum_l
    return best


def model(seed: int, nb: int, ng: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Random rates eg[s, g, c, b] and theta[s, c, b] over several magnitudes, with zeros (a flat
    or empty cell) and a few rates so large that a bucket's survival underflows."""
    rng = np.random.default_rng(seed)
    eg = rng.choice([0.0, 1.0], (2, ng, 2, nb)) * 10.0 ** rng.uniform(-6, 1, (2, ng, 2, nb))
    th = rng.choice([0.0, 1.0, 1.0], (2, 2, nb)) * 10.0 ** rng.uniform(-2, 1, (2, 2, nb))
    eg[rng.random(eg.shape) < 0.05] = 50.0
    return eg, th


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), window=st.integers(2, 1500), first=st.integers(1, 16),
       ratio=st.sampled_from([1.1, 1.3, 1.6, 2.0]))
def test_a_row_is_every_cell_to_the_bit(seed, window, first, ratio):
    lens = np.diff(age_buckets(window, first, ratio)).astype(np.float64)
    nb = len(lens)
    eg, th = model(seed, nb)
    memo = np.full((2, 3, 2, MEMO_BINS, nb), np.nan)
    rng = np.random.default_rng(seed)
    for q in [0, 1, Q_PRIO - 1, *rng.integers(0, Q_PRIO, 6)]:
        beta = bin_beta(q, Q_PRIO_OCTAVE)
        for s in range(2):
            for g in range(3):
                for c in range(2):
                    before = memo[:, :, :, :Q_PRIO].copy()
                    index_row(eg, th, lens, s, g, c, beta, memo, q)
                    want = [cell_index(eg, th, lens, s, g, c, j, beta) for j in range(nb)]
                    assert memo[s, g, c, q, :nb].tobytes() == np.array(want).tobytes()
                    # its sums wait in the scratch rows, never in another row of priorities
                    before[s, g, c, q] = memo[s, g, c, q]
                    assert before.tobytes() == memo[:, :, :, :Q_PRIO].tobytes()


def test_an_empty_bucket_is_passed_over_as_before():
    lens = np.array([3.0, 0.0, 5.0, 0.0])
    eg, th = model(7, 4)
    memo = np.full((2, 3, 2, MEMO_BINS, 4), np.nan)
    for c in range(2):
        index_row(eg, th, lens, 1, 2, c, 0.25, memo, 9)
        assert memo[1, 2, c, 9, :4].tolist() == [cell_index(eg, th, lens, 1, 2, c, j, 0.25) for j in range(4)]


def test_a_row_is_computed_once_per_fit():
    """shaped_prio computes a row when its first priority is asked for, lists it, and reads it
    after; a refit (forget_rows) empties the listed rows, and only those, so a new fit is never
    served the last fit's values; a row filled again (a NaN priority) makes it empty the whole memo."""
    lens = np.diff(age_buckets(200)).astype(np.float64)
    nb = len(lens)
    eg, th = model(3, nb)
    hsc = np.zeros(H_FIELDS + 4 * 3 * Q_PRIO, np.int64)
    memo = np.full((2, 3, 2, MEMO_BINS, nb), np.nan)
    q = 40
    beta = bin_beta(q, Q_PRIO_OCTAVE)
    first = shaped_prio(hsc, eg, th, memo, lens, 0, 1, 0, 2, q)
    assert first == cell_index(eg, th, lens, 0, 1, 0, 2, beta) and hsc[H_ROWS] == 1
    rows = memo[:, :, :, :Q_PRIO]  # the priorities (the rows after them are index_row's scratch)
    assert not np.isnan(memo[0, 1, 0, q]).any() and np.isnan(memo[0, 1, 1]).all() and np.isnan(rows[0, 0]).all()
    shaped_prio(hsc, eg, th, memo, lens, 1, 2, 1, 5, 7)
    memo[0, 1, 0, q, 2] = -7.0  # a row of this fit is read, not computed again
    assert shaped_prio(hsc, eg, th, memo, lens, 0, 1, 0, 2, q) == -7.0 and hsc[H_ROWS] == 2
    eg *= 3.0  # a refit: new rates, and the rows of the last fit forgotten
    forget_rows(hsc, memo)
    assert np.isnan(rows).all() and hsc[H_ROWS] == 0
    again = shaped_prio(hsc, eg, th, memo, lens, 0, 1, 0, 2, q)
    assert again == cell_index(eg, th, lens, 0, 1, 0, 2, beta) != first
    memo[1, 1, 1, 3] = 1.0  # filled, and not listed: only an overfull list (-1) empties everything
    hsc[H_ROWS] = -1
    forget_rows(hsc, memo)
    assert np.isnan(rows).all() and hsc[H_ROWS] == 0


@pytest.mark.parametrize("c", [0, 1])
def test_flat_rates_rank_as_the_rate(c):
    """With one rate in every bucket and state the index is that rate, as PROB's order has it."""
    lens = np.diff(age_buckets(100)).astype(np.float64)
    nb = len(lens)
    eg = np.zeros((2, 1, 2, nb))
    th = np.ones((2, 2, nb))
    memo = np.full((2, 1, 2, MEMO_BINS, nb), np.nan)
    index_row(eg, th, lens, 0, 0, c, 0.5, memo, 3)
    assert np.allclose(memo[0, 0, c, 3, :nb], 0.5, rtol=1e-12)
