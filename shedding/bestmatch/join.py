"""One entry point for the bestmatch joins: variant, algorithm and per-dimension orders
(Kemper/Stegmaier 2002, §2-3).

Variants: ``bmj`` (§2.2; with eps the constrained BMJ of §2.3), ``left-outer``, ``right-outer`` and
``full-outer`` (§2.2; with eps their constrained forms, §2.3) and ``constrained``, the constrained
left-outer BMJ (LOBMJE) the paper and the TUM page focus on, which needs eps. Algorithms:
``nested`` (Algorithm 1, the reference), ``matwin`` (Algorithm 2 on input sorted by y_1) and
``matwin-ego`` (MatWin probing through the eps-grid, §3.3); both MatWin need eps. Dominance:
``pareto`` (the default) or ``literal``, the two readings of §2.1 (:mod:`.skyline`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from shedding.errors import ShedError
from shedding.bestmatch.matwin import MatWinStats, matwin
from shedding.bestmatch.nested import nested_loops
from shedding.bestmatch.skyline import ORDERS, UNBOUNDED, is_literal
from shedding.bestmatch.values import BestmatchInput

VARIANTS = ("bmj", "left-outer", "right-outer", "full-outer", "constrained")
#: the outer sides of each variant: (a result for every left tuple, for every right tuple)
SIDES = {"bmj": (False, False), "left-outer": (True, False), "right-outer": (False, True),
         "full-outer": (True, True), "constrained": (True, False)}
ALGORITHMS = ("nested", "matwin", "matwin-ego")


@dataclass(frozen=True)
class BestmatchResult:
    """One bestmatch join's output.

    Attributes:
        pairs: (n, 2) row indices (r, s), sorted.
        stamps: Per pair, the input tuples read when it was output (the pipelining measure of
            the paper's Figures 13-14).
        variant: The variant computed.
        algorithm: The algorithm that computed it.
        seconds: Its wall time.
        tested: The pairs tested.
        stats: MatWin's statistics (steps, peak memory, pairs tested, tuples shed); None for
            nested loops.
        dominance: The reading of dominance used."""

    pairs: np.ndarray
    stamps: np.ndarray
    variant: str
    algorithm: str
    seconds: float
    tested: int
    stats: MatWinStats | None = None
    dominance: str = "pareto"

    def as_set(self) -> set[tuple[int, int]]:
        return set(map(tuple, self.pairs.tolist()))


def order_signs(orders: Sequence[str] | None, dims: int) -> np.ndarray:
    """The f_i signs of the per-dimension orders (default ``minAttrDist`` everywhere)."""
    if orders is None:
        return np.ones(dims, dtype=np.int64)
    names = [o.strip().lower() for o in orders]
    if len(names) != dims:
        raise ShedError(f"{{param}} has {len(names)} name(s) for {dims} attribute(s); give one per attribute",
                        param="orders")
    for name in names:
        if name not in ORDERS:
            raise ShedError(f"unknown order {name!r}; choose minAttrDist or maxAttrDist")
    return np.array([ORDERS[n] for n in names], dtype=np.int64)


def check_sorted(data: BestmatchInput) -> None:
    """MatWin reads both inputs in y_1 order (§3.2); name the first row that breaks it."""
    for name, X in (("R", data.r), ("S", data.s)):
        bad = np.flatnonzero(np.diff(X[:, 0]) < 0) if len(X) > 1 else np.array([], dtype=np.int64)
        if len(bad):
            j = int(bad[0]) + 1  # 0-based index of the offending row; messages count rows from 1
            raise ShedError(f"{name} row {j + 1}: {data.attrs[0]} = {X[j, 0] / data.scale[0]:g} comes after "
                            f"{X[j - 1, 0] / data.scale[0]:g}; MatWin needs both inputs sorted ascending by "
                            f"{data.attrs[0]} (the first of {{param}}): sort them or use {{algorithm}} nested",
                            param="attrs", names={"algorithm": "algorithm"})


def check_choice(variant: str, algorithm: str, data: BestmatchInput) -> None:
    """Variant and algorithm are known, and have the eps they need."""
    if variant not in VARIANTS:
        raise ShedError(f"unknown {{param}} {variant!r}; choose from {', '.join(VARIANTS)}", param="variant")
    if algorithm not in ALGORITHMS:
        raise ShedError(f"unknown {{param}} {algorithm!r}; choose from {', '.join(ALGORITHMS)}", param="algorithm")
    if data.eps is None and (variant == "constrained" or algorithm != "nested"):
        what = "the constrained variant" if variant == "constrained" else f"algorithm {algorithm}"
        raise ShedError(f"{what} needs {{param}} (one maximum distance per attribute, e.g. {{param}} 0.1,0.1)",
                        param="eps")
    if algorithm != "nested":
        check_sorted(data)


def bestmatch(data: BestmatchInput, variant: str = "constrained", algorithm: str = "nested",
              orders: Sequence[str] | None = None, dominance: str = "pareto") -> BestmatchResult:
    """The bestmatch join ``variant`` of R and S by ``algorithm`` (Kemper/Stegmaier 2002, §2-3).

    Args:
        data: R and S on their join attributes (:class:`~shedding.bestmatch.values.BestmatchInput`).
        variant: One of :data:`VARIANTS`: ``bmj`` (§2.2), ``left-outer``, ``right-outer``,
            ``full-outer`` (§2.2; with eps their constrained forms, §2.3) or ``constrained``,
            the constrained left-outer BMJ, which needs eps.
        algorithm: One of :data:`ALGORITHMS`: ``nested`` (Algorithm 1, the reference),
            ``matwin`` (Algorithm 2; input sorted by y_1) or ``matwin-ego`` (MatWin through the
            eps-grid, §3.3); both MatWin need eps.
        orders: One order per attribute, ``minAttrDist`` or ``maxAttrDist`` (any case); default
            ``minAttrDist`` everywhere.
        dominance: The reading of §2.1's dominance: ``pareto`` or ``literal``
            (:mod:`~shedding.bestmatch.skyline`).

    Returns:
        A :class:`BestmatchResult`: the pairs, when each was output, and the pairs tested.

    Raises:
        ShedError: An unknown ``variant``, ``algorithm``, ``dominance`` or order, ``orders``
            of the wrong length, no eps where one is needed (``param`` ``eps``), or MatWin's
            input not sorted by the first attribute (``param`` ``attrs``).
    """
    check_choice(variant, algorithm, data)
    literal = is_literal(dominance)
    sign = order_signs(orders, data.dims)
    eps = data.eps if data.eps is not None else np.full(data.dims, UNBOUNDED, dtype=np.int64)
    left_outer, right_outer = SIDES[variant]
    started = time.perf_counter()
    stats = None
    if algorithm == "nested":
        rows, tested = nested_loops(data.r, data.s, eps, sign, left_outer, right_outer, literal)
    else:
        rows, stats = matwin(data.r, data.s, eps, sign, left_outer, right_outer=right_outer, literal=literal,
                             ego=algorithm == "matwin-ego")
        tested = stats.tested
    seconds = time.perf_counter() - started
    return result_of(rows, variant, algorithm, seconds, tested, stats, dominance.strip().lower())


def result_of(rows: np.ndarray, variant: str, algorithm: str, seconds: float, tested: int,
              stats: MatWinStats | None, dominance: str = "pareto") -> BestmatchResult:
    """Sort the output rows (r, s, stamp) into a result; a pair output twice (the full-outer
    BMJ's pair best for both its tuples) counts once, at its first output."""
    order = np.lexsort((rows[:, 2], rows[:, 1], rows[:, 0])) if len(rows) else np.zeros(0, dtype=np.int64)
    rows = rows[order]
    first = np.ones(len(rows), dtype=bool)
    first[1:] = (rows[1:, 0] != rows[:-1, 0]) | (rows[1:, 1] != rows[:-1, 1])
    rows = rows[first]
    return BestmatchResult(rows[:, :2].copy(), rows[:, 2].copy(), variant, algorithm, seconds, tested, stats,
                           dominance)
