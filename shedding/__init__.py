"""shedding: semantic load shedding for sliding-window stream joins.

After Das, Gehrke, Riedewald, "Approximate Join Processing Over Data Streams", SIGMOD 2003.

The public names are imported on first use (PEP 562), so that ``import shedding`` and the
``shed`` command's ``--help`` do not pay for pandas, numba and Spark. Every package of the
library exports its names the same way: a ``_EXPORTS`` table (public name -> the submodule that
defines it) and ``__getattr__ = lazy_exports(__name__, _EXPORTS)``.
"""

from __future__ import annotations

import sys
from importlib import import_module
from typing import Any, Callable

__version__ = "0.4.0"


def lazy_exports(package: str, exports: dict[str, str]) -> Callable[[str], Any]:
    """The PEP 562 ``__getattr__`` of ``package``: a name of ``exports`` (public name -> the
    submodule of ``package`` that defines it) is imported on first use and kept in the package."""

    def __getattr__(name: str) -> Any:
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{exports[name]}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__


#: public name -> the module that defines it
_EXPORTS = {
    "ShedError": "errors", "Workload": "model", "Schedule": "model", "RunResult": "model",
    "exact_count": "exact", "exact_pairs": "exact", "JoinOperator": "online", "simulate": "online",
    "zipf_workload": "datasets", "load_workload": "datasets", "load_two_streams": "datasets",
    "run_policy": "run", "POLICY_NAMES": "run",
}
__all__ = list(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
