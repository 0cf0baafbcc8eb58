"""Offline shedding (Das, Gehrke, Riedewald 2003, §3): OPT / OPTV by min-cost flow (§3.2), its
bounds, static k-truncation (§3.1.1) and the multi-relation join (§3.1.2).

Names are imported on first use (PEP 562), so that ``import shedding.offline`` loads neither
numba nor OR-Tools.
"""

from shedding import lazy_exports

#: public name -> the module that defines it
_EXPORTS = {
    "ALLOCATIONS": "opt", "DEFAULT_MAX_GRAPH_BYTES": "opt", "GRAPHS": "opt", "SOLVERS": "opt",
    "OptResult": "opt", "bound_opt": "opt", "solve_opt": "opt",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
