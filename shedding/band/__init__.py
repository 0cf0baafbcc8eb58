"""Band joins |r.a_i - s.a_i| <= eps_i (the band join of DeWitt, Naughton and Schneider, VLDB
1991) in the sliding-window join of Das, Gehrke and Riedewald (SIGMOD 2003, §2.1), shed by its
policies (§3.3) and measured against its optimum (§3.2) and static truncation (§3.1.1).

The family's shape: ``predicate`` (the model: exact scaling of attributes and eps, the
:class:`BandWorkload`); ``exact`` (EXACT, pair enumeration and ArM); ``estimator``, ``kernel``
and ``operator`` (PROB's band probability from a histogram, the compiled join and the operator
with the online policies); ``simulate`` (a policy over a whole workload); ``opt`` (OPT/OPTV on
the compact network, :func:`solve_opt`); ``static`` (static k-truncation on the band join
graph).

Names are imported on first use (PEP 562), so that ``import shedding.band`` loads neither
numba nor OR-Tools.
"""

from shedding import lazy_exports

#: public name -> the module that defines it
_EXPORTS = {
    "BandWorkload": "predicate", "parse_eps": "predicate",
    "BandIndex": "exact", "archive_metric": "exact", "exact_count": "exact", "exact_pairs": "exact",
    "BandHistogram": "estimator", "BandJoinOperator": "operator",
    "BandReference": "simulate", "simulate_band": "simulate",
    "solve_opt": "opt", "static_truncation": "static",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
