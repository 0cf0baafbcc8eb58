"""Online shedding: the join operator, its policies and estimators, and the batch simulator.

Names are imported on first use (PEP 562), so that reading the policy registry does not load
numba.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

#: public name -> the module that defines it
_EXPORTS = {
    "FeedResult": "engine", "JoinOperator": "engine",
    "OnlineEstimator": "estimators", "StaticEstimator": "estimators", "make_estimator": "estimators",
    "POLICIES": "policies", "Policy": "policies", "get_policy": "policies",
    "Reference": "simulator", "simulate": "simulator",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    globals()[name] = value
    return value
