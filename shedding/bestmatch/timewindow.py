"""Fixed time-window re-evaluation on timestamped streams (Kemper/Stegmaier 2002, §3.5.1, Figure 10).

Time is no join attribute: both streams arrive in timestamp order, the data windows hold every
tuple of the last ``horizon`` time units (t - horizon <= time <= t), and whenever a tuple arrives
the constrained left-outer BMJ of the two windows is computed afresh and output with the current
time. Recomputing, rather than updating a running result, is the paper's point: a pair whose
dominating pair has just expired must appear again. Each evaluation is the nested-loops probe of
:mod:`.skyline` over the two window ranges.
"""

from __future__ import annotations

import numpy as np

from shedding.errors import ShedError
from shedding.bestmatch.matwin import widest_window
from shedding.bestmatch.skyline import emit, grow, is_literal, new_buffer, probe
from shedding.bestmatch.values import BestmatchInput
from shedding.jit import njit


@njit
def _reevaluate(R, S, tr, ts, times, horizon, eps, sign, n_slots, literal, buf, count):  # noqa: ANN001
    out = np.empty((16, 3), dtype=np.int64)
    n_out = 0
    alive = np.ones(max(R.shape[0], S.shape[0]), dtype=np.bool_)
    a0 = a1 = b0 = b1 = 0
    for t in times:
        while a1 < len(tr) and tr[a1] <= t:
            a1 += 1
        while a0 < a1 and tr[a0] < t - horizon:
            a0 += 1
        while b1 < len(ts) and ts[b1] <= t:
            b1 += 1
        while b0 < b1 and ts[b0] < t - horizon:
            b0 += 1
        k = probe(buf, count, n_slots, None, R, S, a0, a1, b0, b1, eps, sign, alive, alive)
        while k < 0:
            buf = grow(buf)
            k = probe(buf, count, n_slots, None, R, S, a0, a1, b0, b1, eps, sign, alive, alive)
        for r in range(a0, a1):
            out, n_out = emit(buf, count, r % n_slots, out, n_out, t, R, S, literal)
    return out[:n_out]


def time_window_bestmatch(data: BestmatchInput, tr: np.ndarray, ts: np.ndarray, horizon: int,
                          sign: np.ndarray, dominance: str = "pareto") -> np.ndarray:
    """At every arrival time t, the constrained left-outer BMJ of the windows (§3.5.1, see the
    module docstring).

    Args:
        data: R and S with eps (:class:`~shedding.bestmatch.values.BestmatchInput`).
        tr: R's integer timestamps, one per row, in arrival (ascending) order.
        ts: S's, likewise.
        horizon: The windows' length: they hold the tuples with t - horizon <= time <= t
            (>= 0).
        sign: The per-attribute order signs (1: ``minAttrDist``, -1: ``maxAttrDist``;
            :func:`~shedding.bestmatch.join.order_signs`).
        dominance: One of :data:`~shedding.bestmatch.skyline.DOMINANCE`.

    Returns:
        Rows (t, r, s), an int64 array.

    Raises:
        ShedError: An unknown ``dominance``, no eps, a negative ``horizon`` (naming it in
            ``param``), or timestamps out of order.
    """
    literal = is_literal(dominance)
    if data.eps is None:
        raise ShedError("the time-window evaluation computes the constrained left-outer BMJ; give {param}", param="eps")
    if horizon < 0:
        raise ShedError(f"{{param}} must be >= 0, got {horizon}", param="horizon")
    tr, ts = np.asarray(tr, dtype=np.int64), np.asarray(ts, dtype=np.int64)
    for name, t in (("R", tr), ("S", ts)):
        bad = np.flatnonzero(np.diff(t) < 0)
        if len(bad):
            raise ShedError(f"{name} row {bad[0] + 1}: its timestamp is earlier than the row before; timestamped "
                            f"streams arrive in time order (sort the file by time)")
    times = np.unique(np.concatenate([tr, ts]))
    n_slots = widest_window(tr, horizon) + 1
    buf, count = new_buffer(n_slots, data.dims)
    rows = _reevaluate(data.r, data.s, tr, ts, times, horizon, data.eps, sign, n_slots, literal, buf, count)
    return rows[:, [2, 0, 1]]
