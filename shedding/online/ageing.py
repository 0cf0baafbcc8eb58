"""Age-aware shedding, a prototype in plain numpy: a join engine whose priority comes from a
*valuer* object, and AGE, the policy of Srivastava and Widom (VLDB 2004) for the age-based model.

The engine follows the semantics of the one kernel (Das, Gehrke, Riedewald 2003, §2.1): at every
time step join the batch with memory, expire, admit the batch and evict the lowest-priority
candidates (ties: older first, then R, then the sequence number), with a fixed split (M_R, M_S)
or a variable one. It asks the valuer for the priorities of all candidates whenever a partition
is over budget, and tells it what it may learn from: every arrival batch (after the join, as the
kernel's online estimator), the memory tuples each arrival met, and every departure. It is slow
(a Python loop per step) and exists to measure policies before they become kinds of the kernel.

AGE (the age-based max-subset algorithm): a tuple of side s meets on average f_s(a) partners at
age a, its *age curve*. Keeping every admitted tuple to age N costs N slots per tuple and gains
F_s(N) = f_s(1) + ... + f_s(N); with r_s arrivals per step and M_s slots, all tuples fit while
r_s N <= M_s (gain r_s F_s(N) per step), else only M_s / N tuples per step do (gain M_s F_s(N) / N).
AGE keeps each admitted tuple to the N that maximizes the gain, drops tuples older than N first
and otherwise refuses the newest arrivals. The curve is *known* (the mean partners per age over
the whole workload, as the paper's static frequency table is for PROB) or *estimated* online from
a shadow sample (:class:`~shedding.online.hazard.Shadow`).
"""

from __future__ import annotations

import time as _time
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from shedding.exact import exact_pairs
from shedding.model import Workload, check_memory


@dataclass
class ValuedRun:
    """What :func:`run_valued` returns: outputs counted from warmup on, each tuple's left time and
    whether it was admitted (as :class:`~shedding.model.Schedule`), the pairs if asked for."""

    outputs: int
    left: np.ndarray
    admitted: np.ndarray
    pairs: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))
    seconds: float = 0.0


def _expire(mem: list, time: np.ndarray, w: int, limit: int, depart) -> list:
    """Drop from the arrival-ordered ``mem`` every tuple whose window ends at or before ``limit``."""
    h = 0
    while h < len(mem) and time[mem[h]] + w - 1 <= limit:
        depart(mem[h], time[mem[h]] + w - 1, True)
        h += 1
    return mem[h:]


def _victims(cand: np.ndarray, value: np.ndarray, side: np.ndarray, time: np.ndarray, budgets) -> np.ndarray:
    """The candidates to drop: lowest value first, then older, then R, then sequence number,
    until each partition (a side under the fixed split, all under the variable one) fits."""
    order = np.lexsort((cand, side[cand], time[cand], value))
    if len(budgets) == 1:
        return cand[order[: max(0, len(cand) - budgets[0])]]
    drop = [order[side[cand[order]] == s][: max(0, int(np.count_nonzero(side[cand] == s)) - budgets[s])]
            for s in (0, 1)]
    return cand[np.concatenate(drop)]


def run_valued(wl: Workload, memory: int, valuer, *, memory_split: tuple[int, int] | None = None,
               variable: bool = False, pairs: bool = False) -> ValuedRun:
    """Run the join on ``wl`` with ``memory`` tuples, shedding by ``valuer`` (see the module
    docstring; the valuer has ``start(wl, budgets)``, ``arrive(t, i, j)``, ``met(ys, t)``,
    ``leave(y, t)`` and ``values(t, cand)``)."""
    started = _time.perf_counter()
    m, m_r, m_s = check_memory(memory, memory_split)
    budgets = (m,) if variable else (m_r, m_s)
    side, time, key, w = wl.side.astype(np.int64), wl.time, wl.key, wl.window
    valuer.start(wl, budgets)
    members: dict = defaultdict(list)  # (side, key) -> its memory tuples
    mem: list = []  # memory in arrival order
    left, admitted = time.copy(), np.zeros(len(wl), dtype=bool)
    outputs, found = 0, []
    starts = np.flatnonzero(np.r_[True, time[1:] != time[:-1]]) if len(wl) else np.zeros(0, np.int64)

    def depart(y: int, when: int, adm: bool) -> None:
        left[y], admitted[y] = when, adm
        members[(side[y], key[y])].remove(y)
        valuer.leave(y, when)

    for i, j in zip(starts, np.r_[starts[1:], len(wl)]):
        t = time[i]
        mem = _expire(mem, time, w, t - 1, depart)
        batch = defaultdict(list)
        for x in range(i, j):
            batch[(side[x], key[x])].append(x)
        for x in range(i, j):
            other = members.get((1 - side[x], key[x]), [])
            if other:
                valuer.met(other, t)
            same = batch.get((0, key[x]), []) if side[x] == 1 else []  # same-batch pairs once, from S
            if t >= wl.warmup:
                outputs += len(other) + len(same)
                if pairs:
                    found += [(x, y) if side[x] == 0 else (y, x) for y in other] + [(y, x) for y in same]
        valuer.arrive(t, i, j)
        mem = _expire(mem, time, w, t, depart)
        new = [x for x in range(i, j) if time[x] + w - 1 > t]
        for x in range(i, j):
            if time[x] + w - 1 <= t:  # w = 1: gone at once
                valuer.leave(x, t)
        for x in new:
            members[(side[x], key[x])].append(x)
        cand = np.array(mem + new, dtype=np.int64)
        sizes = (len(cand),) if variable else (int(np.count_nonzero(side[cand] == 0)),
                                               int(np.count_nonzero(side[cand] == 1)))
        if any(n > b for n, b in zip(sizes, budgets)):
            dropped = _victims(cand, np.asarray(valuer.values(t, cand), dtype=np.float64), side, time, budgets)
            gone = set(dropped.tolist())
            for y in dropped.tolist():
                depart(y, t, bool(time[y] < t))
            mem = [y for y in cand.tolist() if y not in gone]
        else:
            mem = cand.tolist()
    for y in mem:
        depart(y, time[y] + w - 1, True)
    found_arr = np.array(sorted(found), dtype=np.int64).reshape(-1, 2)
    return ValuedRun(outputs, left, admitted, found_arr, _time.perf_counter() - started)


class Counts:
    """The partner frequencies every valuer starts from: counts of the arrivals so far per (side,
    key), including the current batch before admission (the kernel's online estimator, §3.3.1),
    or of the whole stream (``online=False``, the paper's static table)."""

    def __init__(self, online: bool = True) -> None:
        self.online = online

    def start(self, wl: Workload, budgets: tuple[int, ...]) -> None:
        self.wl, self.budgets, self.variable = wl, budgets, len(budgets) == 1
        self.side, self.time = wl.side.astype(np.int64), wl.time
        keys, self.kid = np.unique(wl.key, return_inverse=True)
        self.cnt = np.zeros((2, len(keys)))
        if not self.online:
            np.add.at(self.cnt, (self.side, self.kid), 1.0)
        self.last = np.full((2, len(keys)), -1, dtype=np.int64)  # last arrival time per (side, key)
        self.t0: int | None = None

    def arrive(self, t: int, i: int, j: int) -> None:
        if self.t0 is None:
            self.t0 = int(t)
        if self.online:
            np.add.at(self.cnt, (self.side[i:j], self.kid[i:j]), 1.0)
        self.last[self.side[i:j], self.kid[i:j]] = t

    def met(self, ys: list, t: int) -> None:
        """Memory tuples ``ys`` met an arrival at ``t`` (the learning valuers use it)."""

    def leave(self, y: int, t: int) -> None:
        """Tuple ``y`` left memory at ``t``."""

    def partner_rate(self, cand: np.ndarray, t: int) -> np.ndarray:
        """beta: the other side's arrivals of each candidate's key per step, so far (online) or
        over the whole stream (static)."""
        if self.online:
            steps = max(t - (self.t0 or 0) + 1, 1)
        else:
            steps = max(int(self.time[-1] - self.time[0]) + 1, 1)
        return self.cnt[1 - self.side[cand], self.kid[cand]] / steps


class ProbValuer(Counts):
    """PROB (§3.3.1) as a valuer: the partner probability p = c_other(key) / N_other. It ranks
    exactly as the kernel's PROB (the tests compare their schedules)."""

    def values(self, t: int, cand: np.ndarray) -> np.ndarray:
        tot = self.cnt.sum(axis=1)[1 - self.side[cand]]
        return np.where(tot > 0, self.cnt[1 - self.side[cand], self.kid[cand]] / np.maximum(tot, 1.0), 0.0)


def pair_age_curves(wl: Workload) -> np.ndarray:
    """f[s, a]: the mean number of partners a side-s tuple meets at age a = 1..w-1 over all
    window pairs of ``wl`` (age 0, the same batch, is free): the known age curve."""
    lag = np.diff(wl.time[exact_pairs(wl.with_params(warmup=0))], axis=1)[:, 0]
    f = np.zeros((2, wl.window))
    np.add.at(f[0], lag[lag > 0], 1.0)
    np.add.at(f[1], -lag[lag < 0], 1.0)
    return f / np.maximum([[wl.n_r], [wl.n_s]], 1)


def hold_age(f: np.ndarray, rate: float, slots: float) -> tuple[int, float]:
    """AGE's hold age N in 1..w-1 for age curve ``f``, ``rate`` arrivals per step and ``slots``
    memory, and its gain per step min(rate, slots / N) * F(N) (see the module docstring)."""
    n = np.arange(1, len(f))
    if not len(n):  # w = 1: every tuple expires on arrival
        return 0, 0.0
    gain = np.minimum(rate, slots / n) * np.cumsum(f)[1:]
    best = int(np.argmax(gain))
    return int(n[best]), float(gain[best])


class AgeValuer(Counts):
    """AGE (Srivastava and Widom 2004, the age-based max-subset problem) with the age curves
    ``curves`` (f[s, a], as :func:`pair_age_curves`) and per-side arrival ``rates``, or, when
    ``curves`` is None, both estimated online by ``learner`` (a
    :class:`~shedding.online.hazard.HazardValuer`, whose mean curve is used) every ``every`` steps.

    Fixed split: N_s per side from (M_s, r_s). Variable split: the split of M between the sides
    that maximizes the summed gain (on a grid of 65 splits), and a candidate's priority is its
    side's gain per slot F_s(N_s) / N_s (then its age), so the sides are comparable."""

    def __init__(self, curves: np.ndarray | None = None, rates: np.ndarray | None = None, learner=None,
                 every: int = 256, online: bool = True) -> None:
        super().__init__(online)
        self.curves, self.rates, self.learner, self.every = curves, rates, learner, every

    def start(self, wl: Workload, budgets: tuple[int, ...]) -> None:
        super().start(wl, budgets)
        w = wl.window
        self.hold, self.density, self.steps = np.array([w - 1, w - 1]), np.ones(2), 0
        if self.learner is not None:
            self.learner.start(wl, budgets)
        elif self.curves is not None:
            self._plan(np.asarray(self.curves, dtype=np.float64), np.asarray(self.rates, dtype=np.float64))

    def _plan(self, f: np.ndarray, rate: np.ndarray) -> None:
        w = f.shape[1]

        def side_plan(s: int, slots: float) -> tuple[int, float]:
            return hold_age(f[s], rate[s], slots) if rate[s] > 0 else (w - 1, 0.0)

        if self.variable:
            m = self.budgets[0]
            splits = np.unique(np.linspace(0, m, 65).round())
            plans = [(side_plan(0, a), side_plan(1, m - a)) for a in splits]
            best = max(plans, key=lambda p: p[0][1] + p[1][1])
            self.hold = np.array([best[0][0], best[1][0]])
        else:
            self.hold = np.array([side_plan(s, self.budgets[s])[0] for s in (0, 1)])
        big_f = np.cumsum(f, axis=1)
        self.density = big_f[[0, 1], self.hold] / np.maximum(self.hold, 1)

    def arrive(self, t: int, i: int, j: int) -> None:
        super().arrive(t, i, j)
        if self.learner is None:
            return
        self.learner.arrive(t, i, j)
        if (self.steps & (self.steps - 1)) == 0 or self.steps % self.every == 0:
            elapsed = max(t - (self.t0 or 0) + 1, 1)
            self._plan(self.learner.mean_curves(t), self.cnt.sum(axis=1) / elapsed)
        self.steps += 1

    def values(self, t: int, cand: np.ndarray) -> np.ndarray:
        s = self.side[cand]
        age = t - self.time[cand]
        inside = age <= self.hold[s]
        if self.variable:
            return np.where(inside, self.density[s] * (1.0 + age / (4.0 * self.wl.window)), -1.0)
        return np.where(inside, 1.0 + age, 0.0)
