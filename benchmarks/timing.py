"""The benchmarks' shared timers: the median wall time of repeated runs, and the median CPU time
per call of a short call (the figures in README are medians measured in one run)."""

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


def median_cpu_per_call(call: Callable[[], object], calls: int, blocks: int) -> float:
    """The median over ``blocks`` blocks of ``calls`` calls of the CPU seconds per call of ``call``
    (``time.process_time``: on a shared machine the wall time of short calls swings with the load),
    after one call outside the timing (compiling or loading what it uses)."""
    call()
    per_block = []
    for _ in range(blocks):
        started = time.process_time()
        for _ in range(calls):
            call()
        per_block.append((time.process_time() - started) / calls)
    return statistics.median(per_block)
