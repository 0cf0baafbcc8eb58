"""The best-pair buffer O of the bestmatch joins (Kemper/Stegmaier 2002, §2.1, §3.2).

Pairs are compared with the partial order of §2.1: per dimension ``f_i(r, s) = |r.y_i - s.y_i|``
(``minAttrDist``; ``maxAttrDist`` negates it, so a larger distance is better), and
``(r x s)`` dominates ``(r' x s')`` when it is at least as good in every dimension and better in
one (Pareto). A buffer slot holds the pairs of one left tuple (the left-outer operators), of one
right tuple (the right-outer operators) or all pairs (the BMJ), none dominating another;
:func:`insert` keeps it so. Everything works on the exact integers of :mod:`.values`.

The literal reading of §2.1 ("<= in every dimension and the pairs differ" on the join attributes)
differs from the Pareto one only on ties: two pairs with equal distance vectors whose tuples
differ dominate each other, so both leave. A slot keeps the Pareto skyline, which holds every
pair the literal reading could keep, and :func:`emit` removes such ties when it outputs a slot.
"""

from __future__ import annotations

import numpy as np

from shedding.errors import ShedError
from shedding.jit import njit

ORDERS = {"minattrdist": 1, "maxattrdist": -1}  # f_i sign: smaller resp. larger |r.y_i - s.y_i| is better
UNBOUNDED = np.int64(2**62)  # eps of an unconstrained operator: every pair qualifies
#: the readings of §2.1's dominance: Pareto (better in one dimension) or literal (the pairs differ)
DOMINANCE = ("pareto", "literal")


def is_literal(dominance: str) -> bool:
    """Whether ``dominance`` names the literal reading; unknown names raise a one-line ShedError."""
    key = dominance.strip().lower()
    if key not in DOMINANCE:
        raise ShedError(f"unknown {{param}} {dominance!r}; choose from {', '.join(DOMINANCE)}", param="dominance")
    return key == "literal"


@njit
def within(R: np.ndarray, S: np.ndarray, r: int, s: int, eps: np.ndarray) -> bool:
    """d(r, s) <= eps (§2.3): every |r.y_i - s.y_i| <= eps_i."""
    for i in range(R.shape[1]):
        if abs(R[r, i] - S[s, i]) > eps[i]:
            return False
    return True


@njit(inline="always")
def insert(buf: np.ndarray, count: np.ndarray, slot: int, R: np.ndarray, S: np.ndarray, r: int, s: int,
           sign: np.ndarray) -> bool:
    """Offer (r x s) to buffer ``slot``: it is dropped if a buffered pair dominates it (or is it),
    otherwise it enters and every pair it dominates leaves (§3.2, Update). Returns False only if
    the slot is full (nothing changed then: grow the buffer and offer again).

    A buffered pair is the row (r, s, f_1, ..., f_d) with f_i = sign_i * |r.y_i - s.y_i|, so the
    comparisons read the slot only. No pair is removed before a dominating one is found: a pair
    that dominates the new one cannot coexist with a pair the new one dominates (transitivity), so
    the scan either rejects or compacts. Offering a pair twice changes nothing, so a probe can be
    repeated after the buffer grew. Equal distance vectors are incomparable: both stay.

    Inlined where it is called (:func:`offer`): a call of a jitted function counts references to
    its array arguments on entry and exit, so a pair pays that once, in the call of offer.
    """
    d = R.shape[1]
    keep = 0
    n = count[slot]
    for j in range(n):
        if buf[slot, j, 0] == r and buf[slot, j, 1] == s:
            return True
        better = False
        worse = False
        for i in range(d):
            a = sign[i] * abs(R[r, i] - S[s, i])
            b = buf[slot, j, 2 + i]
            if a < b:
                better = True
            elif a > b:
                worse = True
        if worse and not better:  # the buffered pair dominates (r x s)
            return True
        if better and not worse:  # (r x s) dominates the buffered pair: it leaves
            continue
        if keep != j:
            buf[slot, keep, :] = buf[slot, j, :]
        keep += 1
    count[slot] = keep
    if keep == buf.shape[1]:
        return False
    buf[slot, keep, 0] = r
    buf[slot, keep, 1] = s
    for i in range(d):
        buf[slot, keep, 2 + i] = sign[i] * abs(R[r, i] - S[s, i])
    count[slot] = keep + 1
    return True


@njit
def grow(buf: np.ndarray) -> np.ndarray:
    """The buffer with twice the room per slot."""
    slots, width, cols = buf.shape
    bigger = np.empty((slots, 2 * width, cols), dtype=np.int64)
    bigger[:, :width] = buf
    return bigger


@njit
def drop_ties(buf: np.ndarray, count: np.ndarray, slot: int, R: np.ndarray, S: np.ndarray) -> None:
    """The literal reading of §2.1 on a slot's skyline: remove every pair whose distance vector
    equals another pair's while the two differ on the join attributes (each dominates the other)."""
    n = count[slot]
    d = R.shape[1]
    tied = np.zeros(n, dtype=np.bool_)
    for j in range(n):
        for k in range(j + 1, n):
            same = True
            for i in range(d):
                if buf[slot, j, 2 + i] != buf[slot, k, 2 + i]:
                    same = False
                    break
            if not same:
                continue
            rj, sj, rk, sk = buf[slot, j, 0], buf[slot, j, 1], buf[slot, k, 0], buf[slot, k, 1]
            for i in range(d):
                if R[rj, i] != R[rk, i] or S[sj, i] != S[sk, i]:
                    tied[j] = True
                    tied[k] = True
                    break
    keep = 0
    for j in range(n):
        if not tied[j]:
            if keep != j:
                buf[slot, keep, :] = buf[slot, j, :]
            keep += 1
    count[slot] = keep


@njit
def emit(buf: np.ndarray, count: np.ndarray, slot: int, out: np.ndarray, n_out: int, stamp: int, R: np.ndarray,
         S: np.ndarray, literal: bool) -> tuple[np.ndarray, int]:
    """Append the pairs of ``slot`` to ``out`` (rows r, s, stamp), empty the slot; returns (out,
    n_out). With ``literal`` the ties of the literal reading leave first (:func:`drop_ties`)."""
    if literal:
        drop_ties(buf, count, slot, R, S)
    n = count[slot]
    if n_out + n > out.shape[0]:
        bigger = np.empty((max(2 * out.shape[0], n_out + n), 3), dtype=np.int64)
        bigger[:n_out] = out[:n_out]
        out = bigger
    for j in range(n):
        out[n_out, 0] = buf[slot, j, 0]
        out[n_out, 1] = buf[slot, j, 1]
        out[n_out, 2] = stamp
        n_out += 1
    count[slot] = 0
    return out, n_out


def new_buffer(slots: int, dims: int, width: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """An empty buffer of ``slots`` slots: rows (r, s, f_1..f_d) and the count per slot."""
    return np.empty((slots, width, 2 + dims), dtype=np.int64), np.zeros(slots, dtype=np.int64)


@njit
def offer(buf: np.ndarray, count: np.ndarray, n_slots: int, s_slots: int | None, R: np.ndarray, S: np.ndarray,
          r: int, s: int, sign: np.ndarray) -> bool:
    """Offer (r x s) to the slot of r (``r % n_slots``; none when ``n_slots`` is 0) and to the slot
    of s (``n_slots + s % s_slots``); False if a slot ran full. Without a right side ``s_slots`` is
    None, and numba compiles that case on its own with the right side pruned: the BMJ and the
    left-outer operators run exactly one :func:`insert` per pair."""
    if s_slots is None:
        return insert(buf, count, r % n_slots, R, S, r, s, sign)
    if n_slots > 0 and not insert(buf, count, r % n_slots, R, S, r, s, sign):
        return False
    return insert(buf, count, n_slots + s % s_slots, R, S, r, s, sign)


@njit
def probe(buf: np.ndarray, count: np.ndarray, n_slots: int, s_slots: int | None, R: np.ndarray, S: np.ndarray,
          a0: int, a1: int, b0: int, b1: int, eps: np.ndarray, sign: np.ndarray, alive_r: np.ndarray,
          alive_s: np.ndarray) -> int:
    """Update(O, R[a0:a1], S[b0:b1]) of §3.2: :func:`offer` every live pair with d(r, s) <= eps
    (one slot holds every pair when ``n_slots`` is 1 and ``s_slots`` None); the shorter range is
    the outer loop. Returns the pairs tested, or -1 if a slot ran full: grow the buffer and probe
    again (offering a pair twice changes nothing, so the repeat gives the same buffer)."""
    outer_r = a1 - a0 <= b1 - b0
    o0, o1, i0, i1 = (a0, a1, b0, b1) if outer_r else (b0, b1, a0, a1)
    alive_o, alive_i = (alive_r, alive_s) if outer_r else (alive_s, alive_r)
    for o in range(o0, o1):
        if alive_o[o]:
            for q in range(i0, i1):
                r, s = (o, q) if outer_r else (q, o)
                if alive_i[q] and within(R, S, r, s, eps) and not offer(buf, count, n_slots, s_slots, R, S, r, s,
                                                                        sign):
                    return -1
    return (a1 - a0) * (b1 - b0)
