"""Warm node potentials for the primal-dual solver (:mod:`.primal_dual`), from the Lagrangian
prices of the OPT bounds (:mod:`.bounds`; Das, Gehrke, Riedewald 2003, §3.2.2 for the networks,
Ahuja, Magnanti, Orlin, *Network Flows*, §9.3 for reduced costs and potentials).

A free-slot node of the compact network's timeline is priced by the Lagrangian prices of the
memory constraint (holding a slot from ``a`` to ``k`` costs the prices of ``a .. k-1``); every
other node gets its best value to go, so no arc out of it has a negative reduced cost. Near
optimal prices leave :mod:`.primal_dual` little to route.
"""

from __future__ import annotations

import numpy as np

from shedding.exact import KeyedStreams
from shedding.jit import njit
from shedding.model import Workload
from shedding.offline.bounds import Relaxation, lagrangian_upper_bound
from shedding.offline.flow import INF
from shedding.offline.network import FlowGraph

#: Subgradient steps for the warm prices: more steps, fewer phases (Zipf(1), w = 400, N = 100,000:
#: 10 steps leave 128 phases, 20 leave 98, 50 leave 55).
WARM_ITERATIONS = 50


def timeline_potentials(n_nodes: int, timeline: tuple[np.ndarray, np.ndarray], events: np.ndarray,
                        prices: np.ndarray, tails: np.ndarray, heads: np.ndarray, costs: np.ndarray) -> np.ndarray:
    """Warm potentials for an OPT network from Lagrangian prices ``prices[g, i]`` per memory group
    and event (:mod:`.bounds`): a free-slot node of group ``g`` at event ``i`` gets minus the
    rounded price of the events before ``i`` (holding a slot from ``a`` to ``k`` then costs the
    prices of ``a .. k-1``); every other node gets its best value to go,
    ``max over arcs u -> v of p(v) - c``, in reverse topological order (so no arc out of it has a
    negative reduced cost and its best one has 0). ``timeline`` is (group, time) of nodes
    ``0 .. T-1``."""
    group, when = timeline
    prefix = np.zeros((prices.shape[0], prices.shape[1] + 1))
    np.cumsum(prices, axis=1, out=prefix[:, 1:])
    pot = np.zeros(n_nodes, np.int64)
    pot[:len(group)] = -np.rint(prefix[group, np.searchsorted(events, when)]).astype(np.int64)
    _value_to_go(n_nodes, len(group), tails, heads, costs, pot)
    return pot


@njit(nogil=True)
def _value_to_go(n, n_known, tails, heads, costs, pot):
    """``pot[u] = max over arcs u -> v of pot[v] - cost`` for ``u >= n_known``, heads before tails
    (Kahn's order on the reversed arcs). A node without arcs out keeps its potential."""
    out_start = np.zeros(n + 1, np.int64)  # arcs grouped by tail and by head (counting sorts)
    in_start = np.zeros(n + 1, np.int64)
    for e in range(len(tails)):
        out_start[tails[e] + 1] += 1
        in_start[heads[e] + 1] += 1
    for u in range(n):
        out_start[u + 1] += out_start[u]
        in_start[u + 1] += in_start[u]
    out_fill = out_start[:-1].copy()
    in_fill = in_start[:-1].copy()
    out_arc = np.empty(len(tails), np.int64)
    in_tail = np.empty(len(tails), np.int64)
    for e in range(len(tails)):
        out_arc[out_fill[tails[e]]] = e
        out_fill[tails[e]] += 1
        in_tail[in_fill[heads[e]]] = tails[e]
        in_fill[heads[e]] += 1
    out_left = out_start[1:] - out_start[:-1]
    queue = np.empty(n, np.int64)
    head = tail = 0
    for u in range(n):
        if out_left[u] == 0:
            queue[tail] = u
            tail += 1
    while head < tail:
        u = queue[head]
        head += 1
        if u >= n_known and out_start[u + 1] > out_start[u]:
            best = -INF
            for i in range(out_start[u], out_start[u + 1]):
                e = out_arc[i]
                best = max(best, pot[heads[e]] - costs[e])
            pot[u] = best
        for i in range(in_start[u], in_start[u + 1]):
            t = in_tail[i]
            out_left[t] -= 1
            if out_left[t] == 0:
                queue[tail] = t
                tail += 1


def lagrangian_potentials(wl: Workload, ks: KeyedStreams, graph: FlowGraph, caps: np.ndarray, variable: bool,
                          iterations: int = WARM_ITERATIONS) -> np.ndarray:
    """Warm potentials for ``graph`` (a network with a free-slot timeline) from the Lagrangian
    prices of :func:`.bounds.lagrangian_upper_bound` after ``iterations`` subgradient steps, the
    Polyak target raised by repaired relaxed schedules (:meth:`.bounds.Relaxation.repaired`)."""
    assert graph.timeline is not None, "a network with a free-slot timeline"
    relax = Relaxation.of(wl, ks, caps, variable)
    prices = lagrangian_upper_bound(relax, 0.0, iterations,
                                    lambda choice, worth: relax.repaired(wl, choice, worth)[1])[3]
    return timeline_potentials(graph.n_nodes, graph.timeline, relax.events, prices, graph.tails, graph.heads,
                               graph.costs)
