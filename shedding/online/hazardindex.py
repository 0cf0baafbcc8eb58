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
    up to it (:func:`_starts`); each start's sums (its chance of no partner yet, its expected
    partners and its steps) wait in the memo's scratch rows (``memo[0, 0, 0, SCRATCH + i]``) and its
    best rate in its own cell. Each start still sums its buckets in the same order and with the same
    operations as a priority computed alone, so every value is the same to the bit; going bucket by
    bucket instead of start by start took a third to two fifths off a row (the rows were most of what
    groups add to HAZARD's time; start by start with the buckets' terms shared was slower still, its
    sums one chain of dependent divisions). Compiled with numpy's error model: no division here can
    be by zero (the steps summed are positive, l0 is), and Python's check of each divisor was a third
    of a matched row."""
    still, cum_e, cum_l = memo[0, 0, 0, SCRATCH], memo[0, 0, 0, SCRATCH + 1], memo[0, 0, 0, SCRATCH + 2]
    row = memo[s, g, c, q]
    for b in range(lens.shape[0]):
        steps = lens[b]
        still[b] = 1.0  # start b: no partner yet, nothing summed
        cum_e[b] = 0.0
        cum_l[b] = 0.0
        row[b] = -1.0
        if steps <= 0.0:
            continue
        l1 = eg[s, g, 1, b] + th[s, 1, b] * beta
        if c == 1:
            _starts(still, cum_e, cum_l, row, b, steps, l1, 0.0, 1.0, True)
            continue
        l0 = eg[s, g, 0, b] + th[s, 0, b] * beta
        if l0 > 0.0:
            _starts(still, cum_e, cum_l, row, b, steps, l1, l0, math.exp(-l0 * steps), False)
        else:
            _starts(still, cum_e, cum_l, row, b, steps, l1, l0, 1.0, False)


@njit(_nrt=False, error_model="numpy", inline="always")
def _starts(still, cum_e, cum_l, row, b, steps, l1, l0, surv, matched):
    """Bucket b's term added to the sums of every start j <= b, and each start's best rate the new
    mean if it is higher: ``matched``, its expected partners at the c = 1 rate l1; else its first
    partner at the c = 0 rate l0 (none when l0 = 0; ``surv``: the chance of none in the bucket) and
    partners at l1 after it. Three calls with their branches fixed, one loop with none inside, which
    LLVM vectorizes across the starts (a tenth to a sixth off a row; the loop's sums and its best
    rate read and written through one array each, no conditional store)."""
    gone = 1.0 - surv
    for j in range(b + 1):
        now = still[j]  # probability of no partner yet
        if matched:
            expected = l1 * steps
        else:
            if l0 > 0.0:
                first = now * gone
                unmatched = first / l0
            else:
                first = 0.0
                unmatched = now * steps
            still[j] = now * surv
            expected = first + l1 * (now * steps - unmatched)
        e = cum_e[j] + expected
        n = cum_l[j] + steps
        cum_e[j] = e
        cum_l[j] = n
        r = e / n
        m = row[j]
        row[j] = r if r > m else m


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
