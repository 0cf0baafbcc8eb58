"""HAZARD's index (the priority of a tuple's state, :mod:`~shedding.online.hazard` defines it)
computed a row at a time, and its memo: every age bucket of one (side, group, matched, beta bin)
at once, when the row is first asked for after a refit, kept until the next.

A row shares each bucket's rates and exponential among its starts (they were an exponential per
bucket and start, cell by cell), and sums each start's buckets in the order and with the
operations of a priority computed alone, so every value is the same to the bit. The rows filled
since the last refit are listed after the learner's counters (``hsc[H_FIELDS:]``, ``H_ROWS`` of
them), so a refit empties those and no others: clearing the whole memo at every refit was most
of the refits' cost by destination on the flights (2 x 2.9 MB each), and a per-row stamp of the
fit checked at every lookup cost HAZARD 5% of its time.
"""

import math

import numpy as np

from shedding.jit import njit
from shedding.online.agedlayout import H_FIELDS, H_ROWS
from shedding.online.hazard import Q_PRIO, Q_PRIO_OCTAVE, bin_beta


#: the memo's rows per state: one per priority bin of beta, and three after them, of which those of
#: state (0, 0, 0) are :func:`index_row`'s scratch (from row ``SCRATCH`` on)
SCRATCH = Q_PRIO
MEMO_BINS = Q_PRIO + 3


def row_room(ng: int) -> int:
    """The memo's rows for ``ng`` groups (per side, matched state, group and beta bin), so many
    the list after the learner's counters must hold."""
    return 2 * 2 * ng * Q_PRIO


@njit(_nrt=False, error_model="numpy")
def index_row(eg, th, lens, s, g, c, beta, memo, q):
    """The priority of a tuple in state (s, g, c), its key's rate beta, at the start of every age
    bucket j, into ``memo[s, g, c, q, j]``: the best mean rate of partners per step over a horizon
    of whole buckets j..n (max over n of the expected partners in buckets j..n over their steps).

    Bucket by bucket, each bucket's own term (its expected partners when c = 1, or its chance of no
    partner, exp(-l0 * steps), when c = 0) is computed once and added to the sums of every start j
    up to it; each start's sums (its chance of no partner yet, its expected partners and its
    steps) wait in the memo's scratch rows (``memo[0, 0, 0, SCRATCH + i]``) and its best rate in its
    own cell. Each start still sums its buckets in the same order and with the same operations as a
    priority computed alone, so every value is the same to the bit; going bucket by bucket instead of
    start by start took a third to two fifths off a row (the rows were most of what groups add to
    HAZARD's time). Compiled with numpy's error model: no division here can be by zero (the steps
    summed are positive, l0 is), and Python's check of each divisor was a third of a matched row."""
    still, cum_e, cum_l = SCRATCH, SCRATCH + 1, SCRATCH + 2
    for b in range(lens.shape[0]):
        steps = lens[b]
        memo[0, 0, 0, still, b] = 1.0  # start b: no partner yet, nothing summed
        memo[0, 0, 0, cum_e, b] = 0.0
        memo[0, 0, 0, cum_l, b] = 0.0
        memo[s, g, c, q, b] = -1.0
        if steps <= 0.0:
            continue
        l1 = eg[s, g, 1, b] + th[s, 1, b] * beta
        if c == 1:
            expected = l1 * steps
            for j in range(b + 1):
                _add(memo, s, g, c, q, j, expected, steps)
            continue
        l0 = eg[s, g, 0, b] + th[s, 0, b] * beta
        surv = math.exp(-l0 * steps) if l0 > 0.0 else 1.0
        for j in range(b + 1):
            now = memo[0, 0, 0, still, j]  # probability of no partner yet
            if l0 > 0.0:
                first = now * (1.0 - surv)
                unmatched = first / l0
            else:
                first = 0.0
                unmatched = now * steps
            memo[0, 0, 0, still, j] = now * surv
            _add(memo, s, g, c, q, j, first + l1 * (now * steps - unmatched), steps)


@njit(_nrt=False, error_model="numpy", inline="always")
def _add(memo, s, g, c, q, j, expected, steps):
    """Start j's sums take a bucket's expected partners and steps; its best rate the new mean."""
    cum_e = memo[0, 0, 0, SCRATCH + 1, j] + expected
    cum_l = memo[0, 0, 0, SCRATCH + 2, j] + steps
    memo[0, 0, 0, SCRATCH + 1, j] = cum_e
    memo[0, 0, 0, SCRATCH + 2, j] = cum_l
    if cum_e / cum_l > memo[s, g, c, q, j]:
        memo[s, g, c, q, j] = cum_e / cum_l


@njit(_nrt=False)
def shaped_prio(hsc, eg, th, memo, lens, s, g, c, j, q):
    """The priority of state (s, g, c, j) at the priority bin q of beta, from the memo: its row of
    buckets ``memo[s, g, c, q]`` is computed whole when first asked for after a refit
    (:func:`index_row`; NaN: not yet) and listed in ``hsc[H_FIELDS:]`` for :func:`forget_rows`."""
    v = memo[s, g, c, q, j]
    if v != v:
        index_row(eg, th, lens, s, g, c, bin_beta(q, Q_PRIO_OCTAVE), memo, q)
        n = hsc[H_ROWS]
        if 0 <= n < hsc.shape[0] - H_FIELDS:
            hsc[H_FIELDS + n] = ((g * 2 + s) * 2 + c) * Q_PRIO + q  # not by G: a new group keeps the list
            hsc[H_ROWS] = n + 1
        else:  # a row filled again (a NaN priority) overfills the list: the refit empties it all
            hsc[H_ROWS] = -1
        v = memo[s, g, c, q, j]
    return v


@njit(_nrt=False)
def forget_rows(hsc, memo):
    """At a refit: empty the rows of the memo filled since the last one (the priorities of the
    last fit), and only those: clearing the whole memo was 2 x 2.9 MB at each refit by destination
    on the flights."""
    n = hsc[H_ROWS]
    if n < 0:
        memo[:] = np.nan
    for i in range(max(n, 0)):
        r = hsc[H_FIELDS + i]
        q = r % Q_PRIO
        r //= Q_PRIO
        c = r % 2
        r //= 2
        s, g = r % 2, r // 2
        for j in range(memo.shape[4]):
            memo[s, g, c, q, j] = np.nan
    hsc[H_ROWS] = 0
