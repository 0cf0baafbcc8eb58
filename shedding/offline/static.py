"""Static k-truncation of a two-relation equi-join (Das, Gehrke, Riedewald, SIGMOD 2003, §3.1).

The join graph of A and B on an equality predicate is a disjoint union of complete bipartite
*Kuratowski components* K(m, n): m tuples of A and n tuples of B share one join value, and the
component produces m * n output tuples. Dropping a tuple deletes its node and every incident edge.

* **keep / drop** (paper §3.1, primal and dual): retain exactly ``keep`` of the nodes (drop the
  rest) so that the retained output is as large as possible.
* **drop_a / drop_b** (the paper's k_A, k_B variant): drop exactly ``drop_a`` tuples of A and
  ``drop_b`` of B. Dropping more never adds output, so "at most" has the same optimum; the result
  always drops exactly the requested numbers.

Within one component, retaining p nodes yields at most
``C_(m,n)(p) = max{a * b : a + b = p, a <= m, b <= n}``, reached by the most balanced split
(:func:`best_split`). Components with m = 0 or n = 0 (keys on one side only) produce nothing: their
tuples are dropped first, for free, and retained only when ``keep`` exceeds the useful nodes.

Every solver works on whichever of the dual (retain B nodes) or primal (delete B nodes) form has
the smaller budget B (per relation for the k_A, k_B variant); the paper notes the two are
equivalent (§3.1), and the small side keeps the tables small when only a few tuples are shed.

The components and C_(m,n)(p) live in :mod:`.components`, the budget solvers in :mod:`.knapsack`;
the names a caller needs are importable from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from shedding.errors import ShedError
from shedding.offline.components import (
    Components,
    as_components,
    best_split,
    component_output,
    components_from_keys,
    fill_in_order,
    parse_components,
    whole_number,
)
from shedding.offline.knapsack import NEG, check_cells, dp_budget_use, fast_budget_use, index_dtype

__all__ = [
    "Components", "StaticResult", "best_drop_ab_dp", "best_keep_dp", "best_keep_fast", "best_split",
    "component_output", "components_from_keys", "parse_components", "static_truncation",
]


@dataclass(frozen=True)
class StaticResult:
    """An optimal static truncation: tuples of A and B kept in every component.

    ``method`` is the algorithm that ran (``"fast"`` or ``"dp"``), ``problem`` is ``"keep"`` (k
    nodes overall) or ``"drop_ab"`` (k_A, k_B variant).
    """

    method: str
    problem: str
    components: Components
    kept_a: np.ndarray
    kept_b: np.ndarray

    @property
    def output(self) -> int:
        """Retained join output, sum of kept_a * kept_b."""
        return int(np.dot(self.kept_a, self.kept_b))

    @property
    def kept(self) -> int:
        return int(self.kept_a.sum() + self.kept_b.sum())

    def summary(self) -> dict:
        """The headline figures (JSON-ready)."""
        comps, total = self.components, self.components.output
        return {
            "method": self.method,
            "problem": self.problem,
            "components": len(comps),
            "tuples_a": int(comps.m.sum()),
            "tuples_b": int(comps.n.sum()),
            "kept_a": int(self.kept_a.sum()),
            "kept_b": int(self.kept_b.sum()),
            "dropped_a": int(comps.m.sum() - self.kept_a.sum()),
            "dropped_b": int(comps.n.sum() - self.kept_b.sum()),
            "output": self.output,
            "total_output": total,
            "retained_fraction": self.output / total if total else 1.0,
        }

    def rows(self) -> list[dict]:
        """One row per component: key, m, n, kept_a, kept_b, output (JSON-ready)."""
        return [
            {"key": _plain(key), "m": m, "n": n, "kept_a": a, "kept_b": b, "output": a * b}
            for (m, n, key), a, b in zip(self.components, self.kept_a.tolist(), self.kept_b.tolist())
        ]

    def as_dict(self) -> dict:
        """``summary()`` plus the per-component ``rows()`` under ``"rows"``."""
        return {**self.summary(), "rows": self.rows()}


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value (for JSON)."""
    return value.item() if isinstance(value, np.generic) else value


# ----------------------------------------------------------------------------- keep k nodes


def best_keep_dp(components: Any, keep: int) -> StaticResult:
    """The paper's dynamic program (§3.1.1): retain ``keep`` nodes maximizing the retained output.

    T(i, j) = max_p T(i-1, j-p) + C_i(p): one row per component, each row a max-plus convolution
    vectorized over j (a Python loop over p only). Row i is limited to j <= nodes of the first i
    components, so every cell is feasible. It runs on the smaller of the dual (retain B = keep
    useful nodes) and primal (delete B) forms, in O(B * sum_i min(N_i, B)) <= O(c B^2) time and
    O(c B) memory for the back-tracking table.
    """
    return _solve_keep(components, keep, "dp", dp_budget_use)


def best_keep_fast(components: Any, keep: int) -> StaticResult:
    """Same optimum as :func:`best_keep_dp`, by knapsack over component shapes.

    **Exchange argument.** Let g_i(q) be the output of component i as a function of its budget
    use q in 0..N_i (N_i = m_i + n_i): g_i = C_i when retaining, q -> C_i(N_i - q) when deleting.
    Both are convex (C_i has nondecreasing increments ceil(p/2), then min(m_i, n_i)). Suppose an
    optimal solution has two partial components i, j (0 < q_i < N_i, 0 < q_j < N_j). Moving t
    units from j to i keeps the budget; phi(t) = g_i(q_i + t) + g_j(q_j - t) is convex on the
    integer interval where both stay within bounds, which contains 0. A convex function attains
    its maximum over an interval at an endpoint, and at either endpoint i or j is empty or full.
    So phi(endpoint) >= phi(0) with one partial component fewer; repeating, some optimal
    solution has every component full or empty except at most one.

    **Algorithm.** Full/empty choices form a 0/1 knapsack with exact weight (weights N_i, gains
    m_i n_i, or -m_i n_i when deleting). Identical shapes {min(m,n), max(m,n)} are grouped and
    their count c_g split into binary bundles 1, 2, 4, ... (a bounded knapsack: exact for
    identical items). The partial component is handled by one designated copy per shape: the
    knapsack *of everything but that copy* is computed for every shape at once by divide and
    conquer over shapes (each half is added to the table passed to the other half), and at the
    leaf the copy takes every q in 0..N_g (q = 0 or N_g covers "no partial"). Cost: O(B * b *
    log d) for d shapes with b bundles in all (b <= c, so O(c B log c) in the worst case, much
    less when shapes repeat), plus one tracked knapsack to recover the choice.

    A plain DP with a "partial used" flag would need a convex max-plus convolution per component,
    which costs O(B N_i) again; the designated-copy decomposition avoids it.
    """
    return _solve_keep(components, keep, "fast", fast_budget_use)


_Chooser = Callable[[np.ndarray, np.ndarray, int, bool], np.ndarray]


def _solve_keep(components: Any, keep: int, method: str, choose: _Chooser) -> StaticResult:
    comps = as_components(components)
    keep = whole_number(keep, "keep")
    if keep > comps.nodes:
        raise ShedError(f"{{param}} {keep} exceeds the {comps.nodes} tuples in the components; use {{param}} <= "
                        f"{comps.nodes}", param="keep")
    m, n = comps.m, comps.n
    useful = (m > 0) & (n > 0)
    sizes = m + n
    retained = np.zeros(len(comps), dtype=np.int64)
    useful_nodes = int(sizes[useful].sum())
    keep_useful = min(keep, useful_nodes)
    deleting = useful_nodes - keep_useful < keep_useful
    budget = useful_nodes - keep_useful if deleting else keep_useful
    if useful.any():
        use = choose(m[useful], n[useful], budget, deleting)
        retained[useful] = sizes[useful] - use if deleting else use
    retained[~useful] = fill_in_order(sizes[~useful], keep - keep_useful)
    kept_a, kept_b = best_split(m, n, retained)
    return StaticResult(method, "keep", comps, kept_a, kept_b)


# ----------------------------------------------------------------------------- k_A, k_B variant


def best_drop_ab_dp(components: Any, drop_a: int, drop_b: int) -> StaticResult:
    """The k_A, k_B variant (§3.1.1, last paragraph): drop exactly ``drop_a`` tuples of A and
    ``drop_b`` of B maximizing the retained output, by the paper's 3-D table T(i, x, y).

    Tuples of one-sided components are dropped first (they cost no output). Each side is indexed
    by the smaller of its retained and deleted counts (U_A, U_B); row i is a 2-D max-plus
    convolution with the table a * b of the component, vectorized over (x, y): O(sum_i m_i n_i *
    U_A U_B) time in the worst case.

    No faster exact method is provided. With b fixed, the objective sum a_i b_i is linear in a,
    so a greedy fill shows some optimum has at most one partial component per side; but the
    partial components (possibly one and the same, partial on both sides) still need a 2-D
    convolution per candidate, so that structure does not beat this DP in the worst case.
    """
    comps = as_components(components)
    drop_a, drop_b = whole_number(drop_a, "drop_a"), whole_number(drop_b, "drop_b")
    m, n = comps.m, comps.n
    for name, value, total in (("drop_a", drop_a, int(m.sum())), ("drop_b", drop_b, int(n.sum()))):
        if value > total:
            side = name[-1].upper()
            raise ShedError(f"{{param}} {value} exceeds the {total} tuples of {side}; use {{param}} <= {total}",
                            param=name)
    useful = (m > 0) & (n > 0)
    kept_a, kept_b = m.copy(), n.copy()
    # one-sided tuples first: the rest of each drop goes to the useful components
    free_a, free_b = (n == 0) & (m > 0), (m == 0) & (n > 0)
    kept_a[free_a] -= fill_in_order(m[free_a], drop_a)
    kept_b[free_b] -= fill_in_order(n[free_b], drop_b)
    rest_a = drop_a - int(m[free_a].sum() - kept_a[free_a].sum())
    rest_b = drop_b - int(n[free_b].sum() - kept_b[free_b].sum())
    if useful.any():
        kept_a[useful], kept_b[useful] = _dp_ab(m[useful], n[useful], rest_a, rest_b)
    return StaticResult("dp", "drop_ab", comps, kept_a, kept_b)


def _dp_ab(m: np.ndarray, n: np.ndarray, drop_a: int, drop_b: int) -> tuple[np.ndarray, np.ndarray]:
    """3-D DP over (component, x, y); x, y count deleted or retained tuples, whichever is fewer."""
    del_a, del_b = drop_a <= int(m.sum()) - drop_a, drop_b <= int(n.sum()) - drop_b
    ua = drop_a if del_a else int(m.sum()) - drop_a
    ub = drop_b if del_b else int(n.sum()) - drop_b
    reach_a, reach_b = np.minimum(np.cumsum(m), ua), np.minimum(np.cumsum(n), ub)
    check_cells(int(((reach_a + 1) * (reach_b + 1)).sum()), "k_A, k_B DP")
    dtype = index_dtype((min(int(m.max()), ua) + 1) * (min(int(n.max()), ub) + 1))
    table = np.zeros((1, 1), dtype=np.int64)
    choices = []
    for i, (mi, ni) in enumerate(zip(m.tolist(), n.tolist())):
        us, vs = np.arange(min(mi, ua) + 1), np.arange(min(ni, ub) + 1)
        gains = np.outer(mi - us if del_a else us, ni - vs if del_b else vs)
        row = np.full((int(reach_a[i]) + 1, int(reach_b[i]) + 1), NEG, dtype=np.int64)
        choice = np.zeros(row.shape, dtype=dtype)
        for u in us.tolist():
            hx = min(row.shape[0], u + table.shape[0])
            for v in vs.tolist():
                hy = min(row.shape[1], v + table.shape[1])
                cand = table[: hx - u, : hy - v] + gains[u, v]
                seg = row[u:hx, v:hy]
                np.copyto(choice[u:hx, v:hy], u * len(vs) + v, where=cand > seg)
                np.maximum(seg, cand, out=seg)
        table = row
        choices.append((choice, len(vs)))
    use_a, use_b = np.zeros(len(m), dtype=np.int64), np.zeros(len(m), dtype=np.int64)
    x, y = ua, ub
    for i in range(len(m) - 1, -1, -1):
        choice, width = choices[i]
        use_a[i], use_b[i] = divmod(int(choice[x, y]), width)
        x, y = x - int(use_a[i]), y - int(use_b[i])
    return (m - use_a if del_a else use_a), (n - use_b if del_b else use_b)


# ----------------------------------------------------------------------------- dispatcher


def static_truncation(
    components: Any,
    keep: int | None = None,
    drop: int | None = None,
    drop_a: int | None = None,
    drop_b: int | None = None,
    method: str = "fast",
) -> StaticResult:
    """Optimal static load shedding for a two-relation equi-join (paper §3.1).

    Give exactly one of ``keep`` (tuples to retain overall), ``drop`` (tuples to delete overall)
    or ``drop_a``/``drop_b`` (per relation; a missing one means 0). ``method`` is ``"fast"``
    (:func:`best_keep_fast`) or ``"dp"`` (:func:`best_keep_dp`, the paper's DP); the k_A, k_B
    variant has only the DP, so it always runs :func:`best_drop_ab_dp` and reports ``"dp"``.
    ``components`` may be :class:`Components`, ``"MxN,..."`` text or (m, n[, key]) rows.
    """
    if method not in ("fast", "dp"):
        raise ShedError(f"unknown {{param}} {method!r}; use fast or dp", param="method")
    comps = as_components(components)
    given = [name for name, value in (("keep", keep), ("drop", drop)) if value is not None]
    if drop_a is not None or drop_b is not None:
        given.append("drop_a/drop_b")
    if len(given) != 1:
        which = " and ".join(given) if given else "nothing"
        raise ShedError(f"give exactly one of keep, drop or drop_a/drop_b (got {which})")
    if given == ["drop_a/drop_b"]:
        return best_drop_ab_dp(comps, 0 if drop_a is None else drop_a, 0 if drop_b is None else drop_b)
    if drop is not None:
        drop = whole_number(drop, "drop")
        if drop > comps.nodes:
            raise ShedError(f"{{param}} {drop} exceeds the {comps.nodes} tuples in the components; use {{param}} <= "
                            f"{comps.nodes}", param="drop")
        keep = comps.nodes - drop
    assert keep is not None  # exactly one of keep and drop was given
    return (best_keep_fast if method == "fast" else best_keep_dp)(comps, keep)
