"""Exact min-cost flow from warm node potentials: the primal-dual method started from a pseudo-flow
(Ahuja, Magnanti, Orlin, *Network Flows*, §9.8 and §9.7 on pseudo-flows; Das, Gehrke, Riedewald
2003, §3.2.2 for the OPT networks it solves).

:mod:`.ssp` routes the ``M`` units of the memory timeline one augmenting path at a time, and every
path crosses the whole timeline, so its work is about ``M x arcs``. Here the solve starts from node
potentials ``p`` that are already close to optimal dual prices (:mod:`.potentials`, from the
Lagrangian prices of :mod:`.bounds`):

1. every arc whose reduced cost ``c + p(u) - p(v)`` is negative is saturated and every other arc
   is empty. This pseudo-flow satisfies the reduced-cost optimality conditions for ``p`` (§9.3)
   but leaves excesses and deficits at nodes where the prices are not yet exact;
2. a *flow phase* sends excess to deficits along admissible arcs (residual, reduced cost 0) by
   depth-first searches from each excess node (:func:`.flow.route_admissible`); a node the
   search backs out of cannot reach a deficit over admissible arcs and is skipped for the rest
   of the phase;
3. a *price phase* runs Dijkstra on the reduced costs from all excess nodes at once
   (:func:`.flow.dijkstra`) until the settled deficits cover a quarter of the excess, the last
   settled at distance ``D``, and lowers the potential of every settled node by ``D - dist``;
   reduced costs stay non-negative and the shortest paths to those deficits become admissible.

Phases repeat until no excess is left; then the pseudo-flow is a flow and, satisfying the
optimality conditions, an optimal one (§9.3, Theorem 9.4). Any integer potentials give the
optimum (the tests draw random ones); good ones leave little to route. On Zipf(1), w = 400,
N = 1,000,000 the Lagrangian potentials leave 43-49 phases per memory group, each about one sweep
of the network, where :mod:`.ssp` runs 200 full ones.

:func:`.opt.solve_opt` warm-starts the compact network, whose nodes besides the timeline are one
per tuple. The keyed network's lane arcs carry several tuples each: a potential per lane node does
not say how many of a lane's arrivals to hold, the pseudo-flow admits them all, and on the
stand-in weather month the warm start ran past 900 s where the cold solver takes 446 s. The keyed
network stays with :mod:`.ssp`.
"""

from __future__ import annotations

import numpy as np

from shedding.jit import njit
from shedding.offline.flow import BUCKETS, INF, dijkstra, residual, route_admissible


@njit(nogil=True)
def _saturate_negative(n, start, to, res, cost, rev, pot, excess):
    """Step 1: saturate every residual slot of negative reduced cost (only forward slots have
    residual capacity at the start), updating the excesses."""
    for u in range(n):
        pu = pot[u]
        for p in range(start[u], start[u + 1]):
            c = res[p]
            if c > 0 and cost[p] + pu - pot[to[p]] < 0:
                res[p] = 0
                res[rev[p]] += c
                excess[u] -= c
                excess[to[p]] += c


@njit(nogil=True)
def solve_warm(n, tails, heads, caps, costs, supply_nodes, supplies, pot):
    """Min-cost flow of one component from the potentials ``pot`` (changed in place), the same
    contract as the cold solver of :mod:`.ssp`: returns (status, flows), status 0 optimal, -2 the supplies
    cannot be routed."""
    none = np.zeros(0, supply_nodes.dtype)
    start, to, res, cost, rev, first = residual(n, tails, heads, caps, costs, none, none.astype(supplies.dtype))
    status = _route_all(n, start, to, res, cost, rev, supply_nodes, supplies, pot)
    flows = np.empty(len(tails), np.int64)
    for e in range(len(tails)):
        flows[e] = caps[e] - res[first[e]]
    return status, flows


@njit(nogil=True)
def _route_all(n, start, to, res, cost, rev, supply_nodes, supplies, pot):
    """Steps 1-3 on the residual network (:func:`.flow.residual`, built without supply arcs).
    Returns 0 when every excess is routed, -2 when some cannot be."""
    excess = np.zeros(n, np.int64)
    for i in range(len(supply_nodes)):
        excess[supply_nodes[i]] += supplies[i]
    _saturate_negative(n, start, to, res, cost, rev, pot, excess)
    m2 = len(to)
    fw = (np.zeros(n, np.bool_), np.empty(n, np.int64), np.empty(n, np.int64), np.zeros(n, np.int64),
          np.empty(n, np.int64), np.zeros(1, np.int64))
    pw = (np.full(n, INF, np.int64), np.zeros(n, np.bool_), np.empty(n, np.int32), np.full(BUCKETS, -1, np.int32),
          np.empty(m2 + n + 1, np.int32), np.empty(m2 + n + 1, np.int32), np.empty(m2 + n + 1, np.int64),
          np.empty(m2 + n + 1, np.int32), np.empty(n, np.int32))
    while True:
        route_admissible(n, start, to, res, cost, rev, pot, excess, fw)  # step 2
        left = 0
        for u in range(n):
            left += max(excess[u], 0)
        if left == 0:
            return 0
        # step 3 (the price phase): Dijkstra from all the excess until deficits covering a
        # quarter of it are settled (measured: fewer phases than stopping at the first deficit,
        # less work per phase than covering all of it)
        if not dijkstra(start, to, res, cost, pot, excess, (left + 3) // 4, pw):
            return -2
