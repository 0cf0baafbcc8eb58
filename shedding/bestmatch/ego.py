"""The epsilon-Grid-Order of Kemper/Stegmaier 2002, §3.3 (after Böhm and Kriegel's Epsilon Grid Order).

The grid has cells of edge eps_i in dimension i; a point q can only be a join mate of p if its cell
is within one cell of p's in every dimension (§3.3.1). MatWin's windows are eps_1 high in the sorted
dimension y_1, so the grid here covers y_2..y_d (as the paper's Figure 5 leaves y_1 out), and every
cell keeps its tuples in y_1 order ("in every cell ... the sorting according to y_1 can be
preserved", §3.3.2): a window's part is found in a cell by binary search. The cell lists are built in
one pass over S, which gives the same lists as appending every arriving s to its cell.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from shedding.errors import ShedError
from shedding.bestmatch.skyline import offer, within
from shedding.jit import njit

MAX_CELLS = 1 << 24


@dataclass(frozen=True)
class Grid:
    """Cells of dims 1..d-1: ``width``, ``base``, ``shape`` per dim; R's and S's tuple indices by
    cell (CSR: cell c holds ``members[start[c]:start[c + 1]]``, ascending)."""

    width: np.ndarray
    base: np.ndarray
    shape: np.ndarray
    start_r: np.ndarray
    members_r: np.ndarray
    start_s: np.ndarray
    members_s: np.ndarray


def build_grid(R: np.ndarray, S: np.ndarray, eps: np.ndarray) -> Grid:
    """The eps-grid over y_2..y_d of both relations (an eps_i of 0 gets cells one unit wide)."""
    d = R.shape[1]
    both = np.concatenate([R[:, 1:], S[:, 1:]]) if d > 1 else np.zeros((0, 0), dtype=np.int64)
    width = np.maximum(eps[1:], 1).astype(np.int64)
    base = both.min(axis=0) if len(both) else np.zeros(d - 1, dtype=np.int64)
    top = both.max(axis=0) if len(both) else np.zeros(d - 1, dtype=np.int64)
    shape = ((top - base) // width + 1).astype(np.int64)
    if float(np.prod(shape.astype(float))) > MAX_CELLS:
        raise ShedError(f"the eps-grid would have {float(np.prod(shape.astype(float))):.3g} cells (more than "
                        f"{MAX_CELLS:,}); use {{param}} matwin, or larger eps", param="algorithm")
    return Grid(width, base, shape, *_cells(R, width, base, shape), *_cells(S, width, base, shape))


def _cells(X: np.ndarray, width: np.ndarray, base: np.ndarray, shape: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    cells = cell_ids(X, width, base, shape)
    members = np.argsort(cells, kind="stable").astype(np.int64)
    start = np.zeros(int(np.prod(shape)) + 1, dtype=np.int64)
    np.cumsum(np.bincount(cells, minlength=len(start) - 1), out=start[1:])
    return start, members


def cell_ids(X: np.ndarray, width: np.ndarray, base: np.ndarray, shape: np.ndarray) -> np.ndarray:
    """The linear cell id of every row of X (dims 1..d-1, mixed radix)."""
    ids = np.zeros(len(X), dtype=np.int64)
    for i in range(len(width)):
        ids = ids * shape[i] + (X[:, i + 1] - base[i]) // width[i]
    return ids


@njit
def probe_grid(buf: np.ndarray, count: np.ndarray, n_slots: int, s_slots: int | None, R: np.ndarray,
               S: np.ndarray, a0: int, a1: int, b0: int, b1: int, eps: np.ndarray, sign: np.ndarray,
               alive_r: np.ndarray, alive_s: np.ndarray, width: np.ndarray, base: np.ndarray, shape: np.ndarray,
               start_r: np.ndarray, members_r: np.ndarray, start_s: np.ndarray, members_s: np.ndarray) -> int:
    """:func:`.skyline.probe` through the grid: every tuple of the smaller range reads only the
    3^(d-1) cells around its own in the other relation's grid, and in each cell only the tuples
    of the other range (binary search; cells keep y_1 order); pairs go to :func:`.skyline.offer`.
    Returns pairs tested or -1 (full)."""
    outer_r = a1 - a0 <= b1 - b0
    o0, o1 = (a0, a1) if outer_r else (b0, b1)
    i0, i1 = (b0, b1) if outer_r else (a0, a1)
    X = R if outer_r else S
    alive_o = alive_r if outer_r else alive_s
    alive_i = alive_s if outer_r else alive_r
    start = start_s if outer_r else start_r
    members = members_s if outer_r else members_r
    g = len(width)
    tested = 0
    for o in range(o0, o1):
        if not alive_o[o]:
            continue
        for combo in range(3**g):
            lin = 0
            rest = combo
            ok = True
            for i in range(g):
                c = (X[o, i + 1] - base[i]) // width[i] + (rest % 3) - 1
                rest //= 3
                if c < 0 or c >= shape[i]:
                    ok = False
                    break
                lin = lin * shape[i] + c
            if not ok:
                continue
            lo, hi = start[lin], start[lin + 1]
            p = lo + np.searchsorted(members[lo:hi], i0)
            while p < hi and members[p] < i1:
                q = members[p]
                p += 1
                tested += 1
                r, s = (o, q) if outer_r else (q, o)
                if alive_i[q] and within(R, S, r, s, eps) and not offer(buf, count, n_slots, s_slots, R, S, r, s,
                                                                        sign):
                    return -1
    return tested
