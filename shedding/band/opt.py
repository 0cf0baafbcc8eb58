"""OPT and OPTV for band joins on the compact (star) network (Das, Gehrke, Riedewald 2003,
§3.2; the star network of :mod:`shedding.offline.compact`).

The star network needs only "which later arrivals match this tuple": the band pairs from
:mod:`.exact` give, per tuple, its counted later partners' arrival times, and
:func:`shedding.offline.compact.star_network` builds the same network as for the equi-join. The
keyed network (:mod:`shedding.offline.keyed`) does not carry over: it routes a tuple's slot along
one lane per (side, key), which presumes that partners share one key and that partnership is an
equivalence; a band tuple's partners are a range that overlaps other tuples' ranges differently.
The paper's Figure 2 network carries over in principle (its arcs are per (tuple, time)), at
Theta(wN) size; only the compact one is built here.
"""

from __future__ import annotations

import time

import numpy as np

from shedding.errors import ShedError
from shedding.model import Memory
from shedding.offline.compact import star_network
from shedding.offline.network import FlowGraph, estimate_bytes
from shedding.offline.opt import (DEFAULT_MAX_GRAPH_BYTES, GIB, SOLVERS, OptResult, check_opt_memory, check_options,
                                  group_caps)
from shedding.band.exact import archive_metric
from shedding.band.predicate import BandWorkload
from shedding.band.simulate import BandReference


def build_band_star(bw: BandWorkload, pairs: np.ndarray, caps: np.ndarray, variable: bool) -> FlowGraph:
    """The star network of a band join from its counted pairs (``(r, s)`` rows)."""
    wl = bw.workload
    t = wl.time[pairs]
    apart = t[:, 0] != t[:, 1]
    earlier = np.where(t[:, 0] < t[:, 1], pairs[:, 0], pairs[:, 1])[apart]
    when = t.max(axis=1)[apart]
    order = np.lexsort((when, earlier))
    earlier, when = earlier[order], when[order]
    useful = np.unique(earlier)
    owner = np.searchsorted(useful, earlier)
    span = int(wl.time[-1]) + 2 * wl.window + 2 if len(wl) else 1
    return star_network(wl, caps, variable, useful, owner, when, span, int(np.count_nonzero(~apart)))


def solve_opt(
    bw: BandWorkload,
    memory: int | Memory,
    memory_split: tuple[int, int] | None = None,
    allocation: str = "fixed",
    solver: str = "ssp",
    reference: BandReference | None = None,
    max_graph_bytes: int = DEFAULT_MAX_GRAPH_BYTES,
) -> OptResult:
    """OPT (fixed split) or OPTV (variable split) of a band join (§3.2) and the schedule
    reaching it, by min-cost flow on the compact (star) network.

    Args:
        bw: The band join's workload.
        memory: M, the tuples the join may hold at once (an integer >= 0, or a checked
            :class:`~shedding.model.Memory`).
        memory_split: (M_R, M_S) for ``allocation='fixed'``; default (M // 2, M - M // 2).
            Refused for ``'variable'``.
        allocation: ``fixed`` (OPT) or ``variable`` (OPTV).
        solver: The min-cost-flow backend: ``ssp`` or ``ortools``.
        reference: EXACT's pairs of ``bw`` (:class:`~shedding.band.simulate.BandReference`);
            computed here when None.
        max_graph_bytes: The limit on the network's estimated size, in bytes (default 4 GiB).

    Returns:
        An :class:`~shedding.offline.opt.OptResult`.

    Raises:
        ShedError: A bad ``memory``, ``memory_split``, ``allocation`` or ``solver`` (naming it
            in ``param``), or a network over ``max_graph_bytes``.
    """
    check_options(allocation, "compact", solver)
    m, m_r, m_s = check_opt_memory(memory, memory_split, allocation)
    variable = allocation == "variable"
    wl = bw.workload
    t0 = time.perf_counter()
    ref = reference or BandReference.of(bw)
    n_pairs = len(ref.pairs)
    need = estimate_bytes(3 * len(wl) + n_pairs, 2 * len(wl) + 2 * n_pairs)
    if need > max_graph_bytes:
        raise ShedError(f"the band OPT graph would need about {need / GIB:.1f} GiB ({n_pairs:,} pairs), over the "
                        f"{max_graph_bytes / GIB:.3g} GiB limit; shorten the workload or narrow eps")
    net = build_band_star(bw, ref.pairs, group_caps(wl, m, m_r, m_s, variable), variable)
    t1 = time.perf_counter()
    cost, flows = SOLVERS[solver](net)
    t2 = time.perf_counter()
    schedule = net.decode(flows)
    return OptResult(
        outputs=net.constant - cost, exact=ref.exact, arm=archive_metric(bw, schedule, ref.pairs),
        schedule=schedule, memory=m, memory_r=m_r, memory_s=m_s, allocation=allocation, graph="compact",
        solver=solver, nodes=int(net.n_nodes), arcs=net.n_arcs, build_seconds=t1 - t0, solve_seconds=t2 - t1)
