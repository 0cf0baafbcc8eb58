"""Min-cost-flow primitives shared by the cold and the warm OPT solvers (Ahuja, Magnanti, Orlin,
*Network Flows*, §9.7-9.8; Das, Gehrke, Riedewald 2003, §3.2.2 for the networks they solve).

* :func:`weak_components`: the weakly connected components of a network, solved apart;
* :func:`residual`: the residual network in CSR form, with an optional super source and sink;
* :func:`heap_push` / :func:`heap_pop`: a binary min-heap on two arrays;
* :func:`dijkstra`: reduced-cost Dijkstra from every excess node, with a bucket queue, that
  updates the potentials of the settled nodes;
* :func:`route_admissible`: depth-first searches that send excess to deficits along admissible
  arcs (residual, reduced cost 0).

:mod:`.ssp` (the successive shortest paths from zero flow) and :mod:`.primal_dual` (the
primal-dual method from warm potentials) are built from these; :mod:`.bounds` uses the heap.
"""

from __future__ import annotations

import numpy as np
from shedding.jit import njit

INF = np.int64(1) << 60
BUCKETS = 1024  # reduced distances below this go to buckets, larger ones to a binary heap


@njit(nogil=True)
def weak_components(n, tails, heads):
    """Weakly connected component root of every node (union-find with path halving)."""
    parent = np.arange(n)
    for e in range(len(tails)):
        a, b = tails[e], heads[e]
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        if a != b:
            parent[a] = b
    for u in range(n):
        r = u
        while parent[r] != r:
            r = parent[r]
        parent[u] = r
    return parent


@njit(nogil=True)
def _arc(e, n, tails, heads, caps, costs, supply_nodes, supplies):
    """Input arc ``e`` of the residual network: the network's arcs, then one arc per supply
    (super source ``n`` -> supply node, or demand node -> super sink ``n + 1``)."""
    m0 = len(tails)
    if e < m0:
        return tails[e], heads[e], caps[e], costs[e]
    s = supplies[e - m0]
    if s > 0:
        return n, supply_nodes[e - m0], s, 0
    return supply_nodes[e - m0], n + 1, -s, 0


@njit(nogil=True)
def residual(n, tails, heads, caps, costs, supply_nodes, supplies):
    """The residual network with a super source ``n`` and super sink ``n + 1``, arcs grouped by
    tail (CSR, int32 to halve memory traffic): returns (start, to, res, cost, rev, first) where
    ``first[e]`` is the slot of input arc e and ``rev[p]`` the slot paired with slot p."""
    nn = n + 2
    m = len(tails) + len(supply_nodes)
    start = np.zeros(nn + 1, np.int64)
    for e in range(m):
        u, v, _, _ = _arc(e, n, tails, heads, caps, costs, supply_nodes, supplies)
        start[u + 1] += 1
        start[v + 1] += 1
    for u in range(nn):
        start[u + 1] += start[u]
    fill = start[:-1].copy()
    to = np.empty(2 * m, np.int32)
    res = np.empty(2 * m, np.int32)
    cost = np.empty(2 * m, np.int32)
    rev = np.empty(2 * m, np.int32)
    first = np.empty(m, np.int32)
    for e in range(m):
        u, v, c, w = _arc(e, n, tails, heads, caps, costs, supply_nodes, supplies)
        p, q = fill[u], fill[v]
        fill[u] += 1
        fill[v] += 1
        to[p], res[p], cost[p], rev[p] = v, c, w, q
        to[q], res[q], cost[q], rev[q] = u, 0, -w, p
        first[e] = p
    return start, to, res, cost, rev, first


@njit(nogil=True)
def heap_push(hk, hv, size, key, val):
    """Push (``key``, ``val``) on the binary min-heap held in ``hk`` (keys) and ``hv`` (values)
    with ``size`` entries; returns the new size."""
    i = size
    while i > 0:
        p = (i - 1) >> 1
        if hk[p] <= key:
            break
        hk[i], hv[i] = hk[p], hv[p]
        i = p
    hk[i], hv[i] = key, val
    return size + 1


@njit(nogil=True)
def heap_pop(hk, hv, size):
    """Pop the entry of smallest key from the binary min-heap ``hk``, ``hv`` of ``size`` entries;
    returns (key, value, new size)."""
    key, val = hk[0], hv[0]
    size -= 1
    last_k, last_v = hk[size], hv[size]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and hk[c + 1] < hk[c]:
            c += 1
        if last_k <= hk[c]:
            break
        hk[i], hv[i] = hk[c], hv[c]
        i = c
    if size > 0:
        hk[i], hv[i] = last_k, last_v
    return key, val, size


@njit(nogil=True)
def dijkstra(start, to, res, cost, pot, balance, need, w):
    """Reduced-cost Dijkstra from every node of positive ``balance`` (the excess) at distance 0
    until the settled nodes of negative balance (the deficits) cover ``need`` units, or until
    the queue runs dry; then every settled node v gets ``pot[v] += dist[v] - D``, D the distance
    of the last settled node, and the others keep theirs (the textbook update up to a common
    shift), so reduced costs stay non-negative and the shortest paths to the settled deficits
    get reduced cost 0. ``w`` is the workspace; its ``pred`` holds the arc into each settled
    node (a shortest-path forest, -1 at the sources). Returns False if no deficit is reachable."""
    dist, settled, touched, bucket, ent_node, ent_next, hk, hv, pred = w
    n_touched = 0
    n_ent = 0
    for s in range(len(balance)):
        if balance[s] > 0:
            dist[s] = 0
            pred[s] = -1
            touched[n_touched] = s
            n_touched += 1
            ent_node[n_ent] = s
            ent_next[n_ent] = bucket[0]
            bucket[0] = n_ent
            n_ent += 1
    size = 0
    cur = 0
    top = 0  # highest bucket used
    covered = 0
    found = False
    d_last = np.int64(0)
    while True:
        while cur < BUCKETS and bucket[cur] < 0:
            cur += 1
        if cur < BUCKETS:
            k = bucket[cur]
            bucket[cur] = ent_next[k]
            u, d = ent_node[k], np.int64(cur)
        elif size > 0:
            d, u, size = heap_pop(hk, hv, size)
        else:
            break
        if d != dist[u] or settled[u]:
            continue
        settled[u] = True
        d_last = d
        if balance[u] < 0:
            found = True
            covered -= balance[u]
            if covered >= need:
                break
        pu = pot[u]
        for p in range(start[u], start[u + 1]):
            if res[p] > 0:
                v = to[p]
                nd = d + cost[p] + pu - pot[v]
                if nd < dist[v]:
                    if dist[v] == INF:
                        touched[n_touched] = v
                        n_touched += 1
                    dist[v] = nd
                    pred[v] = p
                    if nd < BUCKETS:  # one entry per improvement: at most one per arc and source
                        top = max(top, nd)
                        ent_node[n_ent] = v
                        ent_next[n_ent] = bucket[nd]
                        bucket[nd] = n_ent
                        n_ent += 1
                    else:
                        size = heap_push(hk, hv, size, nd, v)
    for i in range(n_touched):
        v = touched[i]
        if found and settled[v]:
            pot[v] += dist[v] - d_last
        dist[v] = INF
        settled[v] = False
    for b in range(top + 1):
        bucket[b] = -1
    return found


@njit(nogil=True)
def route_admissible(n, start, to, res, cost, rev, pot, excess, w):
    """Send the positive ``excess`` of nodes ``0 .. n-1`` to nodes of negative excess along
    admissible slots (residual, reduced cost 0), one depth-first search per path, updating
    ``excess``. ``it[u]`` skips slots that are useless for the rest of the phase (no residual, not
    admissible, or leading to a dead node); a slot into a node already on the search path is
    only passed over for this search. Returns the amount sent."""
    dead, it, scan, on_path, stack, stamp = w
    for u in range(n):
        it[u] = start[u]
        dead[u] = False
    sent = 0
    for s in range(n):
        while excess[s] > 0 and not dead[s]:
            stamp[0] += 1
            mark = stamp[0]
            on_path[s] = mark
            scan[s] = it[s]
            depth = 0
            u = s
            while excess[u] >= 0 or u == s:
                advanced = False
                pu = pot[u]
                q = scan[u]
                while q < start[u + 1]:
                    v = to[q]
                    if res[q] > 0 and not dead[v] and cost[q] + pu - pot[v] == 0:
                        if on_path[v] != mark:
                            scan[u] = q
                            stack[depth] = q
                            depth += 1
                            on_path[v] = mark
                            scan[v] = it[v]
                            u = v
                            advanced = True
                            break
                    elif q == it[u]:
                        it[u] = q + 1
                    q += 1
                if not advanced:
                    dead[u] = True
                    if depth == 0:
                        break
                    depth -= 1
                    q = stack[depth]
                    u = to[rev[q]]
                    if q == it[u]:
                        it[u] = q + 1
                    scan[u] = q + 1
            if depth == 0:
                break
            push = min(excess[s], -excess[u])
            for i in range(depth):
                push = min(push, res[stack[i]])
            for i in range(depth):
                q = stack[i]
                res[q] -= push
                res[rev[q]] += push
            excess[s] -= push
            excess[u] += push
            sent += push
    return sent
