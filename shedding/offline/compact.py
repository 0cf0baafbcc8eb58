"""The compact "star" network for OPT / OPTV (equivalent to the paper's §3.2.1 graph).

A compressed timeline of free-slot nodes ``D_t`` (one per event time; one lane of capacity
``M_R`` and one of ``M_S`` under the fixed split, a single lane of ``M`` under the variable
split) carries the unused memory: ``M`` units of flow enter at the first event and leave at the
last. A tuple ``x`` arriving at ``a`` whose counted later partners arrive at distinct times
``k_1 < ... < k_m`` becomes one node ``u`` with

- ``D_a -> u``, capacity 1 (``x`` takes a slot when it arrives), and
- ``u -> D_(k_l)``, capacity 1, cost ``-(counted partners arriving in (a, k_l])`` (``x`` joins the
  arrivals up to ``k_l`` and hands its slot back during step ``k_l``).

Tuples without a counted later partner are left out (holding them gains nothing), and so are
exits at uncounted partner times (dominated by the previous exit). Size: ``U`` star nodes plus
at most ``U + E`` timeline nodes; ``U + E`` arcs plus the timeline, where ``U`` is the number of
useful tuples and ``E <= `` the number of counted later pairs.
"""

from __future__ import annotations

import numpy as np

from shedding.exact import KeyedStreams, ranges_to_positions
from shedding.model import Schedule, Workload
from shedding.offline.network import (
    FlowGraph,
    concat_arcs,
    groups_of,
    later_counted_ranges,
    same_time_pairs,
    timeline_nodes,
    timeline_supplies,
)


def estimate_compact(wl: Workload, ks: KeyedStreams, variable: bool) -> tuple[int, int]:
    """Upper bounds on (nodes, arcs) of :func:`build_compact`, from counts only."""
    lo, hi = later_counted_ranges(wl, ks)
    useful = int(np.count_nonzero(hi > lo))
    exits = int((hi - lo).sum())
    timeline = min(useful + exits, 2 * len(wl.event_times()))
    return useful + timeline, useful + exits + timeline


def build_compact(wl: Workload, ks: KeyedStreams, group_caps: np.ndarray, variable: bool) -> FlowGraph:
    """The star network (see module docstring). ``group_caps`` is ``[M_R, M_S]`` for the fixed
    split and ``[M]`` for the variable one."""
    lo, hi = later_counted_ranges(wl, ks)
    useful = np.flatnonzero(hi > lo)
    owner, pos = ranges_to_positions(lo[useful], hi[useful])
    return star_network(wl, group_caps, variable, useful, owner, ks.time_of(pos), ks.span,
                        same_time_pairs(wl, ks))


def star_network(wl: Workload, group_caps: np.ndarray, variable: bool, useful: np.ndarray, owner: np.ndarray,
                 when: np.ndarray, span: int, constant: int, gain: np.ndarray | None = None) -> FlowGraph:
    """The star network from "which later arrivals match this tuple", for any join predicate.

    ``useful``: the tuples with a counted later partner; one entry per counted later partner,
    sorted by (``owner``, ``when``): ``owner`` indexes ``useful`` and ``when`` is the partner's
    arrival time (> the owner's). ``span`` exceeds every time; ``constant`` is the number of
    same-time pairs (always produced). With ``gain`` (whole numbers, one per entry, at most one
    entry per (owner, when)) the entries are exits worth ``gain`` instead of partners counted."""
    group = groups_of(wl, variable)[useful]
    start = wl.time[useful]
    if gain is None:
        last = np.ones(len(owner), dtype=bool)  # keep one exit per distinct partner time
        last[:-1] = (owner[1:] != owner[:-1]) | (when[1:] != when[:-1])
        run = np.flatnonzero(np.diff(owner, prepend=-1))  # first entry of each owner's partners
        gain = (np.arange(len(owner)) - np.repeat(run, np.diff(run, append=len(owner))) + 1)[last]
        owner, when = owner[last], when[last]

    codes, node, (tl_tail, tl_head, tl_group) = timeline_nodes(
        np.concatenate([group, group[owner]]), np.concatenate([start, when]), span)
    n_timeline = len(codes)
    star = n_timeline + np.arange(len(useful))
    tails, heads, caps, costs = concat_arcs([
        (tl_tail, tl_head, group_caps[tl_group], 0),
        (node(group, start), star, 1, 0),
        (star[owner], node(group[owner], when), 1, -gain),
    ])
    supply_nodes, supplies = timeline_supplies(codes, span, group_caps)
    first_exit = len(tl_tail) + len(useful)

    def decode(flows: np.ndarray) -> Schedule:
        used = flows[first_exit:] > 0
        left = wl.time.copy()
        left[useful[owner[used]]] = when[used]
        return Schedule(left > wl.time, left)

    return FlowGraph(n_timeline + len(useful), tails, heads, caps, costs, supply_nodes, supplies,
                     constant, decode, (codes // span, codes % span))
