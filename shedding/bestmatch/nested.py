"""Nested loops for the bestmatch joins: the reference algorithm (Kemper/Stegmaier 2002, §2.2,
Algorithm 1, with the distance constraint of §2.3 when eps is given).

Algorithm 1 tests every (r x s) against every (r x s'); here the inner loop over s' is the
best-pair buffer of r (:mod:`.skyline`), which gives the same pairs with |R| * |S| offers instead of
|R| * |S|^2 comparisons. The BMJ (§2.2) offers every pair to one buffer; the left-outer BMJ empties
r's buffer to the output once r has met all of S.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from shedding.bestmatch.skyline import emit, grow, new_buffer, probe


@njit(cache=True)
def nested_kernel(R: np.ndarray, S: np.ndarray, eps: np.ndarray, sign: np.ndarray, left_outer: bool,
                  buf: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, int, int]:
    """Rows (r, s, stamp) of the result, their number and the pairs tested; stamp = input
    tuples read when the pair was output (all of S plus the r's so far)."""
    out = np.empty((16, 3), dtype=np.int64)
    n_out = 0
    tested = 0
    alive = np.ones(max(R.shape[0], S.shape[0]), dtype=np.bool_)
    for r in range(R.shape[0]):
        k = probe(buf, count, 1, R, S, r, r + 1, 0, S.shape[0], eps, sign, alive, alive)
        while k < 0:  # the slot ran full: grow and offer r's pairs again (idempotent)
            buf = grow(buf)
            k = probe(buf, count, 1, R, S, r, r + 1, 0, S.shape[0], eps, sign, alive, alive)
        tested += k
        if left_outer:
            out, n_out = emit(buf, count, 0, out, n_out, S.shape[0] + r + 1)
    if not left_outer:
        out, n_out = emit(buf, count, 0, out, n_out, S.shape[0] + R.shape[0])
    return out[:n_out], n_out, tested


def nested_loops(R: np.ndarray, S: np.ndarray, eps: np.ndarray, sign: np.ndarray, left_outer: bool
                 ) -> tuple[np.ndarray, int]:
    """(rows (r, s, stamp), pairs tested) of the (constrained) BMJ or left-outer BMJ."""
    buf, count = new_buffer(1, R.shape[1])
    out, _, tested = nested_kernel(R, S, eps, sign, left_outer, buf, count)
    return out, tested
