"""Shared pieces of the OPT-offline flow networks (Das, Gehrke, Riedewald 2003, §3.2).

Every network here encodes the same optimisation (the join semantics, docs/semantics.md): a
tuple ``x`` arriving at ``a`` is either never admitted or held in memory after the admissions of
steps ``a .. L-1`` and leaves during step ``L`` (it still joins the arrivals of step ``L``); it
gains one output per *counted* partner (other side, same key, arriving at ``b`` with
``a < b <= L`` and ``b >= warmup``), and at most ``M_R`` / ``M_S`` (fixed split) or ``M``
(variable split) tuples may be held after any step's admission. Same-time pairs are always
produced and are added as a constant (or, in the paper's graph, by the top path).

This module holds the arc container :class:`FlowGraph` and small vectorized helpers; partner
ranges come from the one sorted index of the streams, :class:`~shedding.exact.KeyedStreams`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from shedding.exact import KeyedStreams, partner_times
from shedding.model import R, S, Schedule, Workload

#: Bytes per arc of a built network (:class:`FlowGraph`: int32 tail and head, int64 capacity and
#: cost) and per node of its timeline lookups.
GRAPH_BYTES_PER_ARC = 24
GRAPH_BYTES_PER_NODE = 16
#: Bytes per workload tuple that live through a solve: the workload, its sorted index
#: (:class:`~shedding.exact.KeyedStreams`), partner ranges, the schedule and the EXACT and ArM
#: counts after it (measured: 0.2 KiB per tuple at N = 200,000 with few arcs; rounded up).
BYTES_PER_TUPLE = 256
#: OR-Tools' ``SimpleMinCostFlow`` on top of the built network, per arc and per node (its own
#: arc arrays, residual state, flows read back; measured 100-110 B per arc, rounded up).
ORTOOLS_BYTES_PER_ARC = 128
ORTOOLS_BYTES_PER_NODE = 64


@dataclass
class FlowGraph:
    """A min-cost-flow instance plus what is needed to read a schedule off its optimal flow.

    ``constant`` is the number of counted outputs produced regardless of the flow (same-time
    pairs when the network leaves them out); the optimum is ``constant - optimal_cost``.
    ``decode`` maps the arc flows to the per-tuple :class:`Schedule`. ``timeline`` is the
    (memory group, time) of the free-slot nodes ``0 .. T-1`` of a network whose other nodes are
    one per tuple (the compact network), which :func:`.potentials.lagrangian_potentials` prices;
    ``potentials`` are optional warm node potentials for the solver (:mod:`.primal_dual`).
    """

    n_nodes: int
    tails: np.ndarray  # int32
    heads: np.ndarray  # int32
    caps: np.ndarray  # int64
    costs: np.ndarray  # int64
    supply_nodes: np.ndarray  # int32
    supplies: np.ndarray  # int64
    constant: int
    decode: Callable[[np.ndarray], Schedule]
    timeline: tuple[np.ndarray, np.ndarray] | None = None
    potentials: np.ndarray | None = None

    @property
    def n_arcs(self) -> int:
        return len(self.tails)


def estimate_bytes(nodes: int, arcs: int, tuples: int = 0, solver: str = "ssp") -> int:
    """Estimated peak memory of building and solving a network of (at most) this size: the
    per-tuple state, the network's arrays and the solver's workspace on top of them
    (:func:`~shedding.offline.ssp.workspace_bytes` for ``ssp``, measured constants for
    ``ortools``). The builder's temporaries are freed before the solver starts and are smaller
    than its workspace, so the solve is the peak."""
    from shedding.offline.ssp import workspace_bytes

    graph = int(arcs) * GRAPH_BYTES_PER_ARC + int(nodes) * GRAPH_BYTES_PER_NODE
    if solver == "ortools":
        work = int(arcs) * ORTOOLS_BYTES_PER_ARC + int(nodes) * ORTOOLS_BYTES_PER_NODE
    else:
        work = workspace_bytes(int(nodes), int(arcs), n_supplies=4)
    return int(tuples) * BYTES_PER_TUPLE + graph + work


#: a group of arcs: tails, heads, caps, costs (caps and costs an array or one value for all)
ArcGroup = tuple[np.ndarray, np.ndarray, "np.ndarray | int", "np.ndarray | int"]


def concat_arcs(parts: list[ArcGroup]) -> tuple[np.ndarray, ...]:
    """Concatenate (tails, heads, caps, costs) groups into the four typed arc arrays."""
    tails = np.concatenate([p[0] for p in parts]).astype(np.int32)
    heads = np.concatenate([p[1] for p in parts]).astype(np.int32)
    caps = np.concatenate([np.broadcast_to(p[2], p[0].shape) for p in parts]).astype(np.int64)
    costs = np.concatenate([np.broadcast_to(p[3], p[0].shape) for p in parts]).astype(np.int64)
    return tails, heads, caps, costs


def group_bounds(group_of: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """First and last position of each group in ``group_of``, the groups of a group-major sorted
    array (-1 when empty)."""
    first = np.full(n_groups, -1, dtype=np.int64)
    last = np.full(n_groups, -1, dtype=np.int64)
    if len(group_of):
        g = group_of
        start = np.flatnonzero(np.concatenate([[True], g[1:] != g[:-1]]))
        end = np.concatenate([start[1:], [len(g)]]) - 1
        first[g[start]] = start
        last[g[start]] = end
    return first, last


def later_counted_ranges(wl: Workload, ks: KeyedStreams) -> tuple[np.ndarray, np.ndarray]:
    """For every tuple: the sorted-position range of its counted later partners (other side,
    same key, arriving at ``b`` with ``a < b <= a + w - 1`` and ``b >= warmup``; under a time
    range, ``b`` within the tuple's partner times, :func:`~shedding.exact.partner_times`)."""
    a = wl.time
    first, last = partner_times(wl)
    return ks.partner_ranges(wl, np.maximum(np.maximum(a + 1, first), wl.warmup), last)


def same_time_partners(wl: Workload, ks: KeyedStreams) -> tuple[np.ndarray, np.ndarray]:
    """The counted S tuples (``t >= warmup``) and how many R tuples of their key arrive in the
    same batch: the same-time pairs, always produced (§3.2.1 top path); none under a time range
    without 0."""
    same = wl.bounds[0] <= 0 <= wl.bounds[1]
    idx = np.flatnonzero((wl.side == S) & (wl.time >= wl.warmup) & same)
    t = wl.time[idx]
    lo, hi = ks.range_in(ks.lane(R, ks.rank[idx]), t, t)
    return idx, hi - lo


def same_time_pairs(wl: Workload, ks: KeyedStreams) -> int:
    """Number of counted same-time pairs (see :func:`same_time_partners`)."""
    return int(same_time_partners(wl, ks)[1].sum())


def groups_of(wl: Workload, variable: bool) -> np.ndarray:
    """Memory group of each tuple: its side under the fixed split, 0 under the variable one."""
    return np.zeros(len(wl), dtype=np.int64) if variable else wl.side.astype(np.int64)


def timeline_nodes(group: np.ndarray, time: np.ndarray, span: int
                   ) -> tuple[np.ndarray, Callable[[np.ndarray, np.ndarray], np.ndarray], tuple[np.ndarray, ...]]:
    """The compressed free-slot timeline of the star network (:mod:`.compact`): one node per
    distinct (group, event time). Returns the sorted node codes, a lookup ``(group, time) ->
    node id`` (for pairs that are among the given ones) and the timeline arcs (consecutive nodes
    of one group) as (tails, heads, group of the arc). When the (group, time) grid is at most a
    few times the number of pairs, a mark per grid cell and its running count replace the sort
    and the binary searches (O(pairs + grid); 3 s less at N = 1,000,000)."""
    cells = (int(group.max()) + 1) * span if len(group) else 0
    if cells <= 4 * len(group):
        mark = np.zeros(cells, dtype=bool)
        mark[group * span + time] = True
        codes = np.flatnonzero(mark)
        index = np.cumsum(mark) - 1
        del mark

        def node(g: np.ndarray, t: np.ndarray) -> np.ndarray:
            return index[g * span + t]
    else:
        codes = np.unique(group * span + time)

        def node(g: np.ndarray, t: np.ndarray) -> np.ndarray:
            return np.searchsorted(codes, g * span + t)

    g = codes // span
    same = g[1:] == g[:-1]
    tails = np.flatnonzero(same)
    return codes, node, (tails, tails + 1, g[tails])


def timeline_supplies(codes: np.ndarray, span: int, caps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Supply ``M_g`` at each group's first timeline node and demand at its last."""
    g = codes // span
    first, last = group_bounds(g, len(caps))
    has = (first >= 0) & (caps > 0)
    nodes = np.concatenate([first[has], last[has]])
    supplies = np.concatenate([caps[has], -caps[has]])
    single = first[has] == last[has]
    if single.any():  # a one-node timeline carries no flow
        keep = np.concatenate([~single, ~single])
        nodes, supplies = nodes[keep], supplies[keep]
    return nodes.astype(np.int32), supplies.astype(np.int64)
