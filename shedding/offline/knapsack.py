"""The budget solvers of static k-truncation (Das, Gehrke, Riedewald, SIGMOD 2003, §3.1.1).

Both return the budget use ``q_i`` of every component, on whichever of the dual (retain) or primal
(delete) form :mod:`.static` picked:

* :func:`dp_budget_use`: the paper's DP T(i, j) = max_q T(i-1, j-q) + C_i(q), over the gain
  tables of :func:`dp_over_tables` (which the band join's static truncation reuses);
* :func:`fast_budget_use`: an exact-weight knapsack over component shapes, with one designated
  partial copy per shape (the exchange argument is in :func:`.static.best_keep_fast`).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from shedding.errors import ShedError
from shedding.offline.components import component_gain

NEG = np.int64(-(2**62))  # "infeasible" in the knapsack tables; every real value is > NEG // 2
MAX_CELLS = 100_000_000  # largest back-tracking table (cells) a solver may allocate


def check_cells(cells: int, what: str) -> None:
    """Refuse a back-tracking table of more than :data:`MAX_CELLS` cells (``what`` names it)."""
    if cells > MAX_CELLS:
        raise ShedError(f"the {what} needs {cells:,} table cells (limit {MAX_CELLS:,}); shed fewer tuples or split the input")


def index_dtype(largest: int) -> np.dtype:
    """The smallest integer type that holds ``0 .. largest`` (for the back-tracking tables)."""
    return np.min_scalar_type(max(int(largest), 0))


def dp_budget_use(m: np.ndarray, n: np.ndarray, budget: int, deleting: bool) -> np.ndarray:
    """The paper's DP over components in input order (:func:`.static.best_keep_dp`); returns the
    budget use q_i of each component."""
    sizes = m + n
    return dp_over_tables([component_gain(int(mi), int(ni), np.arange(min(int(mi + ni), budget) + 1), deleting)
                           for mi, ni in zip(m.tolist(), n.tolist())], sizes, budget)


def dp_over_tables(gains: Sequence[np.ndarray], sizes: np.ndarray, budget: int) -> np.ndarray:
    """The paper's DP (§3.1.1) T(i, j) = max_q T(i-1, j-q) + g_i(q) for any per-component gain
    tables ``gains[i][q]``, q = 0..min(sizes[i], budget); returns the budget use q_i of each
    component (using exactly ``budget`` in all, which needs ``budget <= sum(sizes)``)."""
    sizes = np.asarray(sizes, dtype=np.int64)
    reach = np.minimum(np.cumsum(sizes), budget)  # row i covers j = 0..reach[i]
    check_cells(int(reach.sum()) + len(sizes), "paper DP")
    dtype = index_dtype(min(int(sizes.max()), budget) if len(sizes) else 0)
    table = np.zeros(1, dtype=np.int64)  # T(0, 0) = 0
    choices = []
    for i, size in enumerate(sizes.tolist()):
        qmax = min(size, budget)
        row = np.full(int(reach[i]) + 1, NEG, dtype=np.int64)
        choice = np.zeros(len(row), dtype=dtype)
        for q in range(qmax + 1):
            hi = min(len(row), q + len(table))  # j - q must index table
            cand = table[: hi - q] + gains[i][q]
            seg = row[q:hi]
            np.copyto(choice[q:hi], q, where=cand > seg)
            np.maximum(seg, cand, out=seg)
        table = row
        choices.append(choice)
    use = np.zeros(len(sizes), dtype=np.int64)
    j = budget
    for i in range(len(sizes) - 1, -1, -1):
        use[i] = choices[i][j]
        j -= int(use[i])
    return use


def _bundles(count: int) -> list[int]:
    """Binary split of a count (1, 2, 4, ..., rest): every 0..count is a sum of a sub-multiset."""
    out, size = [], 1
    while count > 0:
        take = min(size, count)
        out.append(take)
        count -= take
        size *= 2
    return out


def _add_copies(table: np.ndarray, weight: int, gain: int, count: int) -> np.ndarray:
    """Exact-weight knapsack table after adding ``count`` identical 0/1 items."""
    sizes = [size for size in _bundles(count) if size * weight < len(table)]
    if not sizes:
        return table
    table = table.copy()
    for size in sizes:
        w = size * weight  # the right-hand side is evaluated before the write: each bundle once
        np.maximum(table[w:], table[:-w] + size * gain, out=table[w:])
    return table


def fast_budget_use(m: np.ndarray, n: np.ndarray, budget: int, deleting: bool) -> np.ndarray:
    """The knapsack over component shapes (:func:`.static.best_keep_fast`, which proves it exact);
    returns the budget use q_i of each component."""
    lo, hi = np.minimum(m, n), np.maximum(m, n)
    shapes, inverse, counts = np.unique(np.stack([lo, hi], 1), axis=0, return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    weights = shapes.sum(1)
    full = shapes.prod(1) * (-1 if deleting else 1)  # gain of a fully used copy (offset form)
    check_cells(sum(len(_bundles(int(c))) for c in counts) * (budget + 1), "fast knapsack")
    best: list[int] = [int(NEG), 0, 0]  # value, shape, q of the designated copy

    def leaf(g: int, table: np.ndarray) -> None:
        table = _add_copies(table, int(weights[g]), int(full[g]), int(counts[g]) - 1)
        q = np.arange(min(int(weights[g]), budget) + 1)
        base = table[budget - q]
        partial = component_gain(int(shapes[g, 0]), int(shapes[g, 1]), q, deleting)
        vals = np.where(base > NEG // 2, base + partial - (shapes[g].prod() if deleting else 0), NEG)
        k = int(np.argmax(vals))
        if vals[k] > best[0]:
            best[:] = [vals[k], g, int(q[k])]

    def solve(first: int, last: int, table: np.ndarray) -> None:
        if last - first == 1:
            leaf(first, table)
            return
        mid = (first + last) // 2
        for lo_g, hi_g, (a, b) in ((first, mid, (mid, last)), (mid, last, (first, mid))):
            sub = table
            for g in range(a, b):
                sub = _add_copies(sub, int(weights[g]), int(full[g]), int(counts[g]))
            solve(lo_g, hi_g, sub)

    start = np.full(budget + 1, NEG, dtype=np.int64)
    start[0] = 0
    solve(0, len(shapes), start)
    _, g_star, q_star = best
    rest = counts.copy()
    rest[g_star] -= 1
    n_full = _track_knapsack(weights, full, rest, budget - q_star)
    # the first n_full[g] components of shape g are full, the next one of g_star is the partial one
    order = np.argsort(inverse, kind="stable")
    rank = np.empty(len(inverse), dtype=np.int64)
    rank[order] = np.arange(len(inverse)) - np.repeat(np.cumsum(counts) - counts, counts)
    use = np.where(rank < n_full[inverse], weights[inverse], 0)
    use[(inverse == g_star) & (rank == n_full[g_star])] = q_star
    return use


def _track_knapsack(weights: np.ndarray, gains: np.ndarray, counts: np.ndarray, target: int) -> np.ndarray:
    """Bounded exact-weight knapsack reaching ``target``; returns the full copies used per shape."""
    table = np.full(target + 1, NEG, dtype=np.int64)
    table[0] = 0
    steps = []  # (shape, bundle size, took-mask)
    for g, (w, gain, count) in enumerate(zip(weights.tolist(), gains.tolist(), counts.tolist())):
        for size in _bundles(count):
            span = size * w
            if span <= target:
                cand = table[: len(table) - span] + size * gain
                took = np.zeros(len(table), dtype=bool)
                took[span:] = cand > table[span:]
                np.maximum(table[span:], cand, out=table[span:])
                steps.append((g, size, took))
    used = np.zeros(len(weights), dtype=np.int64)
    j = target
    for g, size, took in reversed(steps):
        if took[j]:
            used[g] += size
            j -= size * int(weights[g])
    return used
