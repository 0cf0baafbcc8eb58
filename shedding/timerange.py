"""The time range of a join: r and s pair when ``lo <= s.time - r.time <= hi`` (docs/semantics.md,
"Time range"). The sliding window of Das, Gehrke, Riedewald (SIGMOD 2003, §2.1) is the symmetric
range ``(-(w-1), w-1)``; a one-sided range (an arrival within 12 hours after its departure) is what
event-stream joins mostly ask for.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from shedding.errors import ShedError

#: the widest end of a range: its horizon (the end plus one, :func:`range_horizon`) is a window
#: that :func:`shedding.model.check_window` takes (2w + 2 within 64-bit integers), and a time plus
#: or minus either end stays within 64-bit integers
RANGE_LIMIT = 2**62 - 3


def window_range(window: int) -> tuple[int, int]:
    """The symmetric window w as a range: ``(-(w-1), w-1)`` (docs/semantics.md)."""
    return -(int(window) - 1), int(window) - 1


def range_horizon(lo: int, hi: int) -> int:
    """The longest a tuple waits for a partner under the range (lo, hi), plus one: an R tuple waits
    ``hi`` steps, an S tuple ``-lo`` (w for the window (-(w-1), w-1)); the age-aware policies learn
    over the ages below it."""
    return max(hi, -lo, 0) + 1


def stored_sides(lo: int, hi: int) -> tuple[bool, bool]:
    """Whether R and whether S tuples are ever stored under the range (lo, hi): a side is stored
    only if a later arrival can still pair with it (R when hi > 0, S when lo < 0; docs/semantics.md,
    "Time range")."""
    return hi > 0, lo < 0


def lives_apart(lo: int, hi: int) -> bool:
    """Whether the two sides' tuples live for different times under the range (lo, hi): an R tuple
    waits ``hi`` steps for a partner and an S tuple ``-lo``, the same only on a symmetric window."""
    return hi != -lo


def check_range(value: Any, param: str = "range") -> tuple[int, int]:
    """Validate a time range ``(lo, hi)``: two integers (not booleans or fractions) with
    ``lo <= hi``, each within +-:data:`RANGE_LIMIT` (2^62 - 3)."""
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
        raise ShedError(f"{{param}} {lo},{hi} reaches beyond 64-bit times; keep both ends from -{RANGE_LIMIT} "
                        f"to {RANGE_LIMIT} (2^62 - 3) steps", param=param)
    return lo, hi


def default_split(memory: int, bounds: tuple[int, int] | None = None) -> tuple[int, int]:
    """The fixed split of M when none is given: all of M to the one side the time range ``bounds``
    stores (R when lo >= 0 and hi > 0, S when hi <= 0 and lo < 0: the other side only meets tuples
    already there, docs/semantics.md "Time range"), else (M // 2, M - M // 2) (DGR §3.3, and the
    symmetric window)."""
    keeps_r, keeps_s = (True, True) if bounds is None else stored_sides(*bounds)
    if keeps_r != keeps_s:
        return (memory, 0) if keeps_r else (0, memory)
    return memory // 2, memory - memory // 2


def check_stored_split(m_r: int, m_s: int, bounds: tuple[int, int]) -> None:
    """Refuse a split giving memory to a side the range ``bounds`` never stores while the other is
    stored: it could never hold a tuple (docs/semantics.md, "Time range")."""
    keeps_r, keeps_s = stored_sides(*bounds)
    if keeps_r == keeps_s:
        return
    idle, side, used = (m_s, "S", "R") if keeps_r else (m_r, "R", "S")
    if idle:
        fix = f"{m_r + m_s},0" if keeps_r else f"0,{m_r + m_s}"
        raise ShedError(f"{{param}} {m_r},{m_s} gives {idle} tuples to {side}, which the range {bounds[0]},{bounds[1]} "
                        f"never stores (it only meets {used} tuples already there); give them to {used}: {fix}, "
                        "or drop it for that default", param="memory_split")
