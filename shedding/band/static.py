"""Static k-truncation of a band join (Das, Gehrke, Riedewald 2003, §3.1, with the band predicate
of :mod:`.predicate`): keep exactly ``keep`` tuples of two relations A and B so that as many
joining pairs as possible survive.

For an equi-join the join graph is a disjoint union of complete bipartite components K(m, n)
and the paper's closed form C_(m,n)(p) gives each component's best output when p of its tuples
are kept. For a band join two tuples can share a partner without matching each other, so a
component is an arbitrary connected bipartite graph. What carries over:

* **The DP across components** (§3.1.1, ``T(i, j) = max_p T(i-1, j-p) + C_i(p)``) is still exact,
  given the exact table C_i(p) of every component: components never share an edge, so the best
  total is a max-plus knapsack over them (:func:`shedding.offline.knapsack.dp_over_tables`).
* **C_i(p) per component** is the densest-p-subgraph problem on a bipartite graph (NP-hard in
  general), solved here exactly with CP-SAT, one model per p, for small components; components
  that are complete bipartite (m * n edges) keep the closed form.
* **The closed form as a bound**: a component with m A- and n B-tuples is a subgraph of K(m, n),
  so the paper's DP on the shapes (m_i, n_i) gives an upper bound on the optimum.
* **Not carried over**: the faster exact method (``best_keep_fast``) rests on C_(m,n) being
  convex; a band component's C_i need not be (A = {0, 0, 2}, B = {1, 1, 3}, eps = 1: C = 0, 0, 1,
  2, 4, 6, 7 for p = 0..6, increments 2, 2, 1 after 1, 1), so only the DP is offered.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import networkx as nx
import numpy as np
from ortools.sat.python import cp_model

from shedding.offline.cpsat import solve
from shedding.errors import ShedError
from shedding.exact import ranges_to_positions
from shedding.offline.components import best_split, component_output
from shedding.offline.knapsack import dp_over_tables
from shedding.band.predicate import parse_eps, scale_column

#: Largest component whose table C_i(p) is solved with CP-SAT (one model per p).
MAX_COMPONENT = 60


def band_edges(a_cols: Sequence[Any], b_cols: Sequence[Any], eps: Any) -> tuple[np.ndarray, np.ndarray]:
    """The join graph's edges (A index, B index): |a_i - b_i| <= eps_i on every attribute, compared
    exactly (the rule of :mod:`.predicate`), found by a range search on the first attribute."""
    fractions = parse_eps(eps, len(a_cols))
    if len(b_cols) != len(a_cols):
        raise ShedError(f"A has {len(a_cols)} attribute(s) and B {len(b_cols)}; give both the same attributes")
    n_a = len(a_cols[0]) if a_cols else 0
    vals, widths = [], []
    for i, (ca, cb, e) in enumerate(zip(a_cols, b_cols, fractions)):
        ints, e_int, _ = scale_column(np.concatenate([np.asarray(ca), np.asarray(cb)]), e, f"attribute {i}")
        vals.append(ints)
        widths.append(e_int)
    va, vb = np.column_stack(vals)[:n_a], np.column_stack(vals)[n_a:]
    order = np.argsort(vb[:, 0], kind="stable")
    sorted_b = vb[order, 0]
    lo = np.searchsorted(sorted_b, va[:, 0] - widths[0], "left")
    hi = np.searchsorted(sorted_b, va[:, 0] + widths[0], "right")
    a_idx, pos = ranges_to_positions(lo, hi)
    b_idx = order[pos]
    keep = np.all(np.abs(va[a_idx] - vb[b_idx]) <= np.asarray(widths), axis=1)
    return a_idx[keep], b_idx[keep]


@dataclass(frozen=True)
class BandStaticResult:
    """An optimal static truncation of a band join: which tuples of A and B are kept, the
    surviving pairs, the total, the closed-form upper bound and the component shapes."""

    keep: int
    kept_a: np.ndarray  # bool per A tuple
    kept_b: np.ndarray  # bool per B tuple
    output: int
    total_output: int
    upper_bound: int
    component_sizes: list[tuple[int, int, int]]  # (A tuples, B tuples, edges) per component

    def as_dict(self) -> dict:
        return {"keep": self.keep, "output": self.output, "total_output": self.total_output,
                "upper_bound": self.upper_bound, "components": len(self.component_sizes),
                "largest_component": max((m + n for m, n, _ in self.component_sizes), default=0)}


def component_table(edges: list[tuple[int, int]], nodes: list[int], p_max: int,
                    time_limit: float = 10.0) -> tuple[np.ndarray, list[list[int]]]:
    """C(p) for p = 0..p_max of one component (the most edges among p kept nodes), with a best
    node set per p, by CP-SAT: x_v (node kept), y_e <= x_u, y_e <= x_v, sum x = p, max sum y."""
    index = {v: i for i, v in enumerate(nodes)}
    gains = np.zeros(p_max + 1, dtype=np.int64)
    chosen: list[list[int]] = [[] for _ in range(p_max + 1)]
    for p in range(1, p_max + 1):
        model = cp_model.CpModel()
        x = [model.new_bool_var(f"x{i}") for i in range(len(nodes))]
        y = []
        for u, v in edges:
            e = model.new_bool_var("")
            model.add_implication(e, x[index[u]])
            model.add_implication(e, x[index[v]])
            y.append(e)
        model.add(sum(x) == p)
        model.maximize(sum(y))
        solver, proven = solve(model, time_limit, 1, "use fewer tuples or a smaller eps")
        if not proven:
            raise ShedError(f"CP-SAT did not prove C({p}) of a {len(nodes)}-tuple component optimal within "
                            f"{time_limit}s; use fewer tuples or a smaller eps")
        gains[p] = round(solver.objective_value)
        chosen[p] = [v for v, var in zip(nodes, x) if solver.value(var)]
    return gains, chosen


def static_truncation(a_cols: Sequence[Any], b_cols: Sequence[Any], eps: Any, keep: int,
                           max_component: int = MAX_COMPONENT) -> BandStaticResult:
    """Static k-truncation (§3.1.1) on the band join graph: keep exactly ``keep`` of the tuples
    of A and B, maximizing the surviving band pairs: the components of the join graph
    (networkx), an exact table per component (closed form if complete bipartite, else CP-SAT)
    and the paper's DP across them.

    Args:
        a_cols: Relation A's attribute columns (one array of numbers per attribute).
        b_cols: Relation B's attribute columns, the same attributes.
        eps: The band widths, one per attribute (as :func:`~shedding.band.predicate.parse_eps`
            reads them).
        keep: The tuples to keep, in 0..len(A) + len(B).
        max_component: The largest component (in tuples) solved exactly when it is not
            complete bipartite.

    Returns:
        A :class:`BandStaticResult`: the tuples kept of A and of B and the surviving pairs.

    Raises:
        ShedError: A bad ``keep`` or ``eps`` (naming it in ``param``), A and B with different
            attributes, or a component over ``max_component`` tuples.
    """
    ea, eb = band_edges(a_cols, b_cols, eps)
    n_a, n_b = len(a_cols[0]), len(b_cols[0])
    if isinstance(keep, bool) or not isinstance(keep, (int, np.integer)) or not 0 <= keep <= n_a + n_b:
        raise ShedError(f"{{param}} must be an integer in 0..{n_a + n_b} (the tuples of A and B), got {keep!r}",
                        param="keep")
    graph = nx.Graph()
    graph.add_nodes_from(range(n_a + n_b))  # A tuple i is node i, B tuple j is node n_a + j
    graph.add_edges_from(zip(ea.tolist(), (eb + n_a).tolist()))
    comps = [sorted(c) for c in nx.connected_components(graph)]
    tables, shapes, bounds = [], [], []
    choices: list[list[list[int]] | None] = []  # a best node set per p (None: the closed form's)
    for nodes in comps:
        m = sum(1 for v in nodes if v < n_a)
        n, k = len(nodes) - m, graph.subgraph(nodes).number_of_edges()
        shapes.append((m, n, k))
        p_max = min(len(nodes), keep)
        ps = np.arange(p_max + 1)
        closed = component_output(m, n, ps)
        bounds.append(closed)
        if k == m * n:  # complete bipartite: the paper's closed form is exact
            tables.append(closed)
            choices.append(None)
            continue
        if len(nodes) > max_component:
            raise ShedError(f"a join-graph component has {len(nodes)} tuples, over the exact limit of {max_component}; "
                            f"use fewer tuples or a smaller eps")
        gains, chosen = component_table(list(graph.subgraph(nodes).edges), nodes, p_max)
        tables.append(gains)
        choices.append(chosen)
    sizes = np.array([len(c) for c in comps], dtype=np.int64)
    use = dp_over_tables(tables, sizes, keep)
    bound_use = dp_over_tables(bounds, sizes, keep)
    kept = np.zeros(n_a + n_b, dtype=bool)
    for nodes, (m, n, _), q, best in zip(comps, shapes, use.tolist(), choices):
        if best is not None:
            kept[best[q]] = True
            continue
        a_nodes, b_nodes = [v for v in nodes if v < n_a], [v for v in nodes if v >= n_a]
        ka, kb = (int(v) for v in best_split(m, n, q))
        kept[a_nodes[:ka]] = True
        kept[b_nodes[:kb]] = True
    output = int(np.count_nonzero(kept[ea] & kept[eb + n_a]))
    assert output == sum(int(t[q]) for t, q in zip(tables, use.tolist()))
    return BandStaticResult(keep, kept[:n_a], kept[n_a:], output, len(ea),
                            sum(int(t[q]) for t, q in zip(bounds, bound_use.tolist())), shapes)
