"""The per-key lane network for OPT / OPTV: the star network of :mod:`.compact` with the tuples
of one (side, key) merged into one lane. Exact for equi-joins; O(N) arcs whatever the window.

Why merging is exact. Two tuples of one side with one key, ``x`` older than ``y``, meet the same
partners once both have arrived, and ``y`` stays useful at least as long as ``x`` (its window
ends later). If a schedule holds ``x`` past some step at which ``y`` is not held, exchanging
their departure times after ``y``'s arrival keeps every memory count and every output (the
multiset of joined partner arrivals is the same), so some optimal schedule always holds, per
(side, key), the most recent useful arrivals. Such a schedule is described by one number per
lane and step: how many of its tuples are held, ``c(t)``; the paper's "which tuple is in memory"
(§3.2.1) is recovered afterwards (oldest held first out).

Network. The timeline of free slots is the same as in :mod:`.compact`. Each lane (side, key) is
a path through its event times: arrivals of its own useful tuples (entries ``D_t -> lane_t`` of
capacity = number of such arrivals) and counted arrivals of partners that some held tuple could
meet (exits ``lane_t -> D_t``); an event with both is split into a join-and-exit node and an
entry node, which keeps the network acyclic. The lane arc from one event to the next carries
``c``; its capacity is the number of lane tuples that arrived and are still useful (before
their last counted partner) and its cost is minus the number of counted partners arriving at
the next event. Size: at most ``3N`` lane nodes plus the timeline; at most ``2N`` lane arcs,
``N`` entries, ``N`` exits, ``N`` split arcs and the timeline arcs.
"""

from __future__ import annotations

import numpy as np

from shedding.errors import ShedError
from shedding.exact import KeyedStreams, partner_times
from shedding.model import Schedule, Workload
from shedding.offline.network import (
    FlowGraph,
    concat_arcs,
    later_counted_ranges,
    same_time_pairs,
    timeline_nodes,
    timeline_supplies,
)


def lanes_merge(wl: Workload) -> bool:
    """Whether the tuples of one lane meet the same partners once both have arrived, which the
    merge needs: always under the window; under a time range unless a stored tuple must wait for
    its range to begin (lo >= 2 delays the R tuples, hi <= -2 the S tuples): then a younger tuple
    misses partners an older one meets, and only the compact network is exact."""
    lo, hi = wl.bounds
    return lo <= 1 and hi >= -1


def estimate_keyed(wl: Workload, ks: KeyedStreams, variable: bool) -> tuple[int, int]:
    """Upper bounds on (nodes, arcs) of :func:`build_keyed`, from counts only."""
    n = len(wl)
    timeline = min(2 * n, 2 * len(wl.event_times()))
    return 3 * n + timeline, 5 * n + timeline


def build_keyed(wl: Workload, ks: KeyedStreams, group_caps: np.ndarray, variable: bool) -> FlowGraph:
    """The lane network (see module docstring). ``group_caps`` is ``[M_R, M_S]`` for the fixed
    split and ``[M]`` for the variable one."""
    if not lanes_merge(wl):
        raise ShedError(f"the keyed network is not exact for the range {wl.bounds} (a tuple waits for its range to "
                        "begin); use the compact network", param="graph")
    span = ks.span
    lo, hi = later_counted_ranges(wl, ks)
    useful = np.flatnonzero(hi > lo)
    own_lane = ks.lane(wl.side, ks.rank)
    # useful tuples in (lane, time, workload order): their lane index j and last useful time
    own_code = own_lane[useful] * span + wl.time[useful]
    order = np.argsort(own_code, kind="stable")
    useful, own_code = useful[order], own_code[order]
    last_code = own_lane[useful] * span + ks.time_of(hi[useful] - 1)
    last_code.sort()

    # partner events: counted arrivals that some earlier tuple of the lane could still meet
    partner_lane = ks.partner_lane(wl)
    b = wl.time
    first, last = partner_times(wl)
    plo, phi = ks.partner_ranges(wl, first, np.minimum(last, b - 1))
    meets = (b >= wl.warmup) & (phi > plo)
    ev_code = np.concatenate([own_code, partner_lane[meets] * span + b[meets]])
    ev_entry = np.concatenate([np.ones(len(own_code), np.int64), np.zeros(int(meets.sum()), np.int64)])
    nodes, inv = np.unique(ev_code, return_inverse=True)
    entry = np.bincount(inv, weights=ev_entry, minlength=len(nodes)).astype(np.int64)
    gain = np.bincount(inv, minlength=len(nodes)).astype(np.int64) - entry
    lane, when = nodes // span, nodes % span
    lane_start = np.searchsorted(own_code, lane * span)
    arrived = np.searchsorted(own_code, nodes, side="right") - lane_start
    alive = arrived - (np.searchsorted(last_code, nodes, side="right") - np.searchsorted(last_code, lane * span))

    nxt = np.flatnonzero((lane[1:] == lane[:-1]) & (alive[:-1] > 0))  # lane arcs nxt -> nxt + 1
    group = np.zeros(len(nodes), np.int64) if variable else lane // ks.n_keys
    into = np.zeros(len(nodes), np.int64)  # capacity of the lane arc into each node
    into[nxt + 1] = alive[nxt]
    enter = np.flatnonzero(entry > 0)
    leave = np.flatnonzero(gain > 0)
    codes, node, (tl_tail, tl_head, tl_group) = timeline_nodes(
        np.concatenate([group[enter], group[leave]]), np.concatenate([when[enter], when[leave]]), span)
    n_tl = len(codes)
    # an event with both an exit and an entry is split in two (join and exit, then entry) so
    # that the network stays acyclic: lane_in receives the lane arc, lane_out sends it on
    both = np.flatnonzero((entry > 0) & (gain > 0))
    lane_in = n_tl + np.arange(len(nodes))
    lane_out = lane_in.copy()
    lane_out[both] = n_tl + len(nodes) + np.arange(len(both))
    tails, heads, caps, costs = concat_arcs([
        (tl_tail, tl_head, group_caps[tl_group], 0),
        (lane_out[nxt], lane_in[nxt + 1], alive[nxt], -gain[nxt + 1]),
        (node(group[enter], when[enter]), lane_out[enter], entry[enter], 0),
        (lane_in[leave], node(group[leave], when[leave]), into[leave], 0),
        (lane_in[both], lane_out[both], into[both], 0),
    ])
    supply_nodes, supplies = timeline_supplies(codes, span, group_caps)
    lane_arcs = slice(len(tl_tail), len(tl_tail) + len(nxt))

    def decode(flows: np.ndarray) -> Schedule:
        held = np.zeros(len(nodes), np.int64)
        held[nxt] = flows[lane_arcs]
        low = arrived - held  # lane index of the oldest tuple held after each event
        big = len(wl) + 1
        j = np.arange(len(useful)) - np.searchsorted(own_code, own_code // span * span)
        out = np.searchsorted(lane * big + low, own_code // span * big + j, side="right")
        left = wl.time.copy()
        left[useful] = when[out]
        return Schedule(left > wl.time, left)

    return FlowGraph(n_tl + len(nodes) + len(both), tails, heads, caps, costs, supply_nodes, supplies,
                     same_time_pairs(wl, ks), decode)
