"""How the pages write numbers."""

from __future__ import annotations

import math


def pct(value: float | None) -> str:
    """A fraction as a percentage (0.123 -> "12.3%"), "-" when unknown."""
    return "-" if value is None or not math.isfinite(float(value)) else f"{100 * value:.1f}%"
