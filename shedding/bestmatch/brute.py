"""The bestmatch joins straight from their definitions (Kemper/Stegmaier 2002, §2.2-2.3), for
tests on tiny inputs: every pair against every other pair, in plain Python."""

from __future__ import annotations

from typing import Sequence

Row = Sequence[int]


def _cost(r: Row, s: Row, sign: Sequence[int]) -> tuple[int, ...]:
    return tuple(g * abs(a - b) for a, b, g in zip(r, s, sign))


def dominates(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    """§2.1 (Pareto): at least as good in every dimension and better in one."""
    return all(x <= y for x, y in zip(a, b)) and any(x < y for x, y in zip(a, b))


def brute_bestmatch(R: Sequence[Row], S: Sequence[Row], eps: Sequence[int] | None, sign: Sequence[int],
                    left_outer: bool) -> set[tuple[int, int]]:
    """The (constrained) BMJ or left-outer BMJ as a set of (r index, s index)."""
    def ok(r: Row, s: Row) -> bool:
        return eps is None or all(abs(a - b) <= e for a, b, e in zip(r, s, eps))

    pairs = [(i, j) for i, r in enumerate(R) for j, s in enumerate(S) if ok(r, s)]
    cost = {(i, j): _cost(R[i], S[j], sign) for i, j in pairs}
    return {(i, j) for i, j in pairs
            if not any(dominates(cost[p], cost[(i, j)]) for p in pairs if not left_outer or p[0] == i)}


def brute_time_window(R: Sequence[Row], S: Sequence[Row], tr: Sequence[int], ts: Sequence[int], horizon: int,
                      eps: Sequence[int], sign: Sequence[int]) -> set[tuple[int, int, int]]:
    """§3.5.1 by definition: at every arrival time t, the constrained left-outer BMJ of the tuples
    with t - horizon <= time <= t; triples (t, r, s)."""
    out = set()
    for t in sorted(set(tr) | set(ts)):
        wr = [i for i in range(len(R)) if t - horizon <= tr[i] <= t]
        ws = [j for j in range(len(S)) if t - horizon <= ts[j] <= t]
        sub = brute_bestmatch([R[i] for i in wr], [S[j] for j in ws], eps, sign, True)
        out |= {(t, wr[a], ws[b]) for a, b in sub}
    return out
