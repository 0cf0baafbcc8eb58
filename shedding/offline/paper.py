"""The paper's OPT-offline flow graph (Das, Gehrke, Riedewald 2003, §3.2.1, Figure 2).

A node ``x:j`` per tuple ``x`` and step ``j`` at which ``x`` may be present (its arrival, or a
later step up to its expiry ``a + w - 1`` at whose join it may still be in memory). All arcs have
capacity 1 unless noted.

- *survive* (horizontal) ``x:j -> x:k``, ``k`` the next step: ``x`` is still in memory at ``k``;
  it costs minus the counted partners of ``x`` arriving at ``k`` (the only arcs with a cost
  besides the top path, so the flow cost is minus the output, §3.2.2);
- *replacement* ``x:j -> y:j`` from every ``x`` held before step ``j`` to every ``y`` arriving at
  ``j``: ``y`` takes ``x``'s place after ``x`` has joined the arrivals of ``j`` (same side only
  under the fixed split; under the variable split also the *cross-arcs* to the other side);
- the *top path* ``s -> P_1 -> ... -> t`` through the times with same-time pairs carries one
  extra unit of flow (supply ``M + 1``) and collects those pairs.

Deviations, needed to be exact under the join semantics (docs/semantics.md: batches, time gaps,
expiry, warmup, any M):

- steps are the distinct arrival times, not every integer (nothing happens in between);
- a chain of *idle-slot* nodes ``E_j`` per memory group (capacity ``M_R`` / ``M_S``, or ``M``)
  replaces "the first M tuples always fit": ``s -> E_first``, ``E_j -> E_k`` keeps a slot empty,
  ``E_j -> y:j`` admits an arrival into an empty slot and ``x:j -> E_j`` (``x`` held before
  ``j``) frees ``x``'s slot with no replacement (``x`` is dropped, or expires before the next
  step; the paper's streams never leave a slot empty), ``E_last -> t``;
- outputs before ``warmup`` cost 0 (§3.2.1's remark on start-up effects, with the semantics' warmup);
- the top path has one node per time with same-time pairs and costs minus their number (a batch
  may hold several tuples per side).

A unit entering an arrival's node ``y:a`` can only leave by ``y``'s survive arc, so every node
carries at most one tuple and the graph is acyclic (steps in time order; at one step the held
nodes, then ``E_j``, then the arrivals). Size: ``sum_x (steps in [a_x, a_x + w - 1])``, i.e. Theta(wN), nodes (§3.2.2's
``2wN + N + 2`` bound in the tuple-synchronous model) and about ``2 + (batch size)`` arcs each.
"""

from __future__ import annotations

import numpy as np

from shedding.model import Schedule, Workload
from shedding.exact import KeyedStreams, partner_times, ranges_to_positions
from shedding.offline.network import ArcGroup, FlowGraph, concat_arcs, groups_of, same_time_partners


def _node_ranges(wl: Workload, steps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per tuple: the step positions ``[first, stop)`` at which it may be present (up to its last
    partner time, ``a + w - 1`` for the window)."""
    first = np.searchsorted(steps, wl.time)
    return first, np.maximum(np.searchsorted(steps, partner_times(wl)[1], side="right"), first + 1)


def estimate_paper(wl: Workload, ks: KeyedStreams, variable: bool) -> tuple[int, int]:
    """Upper bounds on (nodes, arcs) of :func:`build_paper`, from counts only."""
    steps = wl.event_times()
    n_steps, n_groups = len(steps), 1 if variable else 2
    group = groups_of(wl, variable)
    first, stop = _node_ranges(wl, steps)
    # nodes of tuples held before each (group, step): +1 after the arrival, -1 at the end
    diff = np.zeros(n_groups * (n_steps + 1), dtype=np.int64)
    np.add.at(diff, group * (n_steps + 1) + first + 1, 1)
    np.add.at(diff, group * (n_steps + 1) + np.maximum(stop, first + 1), -1)
    held = np.cumsum(diff.reshape(n_groups, n_steps + 1), axis=1)
    n_nodes = int((stop - first).sum())
    replaced = int(held[group, first].sum())
    return 2 + (n_groups + 1) * n_steps + n_nodes, 2 * n_nodes + replaced + (n_groups + 1) * (n_steps + 1)


def build_paper(wl: Workload, ks: KeyedStreams, group_caps: np.ndarray, variable: bool) -> FlowGraph:
    """The §3.2.1 graph adapted as described in the module docstring. ``group_caps`` is
    ``[M_R, M_S]`` for the fixed split and ``[M]`` for the variable one."""
    steps = wl.event_times()
    n_steps, n_groups = len(steps), len(group_caps)
    group = groups_of(wl, variable)
    first, stop = _node_ranges(wl, steps)

    # same-time pairs per step, for the top path
    idx, count = same_time_partners(wl, ks)
    pairs_at = np.bincount(np.searchsorted(steps, wl.time[idx]), weights=count, minlength=n_steps).astype(np.int64)
    top_steps = np.flatnonzero(pairs_at)

    # node ids: s = 0, t = 1, idle slots E, top path P, then the x:j nodes tuple by tuple
    src, sink = 0, 1
    idle = 2 + np.arange(n_groups * n_steps).reshape(n_groups, n_steps)
    top = 2 + n_groups * n_steps + np.arange(len(top_steps))
    base = 2 + n_groups * n_steps + len(top_steps)
    owner, pos = ranges_to_positions(first, stop)
    node = base + np.arange(len(owner))
    arrival_node = base + np.concatenate([[0], np.cumsum(stop - first)[:-1]])
    g = group[owner]

    # survive x:j -> x:j+1, costing the counted partners of x arriving at step j + 1 (within its range)
    survive = np.flatnonzero(pos + 1 < stop[owner])
    k = pos[survive] + 1
    lo, hi = ks.range_in(ks.partner_lane(wl)[owner[survive]], steps[k], steps[k])
    begun = steps[k] >= partner_times(wl)[0][owner[survive]]
    gain = np.where((steps[k] >= wl.warmup) & begun, hi - lo, 0)

    # replacement: every x:j held before step j (not arriving at j) -> every arrival y at j
    held = np.flatnonzero(pos > first[owner])
    held_code = g[held] * n_steps + pos[held]
    order = np.argsort(held_code, kind="stable")
    by_code = held[order]
    held_code = held_code[order]
    arrival_code = group * n_steps + first
    r_lo = np.searchsorted(held_code, arrival_code, side="left")
    r_hi = np.searchsorted(held_code, arrival_code, side="right")
    r_y, r_pos = ranges_to_positions(r_lo, r_hi)

    parts: list[ArcGroup] = [
        (idle[group, first], arrival_node, 1, 0),
        (node[survive], node[survive] + 1, 1, -gain),
        (node[held], idle[g[held], pos[held]], 1, 0),
        (node[by_code[r_pos]], arrival_node[r_y], 1, 0),
    ]
    if n_steps:
        parts += [
            (np.full(n_groups, src), idle[:, 0], group_caps, 0),
            (idle[:, :-1].ravel(), idle[:, 1:].ravel(), np.repeat(group_caps, n_steps - 1), 0),
            (idle[:, -1], np.full(n_groups, sink), group_caps, 0),
        ]
    if len(top):
        parts.append((np.concatenate([[src], top]), np.concatenate([top, [sink]]), 1,
                      np.concatenate([-pairs_at[top_steps], [0]])))
    tails, heads, caps, costs = concat_arcs(parts)
    total = (int(group_caps.sum()) if n_steps else 0) + (1 if len(top) else 0)
    survive_arcs = slice(len(wl), len(wl) + len(survive))  # after one admission arc per tuple

    def decode(flows: np.ndarray) -> Schedule:
        kept = flows[survive_arcs] > 0
        n_kept = np.bincount(owner[survive[kept]], minlength=len(wl))
        # x is held after the steps first .. first + n_kept - 1 and leaves at the next one
        left = np.where(n_kept > 0, steps[first + n_kept], wl.time)
        return Schedule(n_kept > 0, left)

    return FlowGraph(base + len(owner), tails, heads, caps, costs, np.array([src, sink], np.int32),
                     np.array([total, -total], np.int64), 0, decode)
