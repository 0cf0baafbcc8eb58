"""Online shedding: the join operator, its policies and estimators, and the batch simulator
(Das, Gehrke, Riedewald 2003, §2.1 and §3.3).

Names are imported on first use (PEP 562), so that reading the policy registry does not load
numba.
"""

from shedding import lazy_exports

#: public name -> the module that defines it
_EXPORTS = {
    "FeedResult": "engine", "JoinOperator": "engine",
    "OnlineEstimator": "estimators", "StaticEstimator": "estimators", "make_estimator": "estimators",
    "POLICIES": "policies", "Policy": "policies", "get_policy": "policies",
    "Reference": "simulator", "simulate": "simulator",
    "HazardTuning": "tuning",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
