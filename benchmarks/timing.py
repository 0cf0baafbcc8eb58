"""The benchmarks' shared timer: the median wall time of repeated runs (the figures in README are
medians measured in one run)."""

from __future__ import annotations

import statistics
import time
from typing import Callable, TypeVar

T = TypeVar("T")


def median_seconds(run: Callable[[], T], repeats: int) -> tuple[float, T]:
    """Run ``run`` ``repeats`` times; the median seconds and the last result."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result  # type: ignore[return-value]
