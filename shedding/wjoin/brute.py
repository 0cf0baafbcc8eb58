"""The W-join by definition: every combination of one tuple per stream, tested directly.

Exponential in N and only for tiny inputs; it is the reference every algorithm is checked
against. It tests the *given* window constraints (not their shortest-path closure), so it also
checks that the closure of §5.2 changes no result.
"""

from __future__ import annotations

import itertools

import numpy as np

from shedding.wjoin.predicates import Predicate, check_key_band, keys_join
from shedding.wjoin.streams import Streams, as_rows
from shedding.wjoin.windows import WindowSpec

__all__ = ["Predicate", "brute_count", "brute_results"]


def brute_results(streams: Streams, windows: WindowSpec, predicate: Predicate | None = None,
                  key_band: int = 0) -> np.ndarray:
    """All N-tuples ``(seq_0, ..., seq_{N-1})`` whose keys are within ``key_band`` of each other
    (0: equal), whose timestamps satisfy ``|t_i - t_j| <= w_ij`` for every given pair, and that
    ``predicate`` accepts; sorted rows."""
    band = check_key_band(key_band)
    out: list[tuple[int, ...]] = []
    for combo in itertools.product(*(range(len(t)) for t in streams.times)):
        if not keys_join([int(streams.keys[i][s]) for i, s in enumerate(combo)], band):
            continue
        if all(abs(int(streams.times[i][combo[i]]) - int(streams.times[j][combo[j]])) <= w
               for (i, j), w in windows.given.items()):
            if predicate is None or predicate(combo):
                out.append(combo)
    return as_rows(out, streams.n)


def brute_count(streams: Streams, windows: WindowSpec, predicate: Predicate | None = None, key_band: int = 0) -> int:
    return len(brute_results(streams, windows, predicate, key_band))
