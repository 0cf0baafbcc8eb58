"""Offline shedding: OPT / OPTV by min-cost flow (Das, Gehrke, Riedewald 2003, §3.2)."""

from shedding.offline.opt import (
    ALLOCATIONS,
    DEFAULT_MAX_GRAPH_BYTES,
    GRAPHS,
    SOLVERS,
    OptResult,
    bound_opt,
    solve_opt,
)

__all__ = ["ALLOCATIONS", "DEFAULT_MAX_GRAPH_BYTES", "GRAPHS", "SOLVERS", "OptResult", "bound_opt", "solve_opt"]
