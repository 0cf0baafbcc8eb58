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

#: the most arrivals per step a generator draws: numpy's Poisson draws fail beyond about 1e18, and
#: a million per step fills any machine's memory within a few thousand steps
MAX_RATE = 1e6


def whole(value: Any, param: str, minimum: int = 0) -> int:
    """An integer >= ``minimum`` (an integral float such as 50.0 is accepted)."""
    ok = not isinstance(value, bool) and isinstance(value, Real) and math.isfinite(value) \
        and (isinstance(value, Integral) or float(value).is_integer()) and int(value) >= minimum  # type: ignore[call-overload]  # typeshed's numbers.Real has no __int__
    if not ok:
        raise ShedError(f"{{param}} must be an integer >= {minimum}, got {value!r}", param=param)
    return int(value)


def real(value: Any, param: str, low: float = 0.0, high: float | None = None) -> float:
    """A finite number in [low, high] (no upper bound when ``high`` is None)."""
    ok = not isinstance(value, bool) and isinstance(value, Real) and math.isfinite(value) \
        and value >= low and (high is None or value <= high)  # type: ignore[operator]  # typeshed's Real compares only to Real
    if not ok:
        bound = f">= {low:g}" if high is None else f"in [{low:g}, {high:g}]"
        raise ShedError(f"{{param}} must be a number {bound}, got {value!r}", param=param)
    return float(value)


def rate(value: Any, param: str, positive: bool = False) -> float:
    """Mean arrivals per step: a finite number in [0, :data:`MAX_RATE`] (> 0 with ``positive``,
    for a rate without which no tuple arrives)."""
    value = real(value, param, 0.0, MAX_RATE)
    if positive and value == 0.0:
        raise ShedError("{param} must be > 0: at 0 no tuple arrives", param=param)
    return value


def correlation(value: Any, param: str = "correlation") -> str:
    """One of the Zipf generator's rank-to-value mappings."""
    if value not in CORRELATIONS:
        raise ShedError(f"unknown {{param}} {value!r}; choose one of {', '.join(CORRELATIONS)}", param=param)
    return str(value)
