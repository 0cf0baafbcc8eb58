"""MatWin, the window algorithm for the constrained bestmatch joins (Kemper/Stegmaier 2002, §3.2,
Algorithm 2; the TUM page "The Window Algorithm").

Both inputs are sorted on y_1. Two data windows W_R, W_S share the bounds [minRS, maxRS] of
height eps_1; after the windows are filled (MaterializeWindows), a fresh window pair is joined whole,
a moved one only as W'_R x dS and dR x (W'_S u dS), so no pair is offered twice. Then the tuples on
minRS leave W_R and the bounds move by one of the four cases of lines 19-29; S tuples below the
new minRS leave W_S, and the buffered pairs of every r below minRS are final and are output (the
left-outer operator is pipelined; the BMJ outputs at the end). Bounds are exact integers
(:mod:`.values`), so every move is strictly upward and the loop ends.

"Of course, instead of the constrained left-outer-BMJ the other constrained BMJ-operators can be
utilized" (§3.2): the right-outer side keeps a buffer slot per s, and an s is final when it leaves
W_S (s.y_1 < minRS): every r within eps_1 of it has been read by then and met it. So the
constrained right- and full-outer BMJ are pipelined in the same single pass.

Windows are index ranges of the sorted inputs. Load shedding (:mod:`.shed`) gives the windows room
for at most ``memory`` tuples: after each fill the lowest-priority tuples of W_R u W_S leave for good.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from shedding.bestmatch.ego import Grid, build_grid, probe_grid
from shedding.bestmatch.skyline import emit, grow, new_buffer, probe
from shedding.jit import njit


@dataclass(frozen=True)
class MatWinStats:
    """Steps (window moves), the most tuples held in W_R u W_S, pairs tested, tuples shed."""

    steps: int
    peak_memory: int
    tested: int
    dropped: int


@njit
def _shed(alive_r: np.ndarray, alive_s: np.ndarray, R: np.ndarray, S: np.ndarray, rlo: int, rhi: int, slo: int,
          shi: int, excess: int, prio_r: np.ndarray, prio_s: np.ndarray, ahead: bool, eps1: int,
          max_rs: int) -> None:
    """Drop the ``excess`` lowest-priority live tuples of the windows (ties: R before S, older
    first). With ``ahead`` a priority is scaled by the part of its eps_1-range still to come."""
    n = 0
    for j in range(rlo, rhi):
        n += alive_r[j]
    for j in range(slo, shi):
        n += alive_s[j]
    who = np.empty(n, dtype=np.int64)
    prio = np.empty(n, dtype=np.float64)
    k = 0
    nr = R.shape[0]
    for j in range(rlo, rhi):
        if alive_r[j]:
            who[k] = j
            prio[k] = prio_r[j] * ((R[j, 0] + eps1 - max_rs + 1) / (2.0 * eps1 + 1) if ahead else 1.0)
            k += 1
    for j in range(slo, shi):
        if alive_s[j]:
            who[k] = nr + j
            prio[k] = prio_s[j] * ((S[j, 0] + eps1 - max_rs + 1) / (2.0 * eps1 + 1) if ahead else 1.0)
            k += 1
    order = np.argsort(prio, kind="mergesort")
    for q in range(excess):
        j = who[order[q]]
        if j < nr:
            alive_r[j] = False
        else:
            alive_s[j - nr] = False


@njit
def _update(buf, count, n_slots, s_slots, R, S, a0, a1, b0, b1, eps, sign, alive_r, alive_s,
            ego, grid):
    """Update(O, R[a0:a1], S[b0:b1]) of Algorithm 2; returns the buffer and the pairs tested."""
    k = -1
    while k < 0:  # a slot ran full: grow the buffer and offer the pairs again (idempotent)
        if ego:
            k = probe_grid(buf, count, n_slots, s_slots, R, S, a0, a1, b0, b1, eps, sign, alive_r, alive_s, *grid)
        else:
            k = probe(buf, count, n_slots, s_slots, R, S, a0, a1, b0, b1, eps, sign, alive_r, alive_s)
        if k < 0:
            buf = grow(buf)
    return buf, k


@njit
def matwin_kernel(R, S, eps, sign, left_outer, n_slots, s_slots, literal, buf, count, memory, prio_r,
                  prio_s, ahead, ego, grid):
    """Algorithm 2. Returns rows (r, s, stamp), stamp = input tuples read when the pair was output,
    and the statistics (steps, peak memory, pairs tested, tuples dropped). ``n_slots``: r's slots
    (1 for the BMJ, 0 without a left side); ``s_slots``: s's slots (None without a right side)."""
    nr, ns = R.shape[0], S.shape[0]
    out = np.empty((16, 3), dtype=np.int64)
    n_out = 0
    stats = np.zeros(4, dtype=np.int64)
    if nr == 0:
        return out[:0], stats
    alive_r = np.ones(nr, dtype=np.bool_)
    alive_s = np.ones(ns, dtype=np.bool_)
    eps1 = eps[0]
    rlo = rhi = slo = shi = 0
    emitted = 0
    min_rs = R[0, 0] - eps1  # line 5 (without the paper's max(0, .): values may be negative)
    max_rs = min_rs + eps1
    fresh = True
    held = 0
    while True:
        # MaterializeWindows (Algorithm 3): read every tuple with y_1 <= maxRS
        old_rhi, old_shi = rhi, shi
        while rhi < nr and R[rhi, 0] <= max_rs:
            rhi += 1
            held += 1
        while shi < ns and S[shi, 0] <= max_rs:
            if S[shi, 0] < min_rs:  # below the window: never a join mate of a later r
                alive_s[shi] = False
            else:
                held += 1
            shi += 1
        while slo < shi and not alive_s[slo]:
            slo += 1
        if memory >= 0 and held > memory:
            _shed(alive_r, alive_s, R, S, rlo, rhi, slo, shi, held - memory, prio_r, prio_s, ahead, eps1, max_rs)
            stats[3] += held - memory
            held = memory
        stats[1] = max(stats[1], held)
        if fresh:  # lines 10-11: new windows
            buf, k = _update(buf, count, n_slots, s_slots, R, S, rlo, rhi, slo, shi, eps, sign,
                             alive_r, alive_s, ego, grid)
            stats[2] += k
        else:  # lines 12-14: moved windows, W'_R x dS and dR x (W'_S u dS)
            buf, k = _update(buf, count, n_slots, s_slots, R, S, rlo, old_rhi, max(old_shi, slo), shi, eps,
                             sign, alive_r, alive_s, ego, grid)
            stats[2] += k
            buf, k = _update(buf, count, n_slots, s_slots, R, S, old_rhi, rhi, slo, shi, eps, sign,
                             alive_r, alive_s, ego, grid)
            stats[2] += k
        stats[0] += 1
        fresh = False
        # line 18: the tuples on minRS leave W_R (and shed ones at its front)
        while rlo < rhi and (not alive_r[rlo] or R[rlo, 0] == min_rs):
            held -= alive_r[rlo]
            alive_r[rlo] = False
            rlo += 1
        more = rhi < nr
        old_min = min_rs
        if not more and rlo == rhi:  # lines 19-20
            break
        elif not more:  # lines 21-22
            min_rs = R[rlo, 0]
        elif rlo < rhi:  # lines 23-24
            min_rs = min(R[rlo, 0], R[rhi, 0] - eps1)
        else:  # lines 25-27: W_R ran empty, start afresh at the next r
            min_rs = R[rhi, 0] - eps1
            fresh = True
        if min_rs <= old_min:
            raise RuntimeError("MatWin: the window bounds did not move (internal error)")
        max_rs = min_rs + eps1
        # line 30: S below minRS leaves W_S (an s that was in W_S has met all its partners)
        while slo < shi and (not alive_s[slo] or S[slo, 0] < min_rs):
            if s_slots is not None and alive_s[slo]:
                out, n_out = emit(buf, count, n_slots + slo % s_slots, out, n_out, rhi + shi, R, S, literal)
            held -= alive_s[slo]
            alive_s[slo] = False
            slo += 1
        # line 31: the pairs of every r below minRS are final
        if left_outer:
            for r in range(emitted, rlo):
                out, n_out = emit(buf, count, r % n_slots, out, n_out, rhi + shi, R, S, literal)
            emitted = rlo
    if left_outer:
        for r in range(emitted, nr):
            out, n_out = emit(buf, count, r % n_slots, out, n_out, rhi + shi, R, S, literal)
    elif n_slots > 0:
        out, n_out = emit(buf, count, 0, out, n_out, rhi + shi, R, S, literal)
    if s_slots is not None:
        for s in range(slo, shi):
            if alive_s[s]:
                out, n_out = emit(buf, count, n_slots + s % s_slots, out, n_out, rhi + shi, R, S, literal)
    return out[:n_out], stats


@njit
def widest_window(y1: np.ndarray, eps1: int) -> int:
    """The most sorted values in any closed interval of length eps_1 (room for W_R's slots)."""
    best = 0
    lo = 0
    for hi in range(len(y1)):
        while y1[hi] - y1[lo] > eps1:
            lo += 1
        best = max(best, hi - lo + 1)
    return best


def matwin(R: np.ndarray, S: np.ndarray, eps: np.ndarray, sign: np.ndarray, left_outer: bool, *,
           right_outer: bool = False, literal: bool = False, ego: bool = False, memory: int = -1,
           prio_r: np.ndarray | None = None, prio_s: np.ndarray | None = None,
           ahead: bool = False) -> tuple[np.ndarray, MatWinStats]:
    """Run MatWin on R, S sorted by y_1 for the BMJ (neither outer side) or the left-, right- or
    full-outer BMJ (a full-outer pair best for both its tuples comes twice); ``literal`` takes
    §2.1's literal dominance; ``ego`` probes through the eps-grid (§3.3). Returns rows (r, s,
    stamp) and the statistics. ``memory`` >= 0 sheds to that many tuples by the priorities."""
    n_slots = (widest_window(R[:, 0], int(eps[0])) + 1) if left_outer else 0 if right_outer else 1
    s_slots = (widest_window(S[:, 0], int(eps[0])) + 1) if right_outer else None
    buf, count = new_buffer(n_slots + (s_slots or 0), R.shape[1])
    grid = build_grid(R, S, eps) if ego else _NO_GRID
    prio_r = np.zeros(len(R)) if prio_r is None else prio_r
    prio_s = np.zeros(len(S)) if prio_s is None else prio_s
    out, stats = matwin_kernel(R, S, eps, sign, left_outer, n_slots, s_slots, literal, buf, count, memory, prio_r,
                               prio_s, ahead, ego, (grid.width, grid.base, grid.shape, grid.start_r, grid.members_r,
                                            grid.start_s, grid.members_s))
    return out, MatWinStats(*(int(x) for x in stats))


_NO_GRID = Grid(np.ones(0, np.int64), np.zeros(0, np.int64), np.ones(0, np.int64), np.zeros(2, np.int64),
                np.zeros(0, np.int64), np.zeros(2, np.int64), np.zeros(0, np.int64))
