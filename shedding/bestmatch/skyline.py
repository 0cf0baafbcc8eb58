"""The best-pair buffer O of the bestmatch joins (Kemper/Stegmaier 2002, §2.1, §3.2).

Pairs are compared with the partial order of §2.1: per dimension ``f_i(r, s) = |r.y_i - s.y_i|``
(``minAttrDist``; ``maxAttrDist`` negates it, so a larger distance is better), and
``(r x s)`` dominates ``(r' x s')`` when it is at least as good in every dimension and better in
one (Pareto). A buffer slot holds the pairs of one left tuple (the left-outer operators) or all pairs
(the BMJ), none dominating another; :func:`insert` keeps it so. Everything works on the exact
integers of :mod:`.values`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

ORDERS = {"minattrdist": 1, "maxattrdist": -1}  # f_i sign: smaller resp. larger |r.y_i - s.y_i| is better
UNBOUNDED = np.int64(2**62)  # eps of an unconstrained operator: every pair qualifies


@njit(cache=True)
def within(R: np.ndarray, S: np.ndarray, r: int, s: int, eps: np.ndarray) -> bool:
    """d(r, s) <= eps (§2.3): every |r.y_i - s.y_i| <= eps_i."""
    for i in range(R.shape[1]):
        if abs(R[r, i] - S[s, i]) > eps[i]:
            return False
    return True


@njit(cache=True)
def compare(R: np.ndarray, S: np.ndarray, r1: int, s1: int, r2: int, s2: int, sign: np.ndarray) -> int:
    """1 if (r1 x s1) dominates (r2 x s2), -1 if it is dominated by it, 0 if neither (§2.1)."""
    better = False
    worse = False
    for i in range(R.shape[1]):
        a = sign[i] * abs(R[r1, i] - S[s1, i])
        b = sign[i] * abs(R[r2, i] - S[s2, i])
        if a < b:
            better = True
        elif a > b:
            worse = True
        if better and worse:
            return 0
    if better:
        return 1
    if worse:
        return -1
    return 0  # equal on every dimension: incomparable, both stay (the paper's tie rule)


@njit(cache=True)
def grow(buf_r: np.ndarray, buf_s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The buffer with twice the room per slot."""
    slots, width = buf_r.shape
    new_r = np.empty((slots, 2 * width), dtype=np.int64)
    new_s = np.empty((slots, 2 * width), dtype=np.int64)
    new_r[:, :width] = buf_r
    new_s[:, :width] = buf_s
    return new_r, new_s


@njit(cache=True)
def insert(buf_r: np.ndarray, buf_s: np.ndarray, count: np.ndarray, slot: int, R: np.ndarray, S: np.ndarray,
           r: int, s: int, sign: np.ndarray) -> bool:
    """Offer (r x s) to buffer ``slot``: it is dropped if a buffered pair dominates it (or is it),
    otherwise it enters and every pair it dominates leaves (§3.2, Update). Returns False only if
    the slot is full (nothing changed then: grow the buffer and offer again).

    No pair is removed before a dominating one is found: a pair that dominates the new one cannot
    coexist with a pair the new one dominates (transitivity), so the scan either rejects or compacts.
    Offering a pair twice changes nothing, so a probe can be repeated after the buffer grew.
    """
    keep = 0
    n = count[slot]
    for j in range(n):
        if buf_r[slot, j] == r and buf_s[slot, j] == s:
            return True
        rel = compare(R, S, r, s, buf_r[slot, j], buf_s[slot, j], sign)
        if rel == -1:
            return True
        if rel == 0:
            buf_r[slot, keep] = buf_r[slot, j]
            buf_s[slot, keep] = buf_s[slot, j]
            keep += 1
    count[slot] = keep
    if keep == buf_r.shape[1]:
        return False
    buf_r[slot, keep] = r
    buf_s[slot, keep] = s
    count[slot] = keep + 1
    return True


@njit(cache=True)
def emit(buf_r: np.ndarray, buf_s: np.ndarray, count: np.ndarray, slot: int, out: np.ndarray, n_out: int,
         stamp: int) -> tuple[np.ndarray, int]:
    """Append the pairs of ``slot`` to ``out`` (rows r, s, stamp), empty the slot; returns (out, n_out)."""
    n = count[slot]
    if n_out + n > out.shape[0]:
        bigger = np.empty((max(2 * out.shape[0], n_out + n), 3), dtype=np.int64)
        bigger[:n_out] = out[:n_out]
        out = bigger
    for j in range(n):
        out[n_out, 0] = buf_r[slot, j]
        out[n_out, 1] = buf_s[slot, j]
        out[n_out, 2] = stamp
        n_out += 1
    count[slot] = 0
    return out, n_out


def new_buffer(slots: int, width: int = 8) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An empty buffer of ``slots`` slots (pair r-indices, s-indices, counts)."""
    return (np.empty((slots, width), dtype=np.int64), np.empty((slots, width), dtype=np.int64),
            np.zeros(slots, dtype=np.int64))


@njit(cache=True)
def probe(buf_r: np.ndarray, buf_s: np.ndarray, count: np.ndarray, n_slots: int, R: np.ndarray, S: np.ndarray,
          a0: int, a1: int, b0: int, b1: int, eps: np.ndarray, sign: np.ndarray, alive_r: np.ndarray,
          alive_s: np.ndarray) -> int:
    """Update(O, R[a0:a1], S[b0:b1]) of §3.2: offer every live pair with d(r, s) <= eps to the
    slot of r (``r % n_slots``; one slot holds every pair when ``n_slots`` is 1); the shorter range
    is the outer loop. Returns the pairs tested, or -1 if a slot ran full: grow the buffer and
    probe again (offering a pair twice changes nothing, so the repeat gives the same buffer)."""
    outer_r = a1 - a0 <= b1 - b0
    o0, o1 = (a0, a1) if outer_r else (b0, b1)
    i0, i1 = (b0, b1) if outer_r else (a0, a1)
    alive_o = alive_r if outer_r else alive_s
    alive_i = alive_s if outer_r else alive_r
    for o in range(o0, o1):
        if not alive_o[o]:
            continue
        for q in range(i0, i1):
            r, s = (o, q) if outer_r else (q, o)
            if alive_i[q] and within(R, S, r, s, eps):
                if not insert(buf_r, buf_s, count, r % n_slots, R, S, r, s, sign):
                    return -1
    return (a1 - a0) * (b1 - b0)
