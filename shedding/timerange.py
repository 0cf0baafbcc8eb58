"""The time range of a join: r and s pair when ``lo <= s.time - r.time <= hi`` (docs/semantics.md,
"Time range"). The sliding window of Das, Gehrke, Riedewald (SIGMOD 2003, §2.1) is the symmetric
range ``(-(w-1), w-1)``; a one-sided range (an arrival within 12 hours after its departure) is what
event-stream joins mostly ask for.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from shedding.errors import ShedError

#: the bound on a range's ends: a time plus or minus either end stays within 64-bit integers
RANGE_LIMIT = 2**62


def window_range(window: int) -> tuple[int, int]:
    """The symmetric window w as a range: ``(-(w-1), w-1)`` (docs/semantics.md)."""
    return -(int(window) - 1), int(window) - 1


def range_horizon(lo: int, hi: int) -> int:
    """The longest a tuple waits for a partner under the range (lo, hi), plus one: an R tuple waits
    ``hi`` steps, an S tuple ``-lo`` (w for the window (-(w-1), w-1)); the age-aware policies learn
    over the ages below it."""
    return max(hi, -lo, 0) + 1


def lives_apart(lo: int, hi: int) -> bool:
    """Whether the two sides' tuples live for different times under the range (lo, hi): an R tuple
    waits ``hi`` steps for a partner and an S tuple ``-lo``, the same only on a symmetric window."""
    return hi != -lo


def check_range(value: Any, param: str = "range") -> tuple[int, int]:
    """Validate a time range ``(lo, hi)``: two integers (not booleans or fractions) with
    ``lo <= hi``, each within +-2^62 so that a time plus either end fits in 64 bits."""
    try:
        parts = tuple(value)
    except TypeError:
        parts = ()
    if len(parts) != 2 or not all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
                                  for v in parts):
        raise ShedError(f"{{param}} must be two integers lo,hi (lo <= s.time - r.time <= hi), got {value!r}",
                        param=param)
    lo, hi = (int(v) for v in parts)
    if lo > hi:
        raise ShedError(f"{{param}} {lo},{hi} is empty (lo > hi); give lo <= hi", param=param)
    if max(abs(lo), abs(hi)) > RANGE_LIMIT:
        raise ShedError(f"{{param}} {lo},{hi} does not fit in 64-bit integers; keep both ends within +-2^62",
                        param=param)
    return lo, hi
