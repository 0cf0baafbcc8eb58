"""Hypothesis strategies shared by the test modules: workloads, tiny workloads for the brute
force, and W-join window constraints."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from shedding.model import Workload
from shedding.wjoin import Streams, WindowSpec


@st.composite
def workloads(draw, max_n=30):
    n = draw(st.integers(0, max_n))
    times = sorted(draw(st.lists(st.integers(0, 14), min_size=n, max_size=n)))
    sides = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    keys = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    return Workload(sides, times, keys, draw(st.integers(1, 6)), draw(st.integers(0, 6)))


@st.composite
def ranges(draw, span: int = 7) -> tuple[int, int]:
    lo = draw(st.integers(-span, span))
    return lo, lo + draw(st.integers(0, span))


@st.composite
def ranged(draw, max_n: int = 30) -> Workload:
    """A workload of :func:`workloads` with a random time range (lo > 0 and hi < 0 included)."""
    wl = draw(workloads(max_n=max_n))
    return wl.with_params(range=draw(ranges()))


@st.composite
def windows_for(draw, n: int) -> WindowSpec:
    """Form 1, 2 or 3 (a random connected constraint graph: a spanning tree plus some extra pairs)."""
    form = draw(st.sampled_from([1, 2, 3]))
    if form == 1:
        return WindowSpec.uniform(n, draw(st.integers(0, 6)))
    pairs = {}
    if form == 2:
        for i in range(n):
            for j in range(i + 1, n):
                pairs[(i, j)] = draw(st.integers(0, 8))
    else:
        for j in range(1, n):
            pairs[(draw(st.integers(0, j - 1)), j)] = draw(st.integers(0, 6))
        for i in range(n):
            for j in range(i + 1, n):
                if (i, j) not in pairs and draw(st.booleans()) and draw(st.booleans()):
                    pairs[(i, j)] = draw(st.integers(0, 8))
    return WindowSpec.from_pairs(n, pairs)


@st.composite
def tiny_workloads(draw: st.DrawFn, max_steps: int = 7, max_window: int = 4) -> Workload:
    """At most ``max_steps`` arrival times, tuple-synchronous or with random times and sides."""
    w = draw(st.integers(1, max_window))
    if draw(st.booleans()):
        t = draw(st.integers(1, max_steps))
        r = draw(st.lists(st.integers(0, 2), min_size=t, max_size=t))
        s = draw(st.lists(st.integers(0, 2), min_size=t, max_size=t))
        wl = Workload.synchronous(r, s, w, 0)
    else:
        n = draw(st.integers(0, 9))
        times = sorted(draw(st.lists(st.integers(0, max_steps - 1), min_size=n, max_size=n)))
        sides = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
        keys = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
        wl = Workload(np.array(sides), np.array(times, dtype=np.int64), np.array(keys), w, 0)
    return wl.with_params(warmup=draw(st.sampled_from([0, 0, 1, 2, 3, 5])))


@st.composite
def interleaved_streams(draw: st.DrawFn, max_n: int = 4, max_len: int = 5) -> tuple[Streams, list[int]]:
    """2 to ``max_n`` tiny W-join streams (times 0..12, keys 0..2) and an interleaving of their
    arrivals: the stream of each push, in order."""
    n = draw(st.integers(2, max_n))
    times, keys = [], []
    for _ in range(n):
        k = draw(st.integers(0, max_len))
        times.append(sorted(draw(st.lists(st.integers(0, 12), min_size=k, max_size=k))))
        keys.append(draw(st.lists(st.integers(0, 2), min_size=k, max_size=k)))
    order = draw(st.permutations([i for i in range(n) for _ in range(len(times[i]))]))
    return Streams.of(times, keys), list(order)
