"""An adaptive policy that learns, from what it has seen, how a tuple's chance of meeting future
partners depends on its age, its key and its payload: a prototype valuer for
:func:`~shedding.online.ageing.run_valued` (plain numpy, not a kernel kind yet).

The model. A tuple x of side s, payload group g and key k, at age b, meets partners at the rate

    lambda_c(x, b) = e[s, g, c, j(b)] + theta[s, c, j(b)] * beta(k)

where j(b) is b's age bucket (geometric buckets), c = 1 once x has met a partner (0 before),
beta(k) the other side's arrivals of key k per step so far (the frequency-based model of Das,
Gehrke, Riedewald 2003, §3.3.1) and e a key-independent age curve (the age-based model of
Srivastava and Widom, VLDB 2004). On i.i.d. streams e = 0 and theta = 1: the rate is beta, the
priority that of PROB. On the age-based model theta is 0 and e is the age curve.

Learning. A :class:`Shadow` sample (every ``sample``-th tuple of each side) is followed through
its whole window as if it were kept: it records each partner met (its age, bucket, matched flag
and the tuple's beta at arrival) and the ages lived in each state (exposure). The censoring is
the window's alone, so the estimates do not depend on what the policy kept. e and theta are fitted
to these counts by EM for the two-component Poisson model (the events of a bucket split between
the components in proportion to their rates), with the groups' curves shrunk towards their side's
pooled curve (``kappa`` ages of pseudo-exposure) and theta towards 1; refitted at steps 0, 1, 2,
4, ..., then every ``every`` steps.

The priority. The expected partners of x in each future bucket follow from the rates (an
unmatched tuple meets its first partner at rate lambda_0, then continues at lambda_1); the
priority is the best mean rate over a horizon, max over bucket ends n of (expected partners in
ages a+1..n) / (n - a): PROB's probability when rates are flat, and AGE's preference for tuples
nearing their partner's age when they are not (a Gittins-like index for a slot rented per step).
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from shedding.model import Workload
from shedding.online.ageing import Counts


def geometric_edges(window: int, ratio: float = 1.15, first: int = 4) -> np.ndarray:
    """Age bucket edges 1 = e_0 < e_1 < ... < e_B = w (bucket j holds the ages e_j..e_(j+1) - 1):
    ``first`` ages wide, each next one ``ratio`` times wider."""
    edges, width = [1], float(first)
    while edges[-1] < window:
        edges.append(min(window, edges[-1] + max(1, round(width))))
        width *= ratio
    return np.array(edges, dtype=np.int64)


class Shadow:
    """Every ``sample``-th tuple of each side followed through its window (see the module
    docstring). Entries are [arrival time, beta at arrival, group, age of the first partner]."""

    def __init__(self, wl: Workload, sample: int, group: np.ndarray, edges: np.ndarray, counts: Counts) -> None:
        self.w, self.sample, self.group, self.edges, self.counts = wl.window, sample, group, edges, counts
        self.key = wl.key
        self.n_groups = int(group.max()) + 1 if len(group) else 1
        self.width = np.diff(edges).astype(np.float64)
        self.bucket = np.searchsorted(edges, np.arange(self.w), side="right") - 1  # age -> bucket
        self.active: dict = defaultdict(list)  # (side, key) -> entries in arrival order
        self.order: list = []  # (entry, side, key) in arrival order; self.head: first still in its window
        self.head = 0
        shape = (2, self.n_groups, 2, len(self.width))
        self.done_n, self.done_w = np.zeros(shape), np.zeros(shape)  # exposure of finished entries
        self.events: list = []  # (side, group, matched, bucket, beta)
        self.seen = np.zeros(2, dtype=np.int64)

    def arrive(self, t: int, i: int, j: int) -> None:
        side, cnt = self.counts.side, self.counts
        for x in range(i, j):
            s = 1 - int(side[x])
            for entry in self.active.get((s, int(self.key[x])), ()):
                age = t - entry[0]
                if 1 <= age <= self.w - 1:
                    self.events.append((s, entry[2], int(entry[3] is not None), self.bucket[age], entry[1]))
                    if entry[3] is None:
                        entry[3] = age
        while self.head < len(self.order) and self.order[self.head][0][0] + self.w - 1 < t:
            entry, s, k = self.order[self.head]
            self.active[(s, k)].pop(0)
            self._expose(self.done_n, self.done_w, entry, s, self.w - 1)
            self.head += 1
        for x in range(i, j):
            s = int(side[x])
            self.seen[s] += 1
            if self.seen[s] % self.sample == 0:
                entry = [t, float(cnt.partner_rate(np.array([x]), t)[0]), int(self.group[x]), None]
                self.active[(s, int(self.key[x]))].append(entry)
                self.order.append((entry, s, int(self.key[x])))

    def _expose(self, n: np.ndarray, wsum: np.ndarray, entry: list, s: int, age: int) -> None:
        """Add the ages 1..age of ``entry``: unmatched up to its first partner, matched after."""
        if age <= 0:
            return
        first = age if entry[3] is None else min(entry[3], age)
        lived0 = np.clip(first + 1 - self.edges[:-1], 0, self.width)
        lived1 = np.clip(age + 1 - self.edges[:-1], 0, self.width) - lived0
        for c, lived in ((0, lived0), (1, lived1)):
            n[s, entry[2], c] += lived
            wsum[s, entry[2], c] += lived * entry[1]

    def exposure(self, t: int) -> tuple[np.ndarray, np.ndarray]:
        """[side, group, matched, bucket]: the ages lived so far, and the same weighted by beta."""
        n, wsum = self.done_n.copy(), self.done_w.copy()
        for entry, s, _ in self.order[self.head:]:
            self._expose(n, wsum, entry, s, min(t - entry[0], self.w - 1))
        return n, wsum


class HazardValuer(Counts):
    """The adaptive policy (see the module docstring). ``group`` gives each workload tuple a
    payload group (e.g. the flight's destination code; None = one group); ``matched`` = False
    drops the matched flag; ``sample``, ``ratio`` / ``first`` (buckets), ``every``, ``iters`` (EM
    steps per refit) and ``kappa`` tune the learning."""

    def __init__(self, group: np.ndarray | None = None, sample: int = 1, ratio: float = 1.15, first: int = 4,
                 every: int = 64, iters: int = 8, kappa: float = 100.0, matched: bool = True,
                 online: bool = True) -> None:
        super().__init__(online)
        self.group_arg, self.sample, self.ratio, self.first = group, sample, ratio, first
        self.every, self.iters, self.kappa, self.matched = every, iters, kappa, matched

    def start(self, wl: Workload, budgets: tuple[int, ...]) -> None:
        super().start(wl, budgets)
        self.edges = geometric_edges(wl.window, self.ratio, self.first)
        group = np.zeros(len(wl), np.int64) if self.group_arg is None else np.asarray(self.group_arg, np.int64)
        self.group = group
        self.shadow = Shadow(wl, self.sample, group, self.edges, self)
        n_b, n_c = len(self.edges) - 1, 2 if self.matched else 1
        self.beta_bins = np.logspace(-7, 2, 37)
        cells = (2, self.shadow.n_groups, 2, n_b, len(self.beta_bins) + 1)
        self.ev, self.ev_beta = np.zeros(cells), np.zeros(cells)  # events and their summed beta
        self.used = 0
        self.e = np.zeros((2, self.shadow.n_groups, n_c, n_b))
        self.theta = np.ones((2, n_c, n_b))
        self.steps = 0

    def arrive(self, t: int, i: int, j: int) -> None:
        super().arrive(t, i, j)
        self.shadow.arrive(t, i, j)
        if (self.steps & (self.steps - 1)) == 0 or self.steps % self.every == 0:
            self.fit(t)
        self.steps += 1

    def _statistics(self, t: int) -> tuple[np.ndarray, ...]:
        """(events, mean beta of the events, exposure, beta-weighted exposure) per cell, with the
        matched flag pooled when it is not used."""
        new = self.shadow.events[self.used:]
        self.used = len(self.shadow.events)
        if new:
            s, g, c, b, beta = (np.array(col) for col in zip(*new))
            q = np.searchsorted(self.beta_bins, beta)
            np.add.at(self.ev, (s, g, c, b, q), 1.0)
            np.add.at(self.ev_beta, (s, g, c, b, q), beta)
        ev, ev_beta = self.ev, self.ev_beta
        n, wsum = self.shadow.exposure(t)
        if not self.matched:
            ev, ev_beta = ev.sum(axis=2, keepdims=True), ev_beta.sum(axis=2, keepdims=True)
            n, wsum = n.sum(axis=2, keepdims=True), wsum.sum(axis=2, keepdims=True)
        return ev, np.where(ev > 0, ev_beta / np.maximum(ev, 1e-300), 0.0), n, wsum

    def fit(self, t: int) -> None:
        """EM for e and theta on all the shadow's counts so far."""
        ev, beta, n, wsum = self._statistics(t)
        if not ev.any():
            return
        n_side, w_side = n.sum(axis=1), wsum.sum(axis=1)  # [side, matched, bucket]
        pooled_raw = ev.sum(axis=(1, 4)) / np.maximum(n_side, 1e-9)
        e = np.maximum(self.e, 0.05 * pooled_raw[:, None])  # EM cannot leave 0: keep both components alive
        theta = np.maximum(self.theta, 0.05)
        prior = 0.05 * np.maximum(w_side.sum(axis=(1, 2), keepdims=True) / w_side[0].size, 1e-12)
        for _ in range(self.iters):
            lam_e = e[..., None]
            lam_t = theta[:, None, :, :, None] * beta
            share = np.where(ev > 0, lam_e / np.maximum(lam_e + lam_t, 1e-300), 0.0)
            ev_e = (ev * share).sum(axis=4)
            pooled = ev_e.sum(axis=1) / (n_side + 1.0)
            e = (ev_e + self.kappa * pooled[:, None]) / (n + self.kappa)
            theta = ((ev * (1.0 - share)).sum(axis=(1, 4)) + prior) / (w_side + prior)
        self.e, self.theta = e, theta

    def mean_curves(self, t: int) -> np.ndarray:
        """f[s, a]: partners per age lived, pooled over keys, groups and states (AGE's curve)."""
        ev, _, n, _ = self._statistics(t)
        if len(self.edges) < 2:  # w = 1: no age at which a partner could come
            return np.zeros((2, self.wl.window))
        per_bucket = ev.sum(axis=(1, 2, 4)) / np.maximum(n.sum(axis=(1, 2)), 1e-9)
        f = per_bucket[:, self.shadow.bucket]
        f[:, 0] = 0.0
        return f

    def values(self, t: int, cand: np.ndarray) -> np.ndarray:
        s, g = self.side[cand], self.group[cand]
        beta = self.partner_rate(cand, t)[:, None]
        lam0 = self.e[s, g, 0] + self.theta[s, 0] * beta
        if self.matched:
            lam1 = self.e[s, g, 1] + self.theta[s, 1] * beta
            matched = self.last[1 - s, self.kid[cand]] > self.time[cand]
        else:
            lam1, matched = lam0, np.ones(len(cand), dtype=bool)
        age = (t - self.time[cand]).astype(np.float64)[:, None]
        # the ages a+1.. of each bucket still ahead
        length = np.clip(self.edges[None, 1:] - np.maximum(self.edges[None, :-1], age + 1), 0, None)
        # an unmatched tuple meets its first partner at lam0, then continues at lam1 (exact per bucket)
        still = np.exp(-np.cumsum(lam0 * length, axis=1))
        before = np.concatenate([np.ones((len(cand), 1)), still[:, :-1]], axis=1)
        first = before - still
        unmatched_time = np.where(lam0 > 0, first / np.where(lam0 > 0, lam0, 1.0), before * length)
        expected = np.where(matched[:, None], lam1 * length, first + lam1 * (length - unmatched_time))
        span = np.cumsum(length, axis=1)
        mean_rate = np.cumsum(expected, axis=1) / np.where(span > 0, span, 1.0)
        return np.where(span > 0, mean_rate, -np.inf).max(axis=1)
