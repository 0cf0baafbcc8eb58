"""shedding: semantic load shedding for sliding-window stream joins.

After Das, Gehrke, Riedewald, "Approximate Join Processing Over Data Streams", SIGMOD 2003.

The public names are imported on first use (PEP 562), so that ``import shedding`` and the
``shed`` command's ``--help`` do not pay for pandas, numba and Spark.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

#: public name -> the module that defines it
_EXPORTS = {
    "ShedError": ".errors", "Workload": ".model", "Schedule": ".model", "RunResult": ".model",
    "exact_count": ".exact", "exact_pairs": ".exact", "JoinOperator": ".online", "simulate": ".online",
    "zipf_workload": ".datasets", "load_workload": ".datasets", "load_two_streams": ".datasets",
}
__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(_EXPORTS[name], __name__), name)
    globals()[name] = value
    return value
