"""OPT and OPTV: the offline optimum by min-cost flow (Das, Gehrke, Riedewald 2003, §3.2.2).

:func:`solve_opt` builds one of the equivalent networks (``compact``: the star network of
:mod:`.compact`; ``keyed``: the star network with one lane per (side, key); ``paper``: the §3.2.1 /
Figure 2 construction; ``auto``, the default: the smaller of ``compact`` and ``keyed`` by their size
estimates), solves it (``ssp``: the specialized primal-dual solver of :mod:`.ssp`;
``ortools``: OR-Tools' ``SimpleMinCostFlow``, the reference; both integral, §3.2.2 Theorem 2),
reads the per-tuple schedule off the flow and reports outputs, EXACT, ratio and the
Archive-metric (§2.2) of that schedule.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Callable

import numpy as np
from ortools.graph.python.min_cost_flow import SimpleMinCostFlow

from shedding.errors import ShedError
from shedding.exact import KeyedStreams, exact_count
from shedding.metrics import archive_metric
from shedding.model import Memory, Optimum, Schedule, Workload, check_workload
from shedding.offline.bounds import Bounds, opt_bounds
from shedding.offline.compact import build_compact, estimate_compact
from shedding.offline.keyed import build_keyed, estimate_keyed, lanes_merge
from shedding.offline.network import FlowGraph, estimate_bytes
from shedding.offline.paper import build_paper, estimate_paper
from shedding.offline.potentials import lagrangian_potentials
from shedding.offline.ssp import solve_dag_flow

GIB = 1 << 30
DEFAULT_MAX_GRAPH_BYTES = 4 * GIB
ALLOCATIONS = ("fixed", "variable")

#: name -> (size estimate (nodes, arcs), builder); every builder encodes the same optimum.
GRAPHS: dict[str, tuple[Callable[[Workload, KeyedStreams, bool], tuple[int, int]],
                        Callable[[Workload, KeyedStreams, np.ndarray, bool], FlowGraph]]] = {
    "compact": (estimate_compact, build_compact),
    "keyed": (estimate_keyed, build_keyed),
    "paper": (estimate_paper, build_paper),
}
#: ``graph`` names :func:`solve_opt` takes: the networks and ``auto``.
GRAPH_CHOICES = ("auto", *GRAPHS)


@dataclass
class OptResult(Optimum):
    """The offline optimum and the schedule that reaches it.

    ``outputs`` counts every counted result (same-time pairs included); ``arm`` is the
    Archive-metric (§2.2) of ``schedule``; ``nodes`` / ``arcs`` the size of the solved network.
    """

    arm: int
    schedule: Schedule
    memory: int
    memory_r: int | None
    memory_s: int | None
    allocation: str
    graph: str
    solver: str
    nodes: int
    arcs: int
    build_seconds: float
    solve_seconds: float

    @property
    def policy(self) -> str:
        """``opt`` (fixed split) or ``optv`` (variable split), lower case like the online policies."""
        return "opt" if self.allocation == "fixed" else "optv"

    @property
    def seconds(self) -> float:
        """Build plus solve time."""
        return self.build_seconds + self.solve_seconds

    def as_dict(self) -> dict:
        """The JSON row (the schedule itself is left out)."""
        return {
            "policy": self.policy,
            "outputs": int(self.outputs),
            "exact": int(self.exact),
            "ratio": round(self.ratio, 6),
            "arm": int(self.arm),
            "memory": self.memory,
            "memory_r": self.memory_r,
            "memory_s": self.memory_s,
            "allocation": self.allocation,
            "graph": self.graph,
            "solver": self.solver,
            "nodes": self.nodes,
            "arcs": self.arcs,
            "build_seconds": round(self.build_seconds, 4),
            "solve_seconds": round(self.solve_seconds, 4),
            "seconds": round(self.seconds, 4),
        }


def _size(n_bytes: float) -> str:
    return f"{n_bytes / GIB:.1f} GiB" if n_bytes >= GIB / 10 else f"{n_bytes / 2**20:.0f} MiB"


def check_opt_memory(memory: int | Memory, split: object, allocation: str,
                     bounds: tuple[int, int] | None = None) -> tuple[int, int | None, int | None]:
    """M and the split (M_R, M_S) of the fixed allocation under the time range ``bounds``, checked
    (:meth:`shedding.model.Memory.of`, which also resolves a default split for the range, as the
    online policies do; a :class:`~shedding.model.Memory` is checked already); the variable
    allocation takes no split and returns (M, None, None)."""
    if allocation == "variable":
        if split is not None:
            raise ShedError("a memory split applies to the fixed allocation only; drop {param} or use allocation "
                            "fixed", param="memory_split")
        return Memory.of(memory).total, None, None
    budget = Memory.of(memory, split, bounds)  # type: ignore[arg-type]
    return budget.total, budget.r, budget.s


def group_caps(wl: Workload, m: int, m_r: int | None, m_s: int | None, variable: bool) -> np.ndarray:
    """The timeline capacities: ``[M]`` (variable split) or ``[M_R, M_S]``, each cut to the tuples
    of its group (no schedule holds more, so a larger M changes nothing)."""
    if variable:
        return np.minimum([m], [len(wl)]).astype(np.int64)
    assert m_r is not None and m_s is not None, "the fixed allocation has a split (check_opt_memory)"
    return np.minimum([m_r, m_s], [wl.n_r, wl.n_s]).astype(np.int64)


def solve_ortools(graph: FlowGraph) -> tuple[int, np.ndarray]:
    """Solve with OR-Tools' ``SimpleMinCostFlow`` (the reference); returns (optimal cost, arc flows)."""
    if graph.n_arcs == 0:
        return 0, np.zeros(0, dtype=np.int64)
    mcf = SimpleMinCostFlow()
    mcf.add_arcs_with_capacity_and_unit_cost(graph.tails, graph.heads, graph.caps, graph.costs)
    mcf.set_nodes_supplies(graph.supply_nodes, graph.supplies)
    status = mcf.solve()
    if status != mcf.OPTIMAL:  # the timeline always carries the whole supply
        raise RuntimeError(f"min-cost flow did not solve to optimality: {status}")
    return int(mcf.optimal_cost()), np.asarray(mcf.flows(np.arange(graph.n_arcs, dtype=np.int32)))


def solve_ssp(graph: FlowGraph) -> tuple[int, np.ndarray]:
    """Solve with the specialized primal-dual solver of :mod:`.ssp`."""
    if graph.n_arcs == 0:
        return 0, np.zeros(0, dtype=np.int64)
    return solve_dag_flow(graph.n_nodes, graph.tails, graph.heads, graph.caps, graph.costs,
                          graph.supply_nodes, graph.supplies, graph.potentials)


#: name -> min-cost-flow backend; both return an optimal flow of any network here.
SOLVERS: dict[str, Callable[[FlowGraph], tuple[int, np.ndarray]]] = {"ssp": solve_ssp, "ortools": solve_ortools}


def check_options(allocation: str, graph: str, solver: str) -> None:
    """Refuse an unknown allocation, network or backend of :func:`solve_opt` (callers can check
    before they read a workload)."""
    if allocation not in ALLOCATIONS:
        raise ShedError(f"unknown {{param}} {allocation!r}; use fixed (OPT) or variable (OPTV)", param="allocation")
    if graph not in GRAPH_CHOICES:
        raise ShedError(f"unknown {{param}} {graph!r}; use one of: {', '.join(GRAPH_CHOICES)}", param="graph")
    check_solver(solver)


def check_solver(solver: str) -> None:
    """Refuse a min-cost-flow backend that is not one of :data:`SOLVERS`."""
    if solver not in SOLVERS:
        raise ShedError(f"unknown {{param}} {solver!r}; use one of: {', '.join(SOLVERS)}", param="solver")


def pick_graph(wl: Workload, graph: str, variable: bool, ks: KeyedStreams) -> tuple[str, int, int]:
    """The network to build and its estimated (nodes, arcs): ``graph`` itself, or for ``auto`` the
    smaller (nodes + arcs) of ``compact`` (about one arc per counted partner pair, so it grows
    with the window) and ``keyed`` (O(N) arcs whatever the window; not under a time range whose
    tuples wait for it to begin, :func:`~shedding.offline.keyed.lanes_merge`). Both give the same optimum;
    the solver's work per phase is about nodes + arcs. On the weather sample at w = 5000 the
    keyed network is 150x smaller and OPTV solves 75x faster; on Zipf(1) at w = 400 the two are
    within 15% of each other."""
    if graph != "auto":
        return (graph, *GRAPHS[graph][0](wl, ks, variable))
    sizes = {name: GRAPHS[name][0](wl, ks, variable) for name in ("compact", "keyed")
             if name != "keyed" or lanes_merge(wl)}
    name = min(sizes, key=lambda g: sum(sizes[g]))
    return (name, *sizes[name])


class GraphTooLarge(ShedError):
    """The OPT network's estimated size is over the limit (raised by :func:`check_size` before
    anything is built); callers that can fall back to :func:`bound_opt` catch this one."""


def check_size(wl: Workload, allocation: str = "fixed", graph: str = "auto",
               max_graph_bytes: int = DEFAULT_MAX_GRAPH_BYTES, ks: KeyedStreams | None = None,
               solver: str = "ssp") -> tuple[str, int, int]:
    """Refuse, before anything is built, a network whose estimated size with the solver's
    workspace exceeds ``max_graph_bytes`` (:class:`GraphTooLarge`, naming the size and the
    parameter that raises the limit); else (the network to build, ``graph`` or ``auto``'s pick, and its
    estimated nodes and arcs)."""
    check_options(allocation, graph, solver)
    graph, nodes, arcs = pick_graph(wl, graph, allocation == "variable", ks or KeyedStreams.of(wl))
    need = estimate_bytes(nodes, arcs, len(wl), solver)
    if need > max_graph_bytes:
        raise GraphTooLarge(
            f"the {graph} OPT graph would need about {_size(need)} with the {solver} solver's workspace ({nodes} "
            f"nodes, {arcs} arcs), over the {max_graph_bytes / GIB:.3g} GiB limit; raise it with {{param}}, "
            f"shorten the workload, or bound OPT with {{bounds}}", param="max_graph_bytes", names={"bounds": "bound_opt"})
    return graph, nodes, arcs


def solve_opt(
    wl: Workload,
    memory: int | Memory,
    memory_split: tuple[int, int] | None = None,
    allocation: str = "fixed",
    graph: str = "auto",
    max_graph_bytes: int = DEFAULT_MAX_GRAPH_BYTES,
    solver: str = "ssp",
) -> OptResult:
    """OPT or OPTV (§3.2): the most outputs any schedule within the memory reaches, by min-cost
    flow, and a schedule that reaches it.

    Refuses, before building anything, a network whose estimated size exceeds
    ``max_graph_bytes``; :func:`bound_opt` bounds the optimum of any workload instead.

    Args:
        wl: The workload (:class:`~shedding.model.Workload`).
        memory: M, the tuples the join may hold at once (an integer >= 0, or a checked
            :class:`~shedding.model.Memory`).
        memory_split: (M_R, M_S), summing to ``memory``, for ``allocation='fixed'``; default
            (M // 2, M - M // 2). Refused for ``'variable'``.
        allocation: ``fixed`` (OPT: at most M_R R- and M_S S-tuples) or ``variable`` (OPTV:
            at most M tuples).
        graph: The network: ``compact``, ``keyed``, or ``auto`` (the smaller of the two, see
            :func:`pick_graph`); all give the same optimum.
        max_graph_bytes: The limit on the network's estimated size with the solver's
            workspace, in bytes (default 4 GiB).
        solver: The min-cost-flow backend: ``ssp`` (the specialized primal-dual solver) or
            ``ortools`` (the reference).

    Returns:
        An :class:`OptResult`: the optimum, EXACT, the schedule's ArM, the schedule, and the
        network's size and build and solve times.

    Raises:
        ShedError: A bad argument, naming it in ``param``: ``wl``, ``memory``,
            ``memory_split``, ``allocation``, ``graph`` or ``solver``.
        GraphTooLarge: The network would exceed ``max_graph_bytes`` (``param``
            ``max_graph_bytes``).
    """
    check_workload(wl)
    check_options(allocation, graph, solver)
    m, m_r, m_s = check_opt_memory(memory, memory_split, allocation, wl.bounds)
    variable = allocation == "variable"

    t0 = time.perf_counter()
    ks = KeyedStreams.of(wl)  # one sorted index for the estimate, the network, EXACT and ArM
    graph = check_size(wl, allocation, graph, max_graph_bytes, ks, solver)[0]
    caps = group_caps(wl, m, m_r, m_s, variable)
    net = GRAPHS[graph][1](wl, ks, caps, variable)
    t1 = time.perf_counter()
    if solver == "ssp" and net.timeline is not None:  # the compact network: warm start (potentials, primal_dual)
        net = replace(net, potentials=lagrangian_potentials(wl, ks, net, caps, variable))
    cost, flows = SOLVERS[solver](net)
    t2 = time.perf_counter()
    schedule = net.decode(flows)
    return OptResult(
        outputs=net.constant - cost,
        exact=exact_count(wl, ks),
        arm=archive_metric(wl, schedule, ks=ks),
        schedule=schedule,
        memory=m,
        memory_r=m_r,
        memory_s=m_s,
        allocation=allocation,
        graph=graph,
        solver=solver,
        nodes=int(net.n_nodes),
        arcs=net.n_arcs,
        build_seconds=t1 - t0,
        solve_seconds=t2 - t1,
    )


def bound_opt(
    wl: Workload,
    memory: int | Memory,
    memory_split: tuple[int, int] | None = None,
    allocation: str = "fixed",
    iterations: int = 30,
) -> Bounds:
    """Lower and upper bounds on OPT / OPTV (§3.2) without solving the flow network
    (:mod:`.bounds`: the best online policy's output and a Lagrangian relaxation of the memory
    limits); any workload size, O(counted partners) per subgradient iteration.

    Args:
        wl: The workload (:class:`~shedding.model.Workload`).
        memory: M, the tuples the join may hold at once (an integer >= 0, or a checked
            :class:`~shedding.model.Memory`).
        memory_split: (M_R, M_S) for ``allocation='fixed'``; default (M // 2, M - M // 2).
            Refused for ``'variable'``.
        allocation: ``fixed`` (OPT) or ``variable`` (OPTV).
        iterations: The most subgradient iterations of the relaxation.

    Returns:
        A :class:`~shedding.offline.bounds.Bounds`: ``lower <= OPT <= upper``, the policy
        whose schedule gives ``lower``, EXACT, and the iterations run.

    Raises:
        ShedError: A bad argument, naming it in ``param``: ``wl``, ``memory``,
            ``memory_split`` or ``allocation``.
    """
    check_workload(wl)
    check_options(allocation, "compact", "ssp")
    m, m_r, m_s = check_opt_memory(memory, memory_split, allocation, wl.bounds)
    ks = KeyedStreams.of(wl)
    split = None if m_r is None or m_s is None else (m_r, m_s)  # None exactly for the variable allocation
    return opt_bounds(wl, m, split, allocation, group_caps(wl, m, m_r, m_s, allocation == "variable"), ks, iterations)
