"""Nested loops for the bestmatch joins: the reference algorithm (Kemper/Stegmaier 2002, §2.2,
Algorithm 1, with the distance constraint of §2.3 when eps is given).

Algorithm 1 tests every (r x s) against every (r x s'); here the inner loop over s' is the
best-pair buffer of r (:mod:`.skyline`), which gives the same pairs with |R| * |S| offers instead of
|R| * |S|^2 comparisons. The BMJ (§2.2) offers every pair to one buffer; the left-outer BMJ empties
r's buffer to the output once r has met all of S. The right-outer BMJ ("defined analogously")
keeps a buffer per s, complete only when all of R has been read; the full-outer BMJ keeps both
and outputs a pair best for its r or for its s ("similarly, the other outer-BMJ variants can be
computed").
"""

from __future__ import annotations

import numpy as np

from shedding.bestmatch.skyline import emit, grow, new_buffer, probe
from shedding.jit import njit


@njit
def nested_kernel(R: np.ndarray, S: np.ndarray, eps: np.ndarray, sign: np.ndarray, left_outer: bool, n_slots: int,
                  s_slots: int | None, literal: bool, buf: np.ndarray, count: np.ndarray
                  ) -> tuple[np.ndarray, int, int]:
    """Rows (r, s, stamp) of the result, their number and the pairs tested; stamp = input
    tuples read when the pair was output (all of S plus the r's so far). ``n_slots`` is 1 for the
    BMJ and the left-outer side, else 0; ``s_slots`` is |S| for the right-outer side, else None."""
    out = np.empty((16, 3), dtype=np.int64)
    n_out = 0
    tested = 0
    alive = np.ones(max(R.shape[0], S.shape[0]), dtype=np.bool_)
    for r in range(R.shape[0]):
        k = probe(buf, count, n_slots, s_slots, R, S, r, r + 1, 0, S.shape[0], eps, sign, alive, alive)
        while k < 0:  # the slot ran full: grow and offer r's pairs again (idempotent)
            buf = grow(buf)
            k = probe(buf, count, n_slots, s_slots, R, S, r, r + 1, 0, S.shape[0], eps, sign, alive, alive)
        tested += k
        if left_outer:
            out, n_out = emit(buf, count, 0, out, n_out, S.shape[0] + r + 1, R, S, literal)
    if n_slots > 0 and not left_outer:
        out, n_out = emit(buf, count, 0, out, n_out, S.shape[0] + R.shape[0], R, S, literal)
    if s_slots is not None:
        for s in range(s_slots):
            out, n_out = emit(buf, count, n_slots + s, out, n_out, S.shape[0] + R.shape[0], R, S, literal)
    return out[:n_out], n_out, tested


def nested_loops(R: np.ndarray, S: np.ndarray, eps: np.ndarray, sign: np.ndarray, left_outer: bool,
                 right_outer: bool = False, literal: bool = False) -> tuple[np.ndarray, int]:
    """(rows (r, s, stamp), pairs tested) of the (constrained) BMJ (neither outer side) or the
    left-, right- or full-outer BMJ; a full-outer pair best for both its tuples comes twice."""
    n_slots = 0 if right_outer and not left_outer else 1
    s_slots = len(S) if right_outer else None
    buf, count = new_buffer(n_slots + (s_slots or 0), R.shape[1])
    out, _, tested = nested_kernel(R, S, eps, sign, left_outer, n_slots, s_slots, literal, buf, count)
    return out, tested
