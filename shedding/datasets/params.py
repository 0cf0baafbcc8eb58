"""Parameter checks shared by the generators beyond i.i.d. streams (age, drift, bursts, flights).

Each returns the value in its canonical type or raises a one-line :class:`ShedError` naming the
parameter (``{param}``), so that the command layer can name its flag instead.
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any

from shedding.datasets.zipf import CORRELATIONS
from shedding.errors import ShedError


def whole(value: Any, param: str, minimum: int = 0) -> int:
    """An integer >= ``minimum`` (an integral float such as 50.0 is accepted)."""
    ok = not isinstance(value, bool) and isinstance(value, Real) and math.isfinite(value) \
        and (isinstance(value, Integral) or float(value).is_integer()) and int(value) >= minimum
    if not ok:
        raise ShedError(f"{{param}} must be an integer >= {minimum}, got {value!r}", param=param)
    return int(value)


def real(value: Any, param: str, low: float = 0.0, high: float | None = None) -> float:
    """A finite number in [low, high] (no upper bound when ``high`` is None)."""
    ok = not isinstance(value, bool) and isinstance(value, Real) and math.isfinite(value) \
        and value >= low and (high is None or value <= high)
    if not ok:
        bound = f">= {low:g}" if high is None else f"in [{low:g}, {high:g}]"
        raise ShedError(f"{{param}} must be a number {bound}, got {value!r}", param=param)
    return float(value)


def correlation(value: Any, param: str = "correlation") -> str:
    """One of the Zipf generator's rank-to-value mappings."""
    if value not in CORRELATIONS:
        raise ShedError(f"unknown {{param}} {value!r}; choose one of {', '.join(CORRELATIONS)}", param=param)
    return str(value)
