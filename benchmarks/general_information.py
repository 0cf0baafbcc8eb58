"""What information would let an online policy close half of the gap to OPT on age-shaped streams
at small memory: a prototype index policy in plain Python (not a policy of the package; speed is not
the point), run on the development generators of ``bench_general.py``.

The policy keeps, per side, the held tuples of the largest index: a tuple's expected partners per
slot-step over the best horizon, max over horizon ends n of E[partners in its ages a+1..n] / (n - a),
the Gittins-like index of HAZARD's docstring (``shedding.online.hazard``). It runs the join of
docs/semantics.md (Das, Gehrke, Riedewald 2003, §2.1: join, expire, admit and evict under the fixed
split M_R = M // 2, M_S = M - M // 2; ties drop the older tuple first). What varies is the tuple's
*state*, the information the index may use:

- ``hazard``: matched yet, c in {0, 1}, and the age bucket (HAZARD's statistics' state on these
  streams, whose key is unique per R tuple: the key-rate bin fixed at arrival is always 0; HAZARD's
  priority still takes the key's current rate, the partners seen so far, with theta at 1);
- ``count``: the partners met so far, 0, 1, 2 or 3+, and the age bucket;
- ``last``: ``count`` and the age bucket of the last partner;
- ``retry``: ``count`` and the tuple's own side's earlier arrivals of its key, 0, 1 or 2+ (a
  request's retry number);
- ``clast``: matched yet widened by the age bucket of the last partner (``count`` capped at 1, with
  ``last``'s bucket), and ``clast4`` with that bucket in four levels; ``since`` and ``since4``: matched
  yet widened by the bucket of the steps since the last partner, at the start of the current age
  bucket (a renewal clock beside the age): candidates for HAZARD's matched state c;
- ``count+group``, ``last+group`` (auctions): ``count`` or ``last`` and the auction's duration
  octave, floor(log2 L), as a payload known when it opens (a NEXMark auction carries its expiry);
  beside them HAZARD itself told the same octave as its payload group (``hazard+duration``);
- ``oracle``: the generator's true parameters, an upper reference: an auction's duration and number
  of bids (the index follows exactly from them and the bids met), a request's latency law and its
  retry number; ``oracle-duration``: an auction's duration alone (its bids still to come are their
  mean given those met, under the generator's law of the number of bids).

On the requests the script also gives ``bound`` (:func:`request_bound`): an upper bound on the
expected output of *every* online policy, index or not, from the generator's law.

The learned states estimate, per side, state z at the start of age bucket j, the mean partners in
each later bucket b, straight from a *shadow sample* as HAZARD's (every k-th arrival followed through
its whole window as if it were kept, k such that about 256 are open at once; only the window
censors it), shrunk towards the coarser state (``last`` -> ``count`` -> ``hazard`` -> all) by
``KAPPA`` tuples, refitted at steps 50, 100, 200, 400 and then every 400 (``online``); or once, from
every tuple of a separate seed of the same generator (``known``: the rates known, so what is left
is the model's). The index is the full table (the mean partners in each later bucket b of the
tuples in state z at the start of bucket j), or with ``state@form`` only what HAZARD's model
holds, a rate per state and bucket: ``rates`` HAZARD's own formula (a matched state keeps its
rate), ``carry`` that formula also counting the partners of tuples matched in an earlier bucket,
``chain`` every partner moving the tuple to the state it gives, ``mixed`` the rates until the first
partner and the table after it, ``hazard`` the chain with its rates counted as HAZARD's statistics
count them (events in the state before, exposure in the state a step is spent in). The share of the gap closed is (policy - max(PROB, RAND)) / (OPT - max(PROB, RAND)),
with PROB, RAND, HAZARD and OPT from ``bench_general.measure``.

    python benchmarks/general_information.py --seeds 0,1,2 --memory 50,100 --out out/general_information.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pandas as pd
from bench_general import auctions, measure, requests

from shedding.atomic import write_text
from shedding.model import Workload
from shedding.online.hazard import age_buckets
from shedding.run import run_policy

#: pseudo-tuples of a state's shrinkage towards its coarser state
KAPPA = 10.0
#: open shadow entries per side (HAZARD's default ``shadow``)
SHADOW = 256
#: the states the learned index may use, each with its coarser parent
PARENT = {"all": None, "hazard": "all", "count": "hazard", "last": "count", "retry": "count",
          "count+group": "count", "last+group": "last", "clast": "hazard", "clast4": "hazard", "since": "hazard",
          "since4": "hazard"}
#: the states that fit HAZARD's model (matched yet widened by what the last partner says): the
#: matched state z >= 1 is 1 + a level of the last partner's age bucket (``clast``, ``clast4``: in
#: four levels) or of the steps since the last partner at the start of the current bucket
#: (``since``, ``since4``)
WIDENED = ("clast", "clast4", "since", "since4")
#: how a learned state's index may be computed besides the full table (``state@form``): from one
#: rate per state and bucket, as HAZARD's model holds them (:func:`rate_index`, :func:`chain_index`)
FORMS = ("rates", "carry", "chain", "mixed", "hazard")
KNOWN_SEED = 100  # the separate seed the ``known`` rates are fitted on


@dataclass
class Tuples:
    """What the join has told about every tuple so far: partners met, the age of the last one, and
    its own side's earlier arrivals of its key (filled at arrival), and a payload group known at
    arrival (0 for none)."""

    met: np.ndarray
    last: np.ndarray
    own: np.ndarray
    group: np.ndarray

    @classmethod
    def of(cls, n: int, group: np.ndarray | None = None) -> "Tuples":
        return cls(np.zeros(n, np.int64), np.full(n, -1, np.int64), np.zeros(n, np.int64),
                   np.zeros(n, np.int64) if group is None else np.asarray(group, np.int64))


@dataclass
class Result:
    outputs: int
    pairs: list[tuple[int, int]]


def run_index(wl: Workload, memory: int, ranker: "Ranker", group: np.ndarray | None = None) -> Result:
    """The window join of ``wl`` with ``memory`` slots (fixed split), shedding by ``ranker``
    (``group``: each tuple's payload group, known at its arrival)."""
    w, warm = wl.window, wl.warmup
    cap = (memory // 2, memory - memory // 2)
    side, time, key = wl.side, wl.time, wl.key
    info = Tuples.of(len(wl), group)
    held: list[dict[int, None]] = [{}, {}]
    by_key: list[dict[int, set[int]]] = [defaultdict(set), defaultdict(set)]
    seen: list[dict[int, int]] = [defaultdict(int), defaultdict(int)]
    ranker.start(wl, info)
    pairs: list[tuple[int, int]] = []
    starts = np.flatnonzero(np.r_[True, time[1:] != time[:-1]])
    for lo, hi in zip(starts, np.r_[starts[1:], len(wl)]):
        t = int(time[lo])
        batch = list(range(lo, hi))
        for x in batch:
            s, k = int(side[x]), int(key[x])
            info.own[x] = seen[s][k]
            seen[s][k] += 1
        expire(held, by_key, time, key, w, t - 1)  # windows that ended at steps without arrivals
        for x in batch:  # the join: each arrival with the other side's memory
            s, k = int(side[x]), int(key[x])
            for y in by_key[1 - s].get(k, ()):
                meet(info, x, y, t - int(time[y]))
                if t >= warm:
                    pairs.append((x, y) if s == 0 else (y, x))
        for r in batch:  # and the pairs within the batch
            for y in batch:
                if side[r] == 0 and side[y] == 1 and key[r] == key[y]:
                    meet(info, r, y, 0)
                    if t >= warm:
                        pairs.append((r, y))
        ranker.observe(t, batch)
        expire(held, by_key, time, key, w, t)  # every tuple whose window ends now
        for s in (0, 1):  # admit and evict
            cands = list(held[s]) + [x for x in batch if side[x] == s and time[x] + w - 1 > t]
            if len(cands) > cap[s]:
                prio = ranker.priority(np.array(cands), t)
                order = sorted(range(len(cands)), key=lambda i: (prio[i], time[cands[i]], cands[i]))
                keep = {cands[i] for i in order[len(cands) - cap[s]:]}
            else:
                keep = set(cands)
            for y in list(held[s]):
                if y not in keep:
                    del held[s][y]
                    by_key[s][int(key[y])].discard(y)
            for y in keep:
                if y not in held[s]:
                    held[s][y] = None
                    by_key[s][int(key[y])].add(y)
        ranker.step(t)
    return Result(len(pairs), pairs)


def expire(held: list[dict[int, None]], by_key: list[dict[int, set[int]]], time: np.ndarray, key: np.ndarray,
           w: int, t: int) -> None:
    """Drop every held tuple whose window has ended by step t (time + w - 1 <= t)."""
    for s in (0, 1):
        for y in [y for y in held[s] if time[y] + w - 1 <= t]:
            del held[s][y]
            by_key[s][int(key[y])].discard(y)


def meet(info: Tuples, x: int, y: int, age: int) -> None:
    """Arrival x meets y, of age ``age``."""
    info.met[x] += 1
    info.last[x] = 0
    info.met[y] += 1
    info.last[y] = age


class Ranker:
    """A policy's index: told of the workload, every arrival batch and every step's end."""

    def start(self, wl: Workload, info: Tuples) -> None:
        self.wl, self.info = wl, info

    def observe(self, t: int, batch: list[int]) -> None:
        pass

    def step(self, t: int) -> None:
        pass

    def priority(self, idx: np.ndarray, t: int) -> np.ndarray:
        raise NotImplementedError


def state_of(state: str, met: int, last: int, own: int, group: int, edges: np.ndarray, ng: int, at: int = 0) -> int:
    """The state id of a tuple with ``met`` partners (the last at age ``last``), ``own`` earlier
    arrivals of its key on its side, in payload group ``group`` of ``ng``, at the start of an age
    bucket that begins at age ``at``."""
    if state.endswith("+group"):
        return state_of(state[:-6], met, last, own, 0, edges, 1) * ng + group
    if state in WIDENED:
        if not met:
            return 0
        nb = len(edges) - 1
        level = bucket(edges, last if state.startswith("clast") else max(at - last, 0))
        return 1 + (level * 4 // nb if state.endswith("4") else level)
    if state == "all":
        return 0
    if state == "hazard":
        return min(met, 1)
    if state == "count":
        return min(met, 3)
    if state == "last":
        return min(met, 3) * (len(edges) - 1) + (bucket(edges, last) if met else 0)
    return min(met, 3) * 3 + min(own, 2)  # retry


def states(state: str, nb: int, ng: int) -> int:
    if state.endswith("+group"):
        return states(state[:-6], nb, 1) * ng
    return {"all": 1, "hazard": 2, "count": 4, "last": 4 * nb, "retry": 12, "clast": 1 + nb, "clast4": 5,
            "since": 1 + nb, "since4": 5}[state]


def bucket(edges: np.ndarray, age: int) -> int:
    return int(min(max(np.searchsorted(edges, age, side="right") - 1, 0), len(edges) - 2))


def chain(state: str) -> list[str]:
    """The states from the coarsest (all) to ``state``."""
    out: list[str] = []
    at: str | None = state
    while at is not None:
        out.insert(0, at)
        at = PARENT[at]
    return out


@dataclass
class Shadow:
    """The learner's statistics per side and state level: tuples observed through bucket b after
    being in state z at the start of bucket j (``n[z, j, b]``), and their partners in b (``ev``)."""

    edges: np.ndarray
    levels: list[str]
    ng: int
    form: str = "table"
    kappa: float = KAPPA
    ev: list[list[np.ndarray]] = field(default_factory=list)
    n: list[list[np.ndarray]] = field(default_factory=list)

    def __post_init__(self) -> None:
        nb = len(self.edges) - 1
        self.ev = [[np.zeros((states(lv, nb, self.ng), nb, nb)) for lv in self.levels] for _ in range(2)]
        self.n = [[np.zeros((states(lv, nb, self.ng), nb, nb)) for lv in self.levels] for _ in range(2)]

    def add(self, s: int, ages: list[int], own: int, group: int, seen: int, ev: list | None = None,
            n: list | None = None) -> None:
        """One entry of side s, observed through age ``seen``, its partners at ``ages``."""
        ev = self.ev[s] if ev is None else ev
        n = self.n[s] if n is None else n
        edges, nb = self.edges, len(self.edges) - 1
        p = np.sort(np.array(ages, np.int64))
        cum = np.searchsorted(p, edges, side="right")
        seg = np.diff(cum).astype(float)
        full = int(np.searchsorted(edges[1:], seen, side="right"))  # segments (e_b, e_b+1] observed
        if self.form == "hazard":
            self.add_exposure(p, cum, min(full, nb), own, group, ev, n)
            return
        for j in range(min(full, nb)):
            met = int(cum[j])
            last = int(p[met - 1]) if met else -1
            for i, lv in enumerate(self.levels):
                z = state_of(lv, met, last, own, group, edges, self.ng, int(edges[j]))
                ev[i][z, j, j:full] += seg[j:full]
                n[i][z, j, j:full] += 1

    def add_exposure(self, p: np.ndarray, cum: np.ndarray, full: int, own: int, group: int, ev: list,
                     n: list) -> None:
        """As HAZARD's statistics count them (``hazard.shadow_events``, ``hazard._account``): each
        partner an event in the state before it, and each step an exposure in the state it spends
        in, into the diagonal ``[z, b, b]`` (exposure in whole buckets, so that the mean is
        partners per bucket, as the other forms')."""
        edges = self.edges
        for b in range(full):
            met = int(cum[b])
            last = int(p[met - 1]) if met else -1
            at = float(edges[b])
            steps = float(edges[b + 1] - edges[b])
            for a in [*p[cum[b]:cum[b + 1]].tolist(), None]:
                upto = float(edges[b + 1]) if a is None else float(a)
                for i, lv in enumerate(self.levels):
                    z = state_of(lv, met, last, own, group, edges, self.ng, int(edges[b]))
                    n[i][z, b, b] += (upto - at) / steps
                    if a is not None:
                        ev[i][z, b, b] += 1
                if a is not None:
                    met, last, at = met + 1, int(a), upto

    def index(self, s: int, extra: tuple[list, list] | None = None) -> np.ndarray:
        """The index of every (state, bucket) of the finest level, shrunk along the levels."""
        edges, nb = self.edges, len(self.edges) - 1
        mean = None
        for i, lv in enumerate(self.levels):
            ev, n = self.ev[s][i], self.n[s][i]
            if extra is not None:
                ev, n = ev + extra[0][i], n + extra[1][i]
            if mean is None:
                mean = np.where(n > 0, ev / np.where(n > 0, n, 1), 0.0)
            else:
                parent = np.array([mean[self.coarser(lv, z, nb)] for z in range(states(lv, nb, self.ng))])
                mean = (ev + self.kappa * parent) / (n + self.kappa)
        assert mean is not None
        steps = np.diff(edges).astype(float)
        if self.form in ("chain", "hazard"):
            return chain_index(mean, steps, self.levels[-1])
        if self.form == "mixed":
            return mixed_index(mean, steps, self.levels[-1])
        if self.form != "table":
            return rate_index(mean, steps, self.levels[-1], self.form == "carry")
        return table_index(mean, steps)

    def coarser(self, lv: str, z: int, nb: int) -> int:
        """The parent level's state of state z of level ``lv``."""
        if lv.endswith("+group"):
            return z // self.ng
        if lv == "hazard":
            return 0
        if lv == "count" or lv in WIDENED:
            return min(z, 1)
        if lv == "last":
            return z // nb
        return z // 3  # retry -> count


def bucket_rates(mean: np.ndarray, steps: np.ndarray, state: str) -> tuple[np.ndarray, list[int]]:
    """What the rate forms read of a table: per state z and bucket b the mean partners in b of the
    tuples in z at its start, per step, and per bucket b the state a partner met in b gives
    (``clast``: 1 + the level of b; otherwise 1, matched)."""
    nb = len(steps)
    rate = mean[:, np.arange(nb), np.arange(nb)] / steps
    return rate, [1 + (b * 4 // nb if state.endswith("4") else b) if state.startswith("clast") else 1 for b in range(nb)]


def unmatched_bucket(still: float, l0: float, l1: float, steps: float) -> tuple[float, float, float]:
    """One bucket of an unmatched tuple, HAZARD's c = 0 term (``hazard.index_row``): with ``still``
    the chance it has met no partner yet, its first partner comes at the rate l0 and the partners
    after it in the bucket at l1. Returns the bucket's expected partners, the chance its first
    partner comes in the bucket, and the chance of none in it."""
    surv = math.exp(-l0 * steps) if l0 > 0 else 1.0
    first = still * (1.0 - surv)
    unmatched = first / l0 if l0 > 0 else still * steps
    return first + l1 * (still * steps - unmatched), first, surv


def best_rate(future: np.ndarray | list[float], steps: np.ndarray | None = None) -> float:
    """max over horizons h >= 1 of (expected partners in the next h ages, or buckets of ``steps``
    steps each) over their steps, summed in order as HAZARD sums them; 0 past the window."""
    if len(future) == 0:
        return 0.0
    return float((np.cumsum(future) / (np.arange(1, len(future) + 1) if steps is None else np.cumsum(steps))).max())


def rate_index(mean: np.ndarray, steps: np.ndarray, state: str, carry: bool) -> np.ndarray:
    """The index HAZARD's model can hold (``hazard.index_row``): per state z and bucket b only a
    rate, the mean partners in b of the tuples in z at its start per step; a matched state keeps
    its rate (frozen: a later partner's change of state is not foreseen), an unmatched tuple meets
    its first partner in bucket b at the z = 0 rate and then holds the state that partner gives it
    (``hazard``: 1; ``clast``: 1 + the level of b). HAZARD's formula counts a bucket's partners
    after the first only for the tuples unmatched at the bucket's start; ``carry`` also counts the
    partners, at their state's rate, of those matched in an earlier bucket."""
    nb = len(steps)
    rate, after = bucket_rates(mean, steps, state)
    out = np.zeros((mean.shape[0], nb))
    for z in range(mean.shape[0]):
        for j in range(nb):
            still = 1.0
            held = np.zeros(mean.shape[0])  # P(first partner met in an earlier bucket, giving state y)
            expected = []
            for b in range(j, nb):
                st = steps[b]
                if z >= 1:
                    expected.append(rate[z, b] * st)
                    continue
                e, first, surv = unmatched_bucket(still, rate[0, b], rate[after[b], b], st)
                if carry:
                    e += float(held @ rate[:, b]) * st
                expected.append(e)
                held[after[b]] += first
                still *= surv
            out[z, j] = best_rate(expected, steps[j:])
    return out


def chain_index(mean: np.ndarray, steps: np.ndarray, state: str) -> np.ndarray:
    """As :func:`rate_index`, but each partner moves the tuple to the state it gives (a Markov chain
    over the states, one rate per state and bucket): the mass of each state at the start of bucket b
    meets partners at its rate, and the share that meets one moves to the state a partner in b
    gives (its partners after that one in b at the new state's rate, as HAZARD's c = 0 -> 1)."""
    nb, nz = len(steps), mean.shape[0]
    rate, after = bucket_rates(mean, steps, state)
    out = np.zeros((nz, nb))
    for z in range(nz):
        for j in range(nb):
            p = np.zeros(nz)
            p[z] = 1.0
            expected = []
            for b in range(j, nb):
                st, to = steps[b], after[b]
                lt = rate[to, b]
                e = 0.0
                moved = 0.0
                for y in np.flatnonzero(p):
                    ly = rate[y, b]
                    if y == to or ly <= 0:
                        e += p[y] * ly * st
                        continue
                    first = p[y] * (1.0 - math.exp(-ly * st))
                    e += first + lt * (p[y] * st - first / ly)
                    p[y] -= first
                    moved += first
                p[to] += moved
                expected.append(e)
            out[z, j] = best_rate(expected, steps[j:])
    return out


def mixed_index(mean: np.ndarray, steps: np.ndarray, state: str) -> np.ndarray:
    """The full table's index for the matched states, and for an unmatched tuple one rate per
    bucket until its first partner (HAZARD's c = 0 model), after which it counts the table's
    partners of the state that partner gives: a partner met in bucket b' gives the mean partners in
    each later bucket of the tuples in that state at the start of b' + 1 (and, within b', the
    state's rate)."""
    nb = len(steps)
    out = table_index(mean, steps)
    rate, after = bucket_rates(mean, steps, state)
    for j in range(nb):
        still = 1.0
        firsts: list[tuple[int, float]] = []  # (bucket b' of the first partner, its probability)
        expected = []
        for b in range(j, nb):
            e, first, surv = unmatched_bucket(still, rate[0, b], rate[after[b], b], steps[b])
            expected.append(e + sum(p * mean[after[c], c + 1, b] for c, p in firsts))
            firsts.append((b, first))
            still *= surv
        out[0, j] = best_rate(expected, steps[j:])
    return out


def table_index(mean: np.ndarray, steps: np.ndarray) -> np.ndarray:
    """The full table's index: per state z and bucket j, the best mean partners per step over the
    buckets j..n of the tuples in z at the start of j."""
    nb = len(steps)
    out = np.zeros(mean.shape[:2])
    for j in range(nb):
        cum = np.cumsum(mean[:, j, j:], axis=1) / np.cumsum(steps[j:])
        out[:, j] = cum.max(axis=1)
    return out


class Learned(Ranker):
    """The index of a learned state: online from the shadow sample, or fixed (``tables``)."""

    def __init__(self, state: str, tables: list[np.ndarray] | None = None, ng: int = 1, form: str = "table",
                 kappa: float = KAPPA) -> None:
        self.state, self.tables, self.learn, self.ng, self.form = state, tables, tables is None, ng, form
        self.kappa = kappa

    def start(self, wl: Workload, info: Tuples) -> None:
        super().start(wl, info)
        self.edges = age_buckets(wl.window)
        assert int(info.group.max(initial=0)) < self.ng, "more payload groups than ng"
        self.shadow = Shadow(self.edges, chain(self.state), self.ng, self.form, self.kappa)
        self.open: list[dict[int, list[int]]] = [{}, {}]  # entry (tuple index) -> partner ages
        self.by_key: list[dict[int, list[int]]] = [defaultdict(list), defaultdict(list)]
        self.count, self.first = [0, 0], -1
        self.next_fit = 50
        if self.tables is None:
            self.tables = [np.zeros((states(self.state, len(self.edges) - 1, self.ng), len(self.edges) - 1))] * 2

    def every(self, s: int, t: int) -> int:
        rate = self.count[s] / max(t - self.first + 1, 1)
        return max(1, math.ceil(rate * max(self.wl.window - 1, 1) / SHADOW))

    def observe(self, t: int, batch: list[int]) -> None:
        wl, w = self.wl, self.wl.window
        if not self.learn:
            return
        if self.first < 0:
            self.first = t
        for x in batch:
            s = int(wl.side[x])
            self.count[s] += 1
            if (self.count[s] - 1) % self.every(s, t) == 0 and len(self.open[s]) < SHADOW:
                self.open[s][x] = []
                self.by_key[s][int(wl.key[x])].append(x)
        for x in batch:
            s, k = int(wl.side[x]), int(wl.key[x])
            for e in self.by_key[1 - s].get(k, ()):
                if t - wl.time[e] <= w - 1:
                    self.open[1 - s][e].append(t - int(wl.time[e]))
        for s in (0, 1):
            for e in [e for e in self.open[s] if t - wl.time[e] >= w - 1]:
                self.shadow.add(s, self.open[s].pop(e), int(self.info.own[e]), int(self.info.group[e]), w - 1)
                self.by_key[s][int(wl.key[e])].remove(e)

    def step(self, t: int) -> None:
        if self.learn and self.first >= 0 and t - self.first >= self.next_fit:
            self.fit(t)
            self.next_fit = self.next_fit * 2 if self.next_fit < 400 else self.next_fit + 400

    def fit(self, t: int) -> None:
        """Refit from the closed entries and what the open ones have shown so far."""
        tables = []
        for s in (0, 1):
            extra = ([np.zeros_like(a) for a in self.shadow.ev[s]], [np.zeros_like(a) for a in self.shadow.n[s]])
            for e, ages in self.open[s].items():
                self.shadow.add(s, ages, int(self.info.own[e]), int(self.info.group[e]), t - int(self.wl.time[e]),
                                extra[0], extra[1])
            tables.append(self.shadow.index(s, extra))
        self.tables = tables

    def priority(self, idx: np.ndarray, t: int) -> np.ndarray:
        wl, info, edges = self.wl, self.info, self.edges
        assert self.tables is not None
        out = np.empty(len(idx))
        for i, x in enumerate(idx):
            j = bucket(edges, t - int(wl.time[x]))
            z = state_of(self.state, int(info.met[x]), int(info.last[x]), int(info.own[x]), int(info.group[x]), edges,
                         self.ng, int(edges[j]))
            out[i] = self.tables[int(wl.side[x])][z, j]
        return out


def known_tables(make: Callable[..., Workload], seed: int, state: str,
                 group_of: Callable[[Workload, int], np.ndarray] | None = None, form: str = "table",
                 kappa: float = KAPPA) -> list[np.ndarray]:
    """The index tables fitted on every tuple of another seed of the generator (no join run);
    ``group_of(wl, seed)`` gives its tuples' payload groups."""
    wl = make(seed=seed)
    ranker = Learned(state, ng=DURATIONS if group_of is not None else 1, form=form, kappa=kappa)
    info = Tuples.of(len(wl), None if group_of is None else group_of(wl, seed))
    ranker.start(wl, info)
    sh = ranker.shadow
    partners: dict[int, list[int]] = defaultdict(list)
    seen: list[dict[int, int]] = [defaultdict(int), defaultdict(int)]
    keyed: list[dict[int, list[int]]] = [defaultdict(list), defaultdict(list)]
    for x in range(len(wl)):
        s, k = int(wl.side[x]), int(wl.key[x])
        info.own[x] = seen[s][k]
        seen[s][k] += 1
        keyed[s][k].append(x)
    lo, hi = wl.bounds
    for k in keyed[0]:
        for r in keyed[0][k]:
            for y in keyed[1].get(k, ()):
                d = int(wl.time[y] - wl.time[r])
                if lo <= d <= hi and d >= 0:
                    partners[r].append(d)
                if lo <= d <= hi and d <= 0:
                    partners[y].append(-d)
    for x in range(len(wl)):
        sh.add(int(wl.side[x]), partners.get(x, []), int(info.own[x]), int(info.group[x]), wl.window - 1)
    return [sh.index(0), sh.index(1)]


class AuctionOracle(Ranker):
    """An auction that has met m of its n bids at age a: its n - m others come at ages > a, each
    with the generator's law P(age <= x) = min(1, (x / L)^2) (L its duration) given > a; a bid
    never has a later partner. With ``knows_bids`` false only L is known, and n - m is its mean
    given m under the generator's law of n."""

    def __init__(self, seed: int, steps: int = 4000, rate: float = 0.5, duration: float = 120.0,
                 bids: float = 4.0, knows_bids: bool = True) -> None:
        rng = np.random.default_rng(seed)  # the draws of bench_general.auctions, in its order
        n = rng.poisson(rate * steps)
        rng.integers(0, steps, n)
        self.length = np.maximum(1, rng.exponential(duration, n)).astype(np.int64)
        self.bids = np.minimum(rng.zipf(2.2, n) * bids / 2.2, 200).astype(np.int64)
        self.knows_bids = knows_bids
        z = np.arange(1, 200_001, dtype=float)  # the prior of the number of bids: the generator's law
        self.prior = np.bincount(np.minimum(z * bids / 2.2, 200).astype(np.int64), weights=z ** -2.2, minlength=201)
        self.prior /= self.prior.sum()

    def left(self, x: int, seen: float) -> float:
        """The bids of auction x still to come: known, or their mean given the m met so far when
        the share ``seen`` of its bid ages has passed (the prior over the number of bids)."""
        m = int(self.info.met[x])
        if self.knows_bids:
            return float(self.bids[int(self.wl.key[x])] - m)
        n = np.arange(m, len(self.prior))
        logp = np.log(np.maximum(self.prior[m:], 1e-300)) + np.array([math.lgamma(v + 1) - math.lgamma(v - m + 1) for v in n])
        logp += (n - m) * math.log(max(1.0 - seen, 1e-300))
        post = np.exp(logp - logp.max())
        return float(((n - m) * post).sum() / post.sum())

    def start(self, wl: Workload, info: Tuples) -> None:
        super().start(wl, info)
        owners = wl.key[wl.side == 1]
        assert np.array_equal(np.bincount(owners, minlength=len(self.bids)), self.bids), "not this seed's auctions"

    def priority(self, idx: np.ndarray, t: int) -> np.ndarray:
        wl, w = self.wl, self.wl.window
        out = np.zeros(len(idx))
        for i, x in enumerate(idx):
            if wl.side[x] == 1:
                continue
            k, a = int(wl.key[x]), t - int(wl.time[x])
            length = float(self.length[k])
            done = min(1.0, (a / length) ** 2)
            left = self.left(x, done)
            if left <= 0.0 or done >= 1.0:
                continue
            cdf = np.minimum(1.0, (np.arange(a, w) / length) ** 2)  # ages a .. w - 1
            out[i] = best_rate(left * np.diff(cdf) / (1.0 - done))
        return out


class RequestOracle(Ranker):
    """A request's copy i (its retry number: the earlier arrivals of its key) meets its one
    response at age x with P_i(x) = sum over d of f^d p(x - d * timeout), d = 0 .. retries - i (the
    copies after it answering), p the law of one copy's answer (probability ``answer``, after
    1 + floor(lognormal(latency, sigma)) steps, at most ``timeout``), f = 1 - sum p; given no
    response yet. A matched request and a response have no later partner."""

    def __init__(self, window: int, latency: float = 3.5, sigma: float = 1.0, timeout: int = 150,
                 retries: int = 2, answer: float = 0.9) -> None:
        lags = np.arange(1, timeout + 1)
        cdf = np.array([0.5 * (1 + math.erf((math.log(x) - latency) / (sigma * math.sqrt(2)))) for x in lags])
        p = answer * np.diff(np.r_[0.0, cdf])  # p[l - 1] = P(lag = l): 1 + floor(LN) = l
        fail = 1.0 - p.sum()
        self.table = np.zeros((retries + 1, window))
        self.laws = np.zeros((retries + 1, window))  # P_i(x), ages 0 .. w - 1
        self.born = fail ** np.arange(retries + 1)  # the chance that copy i is sent
        self.timeout = timeout
        for i in range(retries + 1):
            law = np.zeros(window + (retries + 1) * timeout + 1)
            for d in range(retries - i + 1):
                law[d * timeout + 1:d * timeout + 1 + timeout] += fail ** d * p
            law = self.laws[i] = law[:window]
            for a in range(window):
                alive = 1.0 - law[:a + 1].sum()
                self.table[i, a] = best_rate(law[a + 1:] / alive) if alive > 1e-12 else 0.0

    def priority(self, idx: np.ndarray, t: int) -> np.ndarray:
        wl, info = self.wl, self.info
        out = np.zeros(len(idx))
        for i, x in enumerate(idx):
            if wl.side[x] == 0 and info.met[x] == 0:
                out[i] = self.table[min(int(info.own[x]), len(self.table) - 1), t - int(wl.time[x])]
        return out


def request_bound(wl: Workload, memory: int, law: RequestOracle) -> float:
    """An upper bound on the expected output of every online policy on a requests workload with
    the generator's law: the memory constraint relaxed to its sum over the steps (M_R slots at each
    of the run's steps), Lagrange multiplier mu. A request's copies are told nothing about their
    response but their own age and whether it came, so each copy's best use of memory at price mu
    is a hold to some age N while unmatched: it earns its partners at ages <= N counted (at times
    >= warmup) less mu times its expected steps in memory; copy i is sent with probability f^i, at
    i timeouts after the original. Bound = min over mu of the sum of those best values over the
    original requests, plus mu M_R T (T the steps the run spans). Responses never have later
    partners, and no pair forms within a batch, so nothing else counts."""
    w, warm = wl.window, wl.warmup
    r = wl.side == 0
    seen: set[int] = set()
    sent = []
    for t, k in zip(wl.time[r].tolist(), wl.key[r].tolist()):
        if k not in seen:
            seen.add(k)
            sent.append(t)
    sent_at = np.array(sent)
    span = int(wl.time.max() - wl.time.min() + 1)
    mus = np.r_[0.0, np.geomspace(1e-5, 1.0, 400)]
    total = mus * (memory // 2) * span
    ages = np.arange(w)
    for i in range(len(law.laws)):
        p = law.laws[i]
        held = np.cumsum(1.0 - np.cumsum(p))[:-1]  # steps held (unmatched after ages 0..N-1), N = 1..w-1
        cut, counts = np.unique(np.clip(warm - (sent_at + i * law.timeout), 0, w), return_counts=True)
        for c, n in zip(cut, counts):
            catch = np.cumsum(np.where(ages >= c, p, 0.0))[1:]  # partners at ages 1..N, counted
            value = catch[None, :] - mus[:, None] * held[None, :]
            total += n * law.born[i] * np.maximum(value.max(axis=1), 0.0)
    return float(total.min())


#: an auction's duration as a payload group: its octave, floor(log2 L), the last open-ended
DURATIONS = 12


def duration_octave(wl: Workload, seed: int) -> np.ndarray:
    """Each tuple's auction's duration octave (a bid gets its auction's): the expiry a NEXMark
    auction carries when it opens, as a payload group."""
    length = AuctionOracle(seed).length
    return np.minimum(np.log2(length[wl.key]).astype(np.int64), DURATIONS - 1)


GENERATORS: dict[str, Callable[..., Workload]] = {"auctions": auctions, "requests": requests}
LEARNED = ("hazard", "count", "last", "retry")
#: the learned states that also know the auction's duration octave (auctions only)
GROUPED = ("count+group", "last+group")


def oracles(name: str, seed: int, wl: Workload) -> dict[str, Ranker]:
    """The oracles of a generator: an auction's duration and bids, or its duration alone; a
    request's latency law and retry number."""
    if name == "auctions":
        return {"oracle": AuctionOracle(seed), "oracle-duration": AuctionOracle(seed, knows_bids=False)}
    return {"oracle": RequestOracle(wl.window)}


def gap(value: int, row: dict) -> float | None:
    base = max(row["prob"], row["rand"])
    return round((value - base) / (row["opt"] - base), 3) if row["opt"] > base else None


def summary(rows: list[dict]) -> None:
    """Per workload and memory, the share of the gap each policy closed (seeds in order)."""
    labels = list(dict.fromkeys(k[:-4] for r in rows for k in r if k.endswith("_gap")))
    groups: dict[tuple[str, int], list[dict]] = defaultdict(list)
    for r in rows:
        groups[(r["workload"].split("(")[0], r["memory"])].append(r)
    print("share of the gap between max(PROB, RAND) and OPT closed, seeds in order")
    for (name, memory), rs in groups.items():
        cells = [f"{lb} " + "/".join(f"{100 * r[lb + '_gap']:.1f}" if r.get(lb + "_gap") is not None else "-"
                                     for r in rs) for lb in labels if any(lb + "_gap" in r for r in rs)]
        print(f"{name} M={memory}: " + "; ".join(cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=lambda s: [int(x) for x in s.split(",")], default=[0, 1, 2])
    parser.add_argument("--memory", type=lambda s: [int(x) for x in s.split(",")], default=[50, 100])
    parser.add_argument("--generators", type=lambda s: s.split(","), default=list(GENERATORS))
    parser.add_argument("--states", type=lambda s: s.split(","), default=[*LEARNED, *GROUPED, "oracle"])
    parser.add_argument("--online-only", action="store_true", help="skip the rates fitted on another seed")
    parser.add_argument("--kappa", type=float, default=KAPPA, help="pseudo-tuples of the shrinkage to the coarser state")
    parser.add_argument("--base", help="bench_general.py's JSON lines for these seeds (else measured here)")
    parser.add_argument("--out", help="also write the rows here (JSON lines)")
    args = parser.parse_args()
    bases = {}
    if args.base:
        with open(args.base) as f:
            bases = {(r["workload"], r["memory"]): r for r in map(json.loads, f)}
    rows = []
    for name in args.generators:
        make = GENERATORS[name]
        grouped = name == "auctions"  # the requests carry no payload
        chosen = [st for st in args.states if grouped or st not in GROUPED]
        known = {st: known_tables(make, KNOWN_SEED, st.partition("@")[0],
                                  duration_octave if st in GROUPED else None, st.partition("@")[2] or "table",
                                  args.kappa)
                 for st in chosen if st != "oracle" and not args.online_only}
        for seed in args.seeds:
            wl = make(seed=seed)
            group = duration_octave(wl, seed) if grouped else None
            for memory in args.memory:
                row = dict(bases.get((wl.name, memory)) or measure(wl, memory))
                row["hazard_gap"] = gap(row["hazard"], row)
                if grouped and any(st in GROUPED for st in chosen):  # HAZARD told the duration octave as its group
                    assert group is not None
                    told = Workload(wl.side, wl.time, wl.key, wl.window, wl.warmup, wl.name,
                                    {"payload": pd.DataFrame({"duration": group})})
                    row["hazard+duration"] = int(run_policy(told, "hazard", memory, estimator="online",
                                                            group="duration").outputs)
                    row["hazard+duration_gap"] = gap(row["hazard+duration"], row)
                elif not grouped:
                    row["bound"] = round(request_bound(wl, memory, RequestOracle(wl.window)))
                    row["bound_gap"] = gap(row["bound"], row)
                for st in chosen:
                    ng = DURATIONS if st in GROUPED else 1
                    state, _, form = st.partition("@")
                    runs = oracles(name, seed, wl) if st == "oracle" else \
                        {f"{st}/online": Learned(state, ng=ng, form=form or "table", kappa=args.kappa)}
                    if st in known:
                        runs[f"{st}/known"] = Learned(state, known[st], ng=ng, form=form or "table", kappa=args.kappa)
                    for label, ranker in runs.items():
                        out = run_index(wl, memory, ranker, group if st in GROUPED else None).outputs
                        row[label] = out
                        row[f"{label}_gap"] = gap(out, row)
                print(json.dumps(row), flush=True)
                rows.append(row)
    summary(rows)
    if args.out:
        write_text(args.out, "".join(json.dumps(r) + "\n" for r in rows))


if __name__ == "__main__":
    main()
