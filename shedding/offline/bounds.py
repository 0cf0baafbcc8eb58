"""Bounds on OPT / OPTV for workloads beyond the exact solver (Das, Gehrke, Riedewald 2003, §3.2).

Upper bound: a Lagrangian relaxation of the memory constraint of the compact formulation
(the star network of :mod:`.compact`). Each useful tuple ``x`` of memory group ``g`` arriving at event
``a`` either is not held or leaves at the event ``k`` of one of its counted later partners,
gaining the number of counted partners up to ``k`` and occupying a slot of ``g`` after the
events ``a .. k-1``. With a price ``lambda[g, i] >= 0`` per group and event the memory limits
leave the constraints and every tuple picks its best exit alone, in O(partners)::

    L(lambda) = same-time pairs + sum_{g,i} lambda[g,i] M_g
                + sum_x max(0, max_k gain(x, k) - sum_{i=a..k-1} lambda[g,i])

``L(lambda) >= OPT`` for every ``lambda >= 0`` (weak duality; docs/bounds.md), and since the
compact network's constraint matrix is totally unimodular the best ``lambda`` gives exactly the
LP optimum, which is OPT. We take the smallest ``L`` met by a projected subgradient method with
Polyak steps towards the lower bound.

Lower bound: the output of a feasible schedule, the best of the online policies (PROB, LIFE or
PROBV, LIFEV) run through the join engine, so it is a count the engine really produces.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import numpy as np
from numba import prange

from shedding.exact import KeyedStreams, exact_count
from shedding.jit import njit
from shedding.model import Memory, Schedule, Workload, default_split
from shedding.offline.network import groups_of, later_counted_ranges, same_time_pairs
from shedding.offline.flow import heap_pop, heap_push

#: The online policies whose best output is the lower bound, per allocation (PROB, the paper's
#: best online policy, §4; LIFE is rarely better and costs as much again).
LOWER_POLICIES = {"fixed": ("prob",), "variable": ("probv",)}


@dataclass
class Bounds:
    """``lower <= OPT <= upper``; ``lower`` is the output of ``lower_policy``'s schedule."""

    lower: int
    upper: int
    lower_policy: str
    exact: int
    allocation: str
    iterations: int
    seconds: float

    @property
    def gap(self) -> float:
        """Relative gap ``(upper - lower) / upper`` (0 when upper is 0)."""
        return (self.upper - self.lower) / self.upper if self.upper else 0.0

    def as_dict(self) -> dict:
        """The JSON object of ``shed opt --bounds``."""
        return {"policy": "opt" if self.allocation == "fixed" else "optv", "lower": self.lower, "upper": self.upper,
                "gap": round(self.gap, 6), "lower_policy": self.lower_policy, "exact": self.exact,
                "allocation": self.allocation, "iterations": self.iterations, "seconds": round(self.seconds, 4)}


@njit(nogil=True, parallel=True)
def _relaxed(lo, hi, event_of_pos, start, group, prefix, choice, worth):
    """Every tuple's best exit under the prices whose prefix sums are ``prefix[g, i]`` (sum of
    the prices of events ``< i``): writes its exit event (-1: not held) and value to ``choice``
    and ``worth``. A tuple's scan stops once even all its remaining partners could not beat
    the best value (gains grow by 1 per partner, costs never fall)."""
    for x in prange(len(lo)):
        g, a, first, end = group[x], start[x], lo[x], hi[x]
        base = prefix[g, a]
        best, exit_at = 0.0, -1
        for p in range(first, end):
            cost = prefix[g, event_of_pos[p]] - base
            if end - first - cost <= best:
                break
            value = (p - first + 1) - cost
            if value > best:
                best, exit_at = value, event_of_pos[p]
        choice[x], worth[x] = exit_at, best


@njit(nogil=True)
def _held(group, start, exits, n_groups, n_events):
    """Tuples of each group held after each event: +1 at a tuple's start event, -1 at its exit
    event, summed along the events."""
    held = np.zeros((n_groups, n_events), np.int64)
    for x in range(len(start)):
        held[group[x], start[x]] += 1
        held[group[x], exits[x]] -= 1
    for g in range(n_groups):
        for i in range(1, n_events):
            held[g, i] += held[g, i - 1]
    return held


@njit(nogil=True)
def _gains(lo, hi, event_of_pos, exits):
    """Sum over tuples of their counted partners at events ``<= exits[x]`` (binary search in
    each tuple's time-sorted partner range)."""
    total = 0
    for x in range(len(lo)):
        a, b = lo[x], hi[x]
        while a < b:
            mid = (a + b) >> 1
            if event_of_pos[mid] <= exits[x]:
                a = mid + 1
            else:
                b = mid
        total += a - lo[x]
    return total


@njit(nogil=True)
def _repair(start, choice, worth, group, caps, n_events):
    """A feasible schedule from the relaxed choices: events in time order; tuples leave at their
    chosen exit; when a group holds more than its cap after an event's admissions, the held
    tuples of lowest relaxed value are dropped at that event (a min-heap with lazy deletion).
    Returns each tuple's exit event (its arrival event when it is never held)."""
    n = len(start)
    out = choice.copy()
    order = np.argsort(start)
    leaving = np.argsort(choice)
    n_groups = len(caps)
    heap_v = np.empty((n_groups, n + 1))
    heap_x = np.empty((n_groups, n + 1), np.int64)
    size = np.zeros(n_groups, np.int64)
    count = np.zeros(n_groups, np.int64)
    alive = np.zeros(n, np.bool_)
    i = j = 0
    while j < n and choice[leaving[j]] < 0:
        j += 1
    for e in range(n_events):
        while j < n and choice[leaving[j]] == e:  # planned exits during step e
            x = leaving[j]
            j += 1
            if alive[x]:
                alive[x] = False
                count[group[x]] -= 1
        while i < n and start[order[i]] == e:
            x = order[i]
            i += 1
            if choice[x] < 0:
                out[x] = e
                continue
            g = group[x]
            alive[x] = True
            count[g] += 1
            size[g] = heap_push(heap_v[g], heap_x[g], size[g], worth[x], x)
        for g in range(n_groups):
            while count[g] > caps[g]:  # pop the lowest value still held; drop it now
                _, x, size[g] = heap_pop(heap_v[g], heap_x[g], size[g])
                if alive[x]:
                    alive[x] = False
                    count[g] -= 1
                    out[x] = e
    return out


@dataclass
class Relaxation:
    """The compact formulation of one workload, ready for :meth:`value` at any prices:
    the useful tuples (workload indices), their partner ranges in the sorted index, the event
    of every sorted position, their start events and memory groups."""

    useful: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    events: np.ndarray
    event_of_pos: np.ndarray
    start: np.ndarray
    group: np.ndarray
    caps: np.ndarray
    constant: int

    @classmethod
    def of(cls, wl: Workload, ks: KeyedStreams, caps: np.ndarray, variable: bool) -> "Relaxation":
        lo, hi = later_counted_ranges(wl, ks)
        useful = np.flatnonzero(hi > lo)
        events = wl.event_times()
        event = wl.event_index().astype(np.int32)
        return cls(useful, lo[useful], hi[useful], events, event[ks.order], event[useful],
                   groups_of(wl, variable)[useful], caps.astype(np.float64), same_time_pairs(wl, ks))

    def value(self, prices: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
        """``L(prices)``, the memory each group holds after each event in the relaxed optimum (a
        subgradient of ``L`` is ``caps - held``), and each useful tuple's relaxed exit event
        (-1: not held) and value."""
        n_groups, n_events = prices.shape
        prefix = np.zeros((n_groups, n_events + 1))
        np.cumsum(prices, axis=1, out=prefix[:, 1:])
        choice, worth = np.empty(len(self.lo), np.int64), np.empty(len(self.lo))
        _relaxed(self.lo, self.hi, self.event_of_pos, self.start, self.group, prefix, choice, worth)
        held = self.held_after(np.where(choice >= 0, choice, self.start))
        return self.constant + float(worth.sum()) + float(prices.sum(axis=1) @ self.caps), held, choice, worth

    def held_after(self, exits: np.ndarray) -> np.ndarray:
        """Tuples of each group held after each event when every useful tuple leaves during
        event ``exits[x]`` (its start event: never held)."""
        return _held(self.group, self.start, exits, len(self.caps), len(self.events))

    def repaired(self, wl: Workload, choice: np.ndarray, worth: np.ndarray) -> tuple[Schedule, int]:
        """A feasible schedule near the relaxed choices (:func:`_repair`) and its counted output:
        the same-time pairs plus each held tuple's counted partners up to the event it leaves (a
        pair is produced iff its earlier member is held through the later's arrival, by the join
        semantics, docs/semantics.md). Raises ValueError if the schedule held more than the memory
        (a bug, never seen)."""
        exits = _repair(self.start, choice, worth, self.group, self.caps.astype(np.int64), len(self.events))
        if np.any(self.held_after(exits) > self.caps[:, None]):
            raise ValueError("the repaired schedule holds more tuples than the memory allows")
        left = wl.time.copy()
        left[self.useful] = self.events[exits]
        return Schedule(left > wl.time, left), self.constant + int(_gains(self.lo, self.hi, self.event_of_pos, exits))


def lagrangian_upper_bound(relax: Relaxation, target: float, iterations: int = 30,
                           repair: Callable[[np.ndarray, np.ndarray], int] | None = None,
                           repair_every: int = 10) -> tuple[int, int, float, np.ndarray]:
    """The smallest ``L(lambda)`` met by projected subgradient steps (Polyak's step towards
    ``target``, a lower bound on OPT, with a step factor halved after 5 steps without
    progress); returns (upper bound on OPT, iterations run, best lower bound, the prices that
    gave the upper bound). Every
    ``repair_every`` steps and at the end, ``repair`` turns the relaxed choices at the best
    prices into a feasible schedule's output, which raises ``target`` (smaller, better aimed
    steps) when it is higher. ``L`` is rounded down: OPT is an integer (a relative 1e-9
    absorbs floating-point error)."""
    prices = np.zeros((len(relax.caps), len(relax.events)))
    best, theta, stale, it = np.inf, 1.0, 0, 0
    best_choice = best_worth = np.zeros(0)
    best_prices = prices
    for it in range(1, iterations + 1):
        value, held, choice, worth = relax.value(prices)
        if value < best - 1e-9 * max(value, 1.0):
            best, stale, best_choice, best_worth, best_prices = value, 0, choice, worth, prices
        else:
            stale += 1
            if stale >= 5:
                theta, stale = theta / 2, 0
        if repair is not None and it % repair_every == 0:
            target = max(target, repair(best_choice, best_worth))
        step = relax.caps[:, None] - held  # subgradient; prices at 0 cannot go lower
        step[(prices <= 0) & (step > 0)] = 0
        norm = float((step.astype(np.float64) ** 2).sum())
        if norm == 0 or best - target < 1:  # complementary slackness holds / the bound is tight
            break
        prices = np.maximum(prices - theta * max(value - target, 1.0) / norm * step, 0.0)
    if repair is not None and it % repair_every != 0:
        target = max(target, repair(best_choice, best_worth))
    return int(np.floor(best + 1e-9 * max(best, 1.0))), it, target, best_prices


def online_lower_bound(wl: Workload, budget: Memory, allocation: str) -> tuple[int, str]:
    """The best output among the online policies of :data:`LOWER_POLICIES` (each a feasible
    schedule, run through the join engine) with the checked memory ``budget``; returns (output,
    policy)."""
    from shedding.online import simulate

    runs = [(simulate(wl, p, budget).outputs, p) for p in LOWER_POLICIES[allocation]]
    return max(runs)


def opt_bounds(wl: Workload, memory: int, split: tuple[int, int] | None, allocation: str,
               caps: np.ndarray, ks: KeyedStreams, iterations: int = 30) -> Bounds:
    """Lower and upper bounds on OPT (fixed split ``split = (M_R, M_S)``, ``caps`` the same
    capped by the group sizes) or OPTV (``split`` None, ``caps = [M]``); see the module
    docstring. The lower bound is the better of the online policy (run by the join engine) and
    the relaxed schedule repaired to fit the memory (:meth:`Relaxation.repaired`)."""
    started = time.perf_counter()
    lower, policy = online_lower_bound(wl, Memory(memory, *(split or default_split(memory, wl.bounds))), allocation)
    relax = Relaxation.of(wl, ks, caps, allocation == "variable")
    online = lower

    def repair(choice: np.ndarray, worth: np.ndarray) -> int:
        return relax.repaired(wl, choice, worth)[1]

    upper, its, repaired, _ = lagrangian_upper_bound(relax, lower, iterations, repair)
    if repaired > online:
        lower, policy = int(repaired), "lagrangian-repair"
    return Bounds(lower, upper, policy, exact_count(wl, ks), allocation, its, time.perf_counter() - started)
