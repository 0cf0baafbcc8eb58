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


def row_room(ng: int) -> int:
    """The memo's rows for ``ng`` groups (per side, matched state, group and beta bin), so many
    the list after the learner's counters must hold."""
    return 2 * 2 * ng * Q_PRIO


@njit(_nrt=False)
def index_row(eg, th, lens, s, g, c, beta, memo, q):
    """The priority of a tuple in state (s, g, c), its key's rate beta, at the start of every age
    bucket j, into ``memo[s, g, c, q, j]``: the best mean rate of partners per step over a horizon
    of whole buckets j..n (max over n of the expected partners in buckets j..n over their steps).

    Each bucket's own term is computed once for the whole row: its expected partners (c = 1) or its
    chance of no partner, exp(-l0 * steps) (c = 0), held in ``memo[..., b]`` until bucket b's own
    priority overwrites it (the priority at j reads only the buckets from j on). The sums run
    from j on, in the same order as a priority computed alone, so every value is the same to the
    bit; the exponential per (bucket, start) was the index's cost."""
    nb = lens.shape[0]
    for b in range(nb):
        if c == 1:
            memo[s, g, c, q, b] = (eg[s, g, 1, b] + th[s, 1, b] * beta) * lens[b]
        else:
            l0 = eg[s, g, 0, b] + th[s, 0, b] * beta
            memo[s, g, c, q, b] = math.exp(-l0 * lens[b]) if l0 > 0.0 else 1.0
    for j in range(nb):
        best = -1.0
        cum_e = 0.0
        cum_l = 0.0
        still = 1.0  # probability of no partner yet (c = 0)
        for b in range(j, nb):
            steps = lens[b]
            if steps <= 0.0:
                continue
            if c == 1:
                expected = memo[s, g, c, q, b]
            else:
                l0 = eg[s, g, 0, b] + th[s, 0, b] * beta
                l1 = eg[s, g, 1, b] + th[s, 1, b] * beta
                if l0 > 0.0:
                    surv = memo[s, g, c, q, b]
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
        memo[s, g, c, q, j] = best


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
