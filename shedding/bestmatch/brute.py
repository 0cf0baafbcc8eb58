"""The bestmatch joins straight from their definitions (Kemper/Stegmaier 2002, §2.1-2.3), for
tests on tiny inputs: every pair against every other pair, in plain Python.

Three readings of the dominance ``(r' x s') < (r x s)`` of §2.1, all with ``f_i(r', s') <=
f_i(r, s)`` in every dimension:

- ``pareto``: and better in one dimension (the library's default);
- ``literal``: and ``(r' x s') != (r x s)``, "the in-equality predicate ... only compares the two
  tuples on the join attributes";
- ``sql``: and the paper's SQL for the BMJ (§2.2), which asks ``r.y_i <> r'.y_i`` and ``s.y_i <>
  s'.y_i`` for every join attribute, i.e. both tuples differ in every attribute.
"""

from __future__ import annotations

from typing import Sequence

Row = Sequence[int]
READINGS = ("pareto", "literal", "sql")


def _cost(r: Row, s: Row, sign: Sequence[int]) -> tuple[int, ...]:
    return tuple(g * abs(a - b) for a, b, g in zip(r, s, sign))


def dominates(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    """§2.1 (Pareto) on distance vectors: at least as good in every dimension and better in one."""
    return all(x <= y for x, y in zip(a, b)) and any(x < y for x, y in zip(a, b))


def precedes(q: tuple[Row, Row], p: tuple[Row, Row], sign: Sequence[int], reading: str = "pareto") -> bool:
    """(r' x s') = ``q`` dominates (r x s) = ``p`` (each a pair of join-attribute rows) by ``reading``."""
    fq, fp = _cost(*q, sign), _cost(*p, sign)
    if reading == "pareto":
        return dominates(fq, fp)
    at_most = all(x <= y for x, y in zip(fq, fp))
    if reading == "literal":
        return at_most and (tuple(q[0]), tuple(q[1])) != (tuple(p[0]), tuple(p[1]))
    return at_most and all(a != b for a, b in zip(q[0], p[0])) and all(a != b for a, b in zip(q[1], p[1]))


def brute_bestmatch(R: Sequence[Row], S: Sequence[Row], eps: Sequence[int] | None, sign: Sequence[int],
                    variant: str, reading: str = "pareto") -> set[tuple[int, int]]:
    """The (constrained, with ``eps``) BMJ, left-, right- or full-outer BMJ of §2.2-2.3 as a set
    of (r index, s index); ``variant`` is ``bmj``, ``left-outer`` (or ``constrained``),
    ``right-outer`` or ``full-outer``."""
    def ok(r: Row, s: Row) -> bool:  # d(r, s) <= eps
        return eps is None or all(abs(a - b) <= e for a, b, e in zip(r, s, eps))

    pairs = [(i, j) for i, r in enumerate(R) for j, s in enumerate(S) if ok(r, s)]

    def undominated(p: tuple[int, int], rivals: list[tuple[int, int]]) -> bool:
        return not any(precedes((R[q[0]], S[q[1]]), (R[p[0]], S[p[1]]), sign, reading) for q in rivals)

    def best_for_r(p: tuple[int, int]) -> bool:  # no (r x s') dominates (r x s)
        return undominated(p, [q for q in pairs if q[0] == p[0]])

    def best_for_s(p: tuple[int, int]) -> bool:  # no (r' x s) dominates (r x s)
        return undominated(p, [q for q in pairs if q[1] == p[1]])

    keep = {"bmj": lambda p: undominated(p, pairs), "left-outer": best_for_r, "constrained": best_for_r,
            "right-outer": best_for_s, "full-outer": lambda p: best_for_r(p) or best_for_s(p)}[variant]
    return {p for p in pairs if keep(p)}


def brute_time_window(R: Sequence[Row], S: Sequence[Row], tr: Sequence[int], ts: Sequence[int], horizon: int,
                      eps: Sequence[int], sign: Sequence[int], reading: str = "pareto") -> set[tuple[int, int, int]]:
    """§3.5.1 by definition: at every arrival time t, the constrained left-outer BMJ of the tuples
    with t - horizon <= time <= t; triples (t, r, s)."""
    out = set()
    for t in sorted(set(tr) | set(ts)):
        wr = [i for i in range(len(R)) if t - horizon <= tr[i] <= t]
        ws = [j for j in range(len(S)) if t - horizon <= ts[j] <= t]
        sub = brute_bestmatch([R[i] for i in wr], [S[j] for j in ws], eps, sign, "left-outer", reading)
        out |= {(t, wr[a], ws[b]) for a, b in sub}
    return out
