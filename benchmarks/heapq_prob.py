"""A plain heapq implementation of PROB with the fixed split: the baseline the engine is measured
against (and a second, independent check of its output count).

Per side a min-heap of (priority, time, seq) over the tuples in memory; expiry walks a FIFO of
admitted tuples and marks them dead, and dead heap entries are skipped lazily.
"""

from __future__ import annotations

import heapq
from collections import deque

import numpy as np


def heapq_prob(side: np.ndarray, time: np.ndarray, key: np.ndarray, window: int, memory: int,
               warmup: int, counts: tuple[dict, dict]) -> int:
    """Counted outputs of PROB (fixed split M//2, M - M//2) under DESIGN.md section 1."""
    budgets = (memory // 2, memory - memory // 2)
    totals = (sum(counts[0].values()), sum(counts[1].values()))
    heaps: tuple[list, list] = ([], [])
    alive: set[int] = set()
    fifo: deque = deque()  # (end, seq, side, key) of admitted tuples in arrival order
    in_mem = [dict(), dict()]  # key -> number in memory, per side
    size = [0, 0]
    outputs = 0
    side_l, time_l, key_l = side.tolist(), time.tolist(), key.tolist()
    n = len(time_l)
    i = 0

    def drop(s: int, k: int, seq: int) -> None:
        alive.discard(seq)
        in_mem[s][k] -= 1
        size[s] -= 1

    def expire(limit: int) -> None:
        while fifo and fifo[0][0] <= limit:
            _, seq, s, k = fifo.popleft()
            if seq in alive:
                drop(s, k, seq)

    while i < n:
        t = time_l[i]
        j = i
        while j < n and time_l[j] == t:
            j += 1
        expire(t - 1)
        batch = range(i, j)
        if t >= warmup:
            for x in batch:
                s, k = side_l[x], key_l[x]
                outputs += in_mem[1 - s].get(k, 0)
                if s == 1:
                    outputs += sum(1 for y in batch if side_l[y] == 0 and key_l[y] == k)
        expire(t)
        for x in batch:
            if window == 1:
                continue
            s, k = side_l[x], key_l[x]
            o = 1 - s
            prio = counts[o].get(k, 0) / totals[o] if totals[o] else 0.0
            heapq.heappush(heaps[s], (prio, t, x, k))
            alive.add(x)
            in_mem[s][k] = in_mem[s].get(k, 0) + 1
            size[s] += 1
            fifo.append((t + window - 1, x, s, k))
            while size[s] > budgets[s]:
                _, _, y, ky = heapq.heappop(heaps[s])
                if y in alive:
                    drop(s, ky, y)
        i = j
    return outputs
