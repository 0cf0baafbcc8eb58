"""A specialized exact min-cost-flow solver for the acyclic OPT networks (§3.2.2).

Every OPT network here is a DAG in time order whose supplies are the ``M`` units entering a
memory timeline and leaving at its end; the fixed split gives two independent timelines (two
weakly connected components), which are solved in parallel threads. Per component the solver
is the primal-dual successive-shortest-path method (Ahuja, Magnanti, Orlin, *Network Flows*,
§9.7-9.8):

1. initial node potentials are shortest distances from the supply, by one pass over a
   topological order (the network is acyclic; costs may be negative);
2. each phase runs Dijkstra on the (non-negative, integral) reduced costs with a bucket queue,
   stopping when the demand node is settled (:func:`.flow.dijkstra`), and raises the
   potentials of the settled nodes only (the others share one common shift, which reduced
   costs do not see); then flow is sent along the sink's path in the shortest-path tree, and
   depth-first searches over the *admissible* arcs (residual, zero reduced cost;
   :func:`.flow.route_admissible`) augment along every other shortest path of this length;
3. phases repeat until the supply is routed: at most one per unit of flow, each O(arcs). The
   depth-first searches are skipped after a miss for a doubling number of phases (profile at
   Zipf N = 200,000, w = 400: a phase mostly sends one unit and the failed search cost 19% of
   the solve); the Dijkstra of the next phase finds those paths anyway, so the result stays
   the optimum.

Integral capacities give an integral optimum (§3.2.2, Theorem 2). OR-Tools stays the reference
backend; the tests check that both find the same optimum. The primitives (residual network,
Dijkstra, admissible search) are :mod:`.flow`'s; :func:`solve_dag_flow` hands a component with
warm potentials to :mod:`.primal_dual` instead.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from shedding.jit import njit
from shedding.offline import primal_dual
from shedding.offline.flow import BUCKETS, INF, dijkstra, residual, route_admissible, weak_components


@njit(nogil=True)
def _initial_potentials(n, start, to, res, cost, source):
    """Shortest distances from ``source`` over the residual arcs of a DAG, in Kahn order;
    unreachable nodes get 0 (no residual arc will ever lead there). Returns (pot, acyclic)."""
    indeg = np.zeros(n, np.int64)
    for p in range(start[n]):
        if res[p] > 0:
            indeg[to[p]] += 1
    order = np.empty(n, np.int64)
    head, tail = 0, 0
    for u in range(n):
        if indeg[u] == 0:
            order[tail] = u
            tail += 1
    dist = np.full(n, INF, np.int64)
    dist[source] = 0
    while head < tail:
        u = order[head]
        head += 1
        for p in range(start[u], start[u + 1]):
            if res[p] > 0:
                v = to[p]
                if dist[u] < INF and dist[u] + cost[p] < dist[v]:
                    dist[v] = dist[u] + cost[p]
                indeg[v] -= 1
                if indeg[v] == 0:
                    order[tail] = v
                    tail += 1
    for u in range(n):
        if dist[u] == INF:
            dist[u] = 0
    return dist, tail == n


@njit(nogil=True)
def _augment_tree(res, rev, to, pred, source, sink, limit):
    """Send up to ``limit`` units along the sink's path in the shortest-path tree ``pred``."""
    push = limit
    v = sink
    while v != source:
        push = min(push, res[pred[v]])
        v = to[rev[pred[v]]]
    v = sink
    while v != source:
        p = pred[v]
        res[p] -= push
        res[rev[p]] += push
        v = to[rev[p]]
    return push


@njit(nogil=True)
def _solve(n, tails, heads, caps, costs, supply_nodes, supplies):
    """Primal-dual min-cost flow of one component. Returns (status, flows): status 0 optimal,
    -1 the network has a cycle, -2 the supplies cannot be routed."""
    nn = n + 2
    source, sink = n, n + 1
    start, to, res, cost, rev, first = residual(n, tails, heads, caps, costs, supply_nodes, supplies)
    m0 = len(tails)
    pot, acyclic = _initial_potentials(nn, start, to, res, cost, source)
    if not acyclic:
        return -1, np.zeros(m0, np.int64)
    m2 = len(to)
    dw = (np.full(nn, INF, np.int64), np.zeros(nn, np.bool_), np.empty(nn, np.int32),
          np.full(BUCKETS, -1, np.int32), np.empty(m2 + 1, np.int32), np.empty(m2 + 1, np.int32),
          np.empty(m2 + 1, np.int64), np.empty(m2 + 1, np.int32), np.empty(nn, np.int32))
    aw = (np.zeros(nn, np.bool_), np.empty(nn, np.int64), np.empty(nn, np.int64), np.zeros(nn, np.int64),
          np.empty(nn, np.int64), np.zeros(1, np.int64))
    total = 0
    for s in supplies:
        total += max(s, 0)
    sent = 0
    phase, gap, next_search = 0, 1, 1
    balance = np.zeros(nn, np.int64)  # what is left to route: from the super source to the sink
    while sent < total:
        balance[source], balance[sink] = total - sent, sent - total
        if not dijkstra(start, to, res, cost, pot, balance, 1, dw):
            return -2, np.zeros(m0, np.int64)
        sent += _augment_tree(res, rev, to, dw[-1], source, sink, total - sent)
        phase += 1
        if sent < total and phase >= next_search:
            balance[source], balance[sink] = total - sent, sent - total
            more = route_admissible(nn, start, to, res, cost, rev, pot, balance, aw)
            sent += more
            # a search that finds no second path of this length costs a sweep of the admissible
            # network, and the next Dijkstra finds any such path anyway: after a miss, search
            # again only after twice as many phases (up to 64); a hit searches every phase
            gap = 1 if more > 0 else min(2 * gap, 64)
            next_search = phase + gap
    flows = np.empty(m0, np.int64)
    for e in range(m0):
        flows[e] = caps[e] - res[first[e]]
    return 0, flows


def workspace_bytes(n_nodes: int, n_arcs: int, n_supplies: int, n_components: int = 2) -> int:
    """Peak bytes :func:`solve_dag_flow` allocates on top of its input arrays, from the sizes of
    its arrays: per component its copy of the arcs (index int64, ends, capacity and cost int32),
    the residual network (two int32 slots per arc of to, res, cost, rev; first), the Dijkstra
    queues (one entry per residual slot: bucket list int32 x 2, heap key int64 and node int32)
    and per node the potentials, distances, tree, search stacks and the CSR offsets (with the
    warm start's per-node arrays, :mod:`.primal_dual`, which has no super source arcs). The
    components are solved at the same time, so their workspaces add up (as one network's)."""
    m = n_arcs + n_supplies
    per_arc = 8 + 4 * 4  # component copy: arc index, tail, head, capacity, cost
    per_arc += 2 * 4 * 4 + 4  # residual slots (to, res, cost, rev) and ``first``
    per_arc += 2 * (4 + 4 + 8 + 4)  # bucket entries and heap, one per residual slot
    per_node = 8 + 8  # union-find parent, local index
    per_node += 8 + 8 + 8 + 1 + 4 + 4 + 8 + 8 + 4  # start, pot, dist, settled, touched, pred, mark, it, stack
    per_node += 8 + 1 + 8 + 8 + 8 + 20  # the warm start's excess, dead, scan, path marks, potentials, source entries
    flows = 8 * n_arcs * 2  # per-component flows and the result
    return per_arc * m + per_node * (n_nodes + 2 * n_components) + flows


def solve_dag_flow(n_nodes: int, tails: np.ndarray, heads: np.ndarray, caps: np.ndarray, costs: np.ndarray,
                   supply_nodes: np.ndarray, supplies: np.ndarray,
                   potentials: np.ndarray | None = None) -> tuple[int, np.ndarray]:
    """Min-cost flow on an acyclic network; returns (optimal cost, arc flows).

    Weakly connected components with supplies are solved independently, in parallel threads;
    components without supplies carry no flow (an acyclic network has no negative cycle). With
    ``potentials`` (any integer node potentials; near-optimal dual prices make it fast) each
    component is solved by :func:`.primal_dual.solve_warm` from them instead of by the
    successive shortest paths here.
    """
    big = max([int(np.abs(a).max()) for a in (caps, costs, supplies) if len(a)] + [2 * (len(tails) + len(supplies))])
    if big >= 2**31:  # the residual network stores int32 heads, capacities and costs
        raise ValueError("the network is too large for the 'ssp' solver (int32 overflow); use 'ortools'")
    root = weak_components(n_nodes, tails, heads)
    parts = []
    for r in np.unique(root[supply_nodes]):
        nodes = np.flatnonzero(root == r)
        local = np.full(n_nodes, -1, np.int32)
        local[nodes] = np.arange(len(nodes))
        arcs = np.flatnonzero(root[tails] == r)
        sup = root[supply_nodes] == r
        part: tuple = (len(nodes), local[tails[arcs]], local[heads[arcs]], caps[arcs].astype(np.int32),
                costs[arcs].astype(np.int32), local[supply_nodes[sup]], supplies[sup].astype(np.int32))
        if potentials is not None:
            part = (*part, potentials[nodes].astype(np.int64))
        parts.append((arcs, part))
        del local, nodes
    del root
    workers = max(1, min(len(parts), os.cpu_count() or 1))
    with ThreadPoolExecutor(workers) as pool:
        solve = primal_dual.solve_warm if potentials is not None else _solve
        results = list(pool.map(lambda part: solve(*part[1]), parts))
    flows = np.zeros(len(tails), np.int64)
    for (arcs, _), (status, part_flows) in zip(parts, results):
        if status == -1:
            raise ValueError("the network has a cycle; the 'ssp' solver needs an acyclic network")
        if status == -2:
            raise ValueError("the supplies cannot all be routed; the network is infeasible")
        flows[arcs] = part_flows
    return int(np.dot(flows, costs)), flows
