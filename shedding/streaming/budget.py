"""One memory budget for all shards: M re-divided every micro-batch by each shard's load and value.

An equi-join on P key shards is P independent window joins, but splitting M evenly ignores that
the keys are not: under Zipf keys the shard holding the hottest key needs several times the memory
of the others, and PROB at P = 8 kept 15% fewer pairs than at P = 1 on the paper's workload (§4:
2 x 200,000 Zipf(1) tuples, domain 650, w = M = 500). The fast-CPU join of Das, Gehrke,
Riedewald (SIGMOD 2003, §2.1) with PROB (§3.3.1) keeps the tuples whose keys are most likely to
find a partner; in the fluid picture memory holds every live tuple of the best keys until M is
full. :func:`divide` gives each shard what that picture puts in it:

* every micro-batch carries a *census*: the R and S arrivals per key over the whole batch (all
  shards), counted before the shuffle (:meth:`Census.of`) and handed to every shard;
* each shard adds it to a :class:`Census` in its state: all shards hold the same totals, so each
  computes the same division, from committed state plus the batch's input (a replayed batch
  makes the same choice; the pairs depend on where the micro-batches end, and a restart may cut
  them otherwise than an uninterrupted run, :mod:`~shedding.streaming.recorded`);
* a key k of side s is worth its partner probability c_{1-s}(k) / N_{1-s} and occupies about
  c_s(k) w / T slots (its live tuples, T steps seen so far); the items are taken by worth until
  M is full (per side under a fixed split, together under a variable one), and each shard's
  budget is what its keys took, rounded to integers that sum to M exactly. RAND ranks no keys:
  its budgets follow the load alone.

The shard sets its budget before it joins the batch (:meth:`~shedding.online.engine.JoinOperator.set_memory`).
A shard's memory never exceeds its budget after a batch, so all shards together never hold more
than M. The census costs a table of the distinct keys per shard (replicated): with very many
distinct keys, ``budget="even"`` keeps the even split.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from shedding.streaming.partition import shard_of

#: the budget modes: one budget re-divided every micro-batch, or M split evenly once
BUDGETS = ("shared", "even")


@dataclass
class Census:
    """Arrivals per key and side (``counts[0]`` R, ``counts[1]`` S for ``keys``, sorted), and the
    first and last time step seen: of one micro-batch, or summed over every batch so far."""

    keys: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    counts: np.ndarray = field(default_factory=lambda: np.zeros((2, 0), dtype=np.int64))
    first: int | None = None
    last: int | None = None

    @classmethod
    def of(cls, side: np.ndarray, key: np.ndarray, time: np.ndarray) -> "Census":
        """The census of some rows (rows of a side other than R or S are not counted)."""
        side = np.asarray(side)
        data = (side == 0) | (side == 1)
        key, side, time = np.asarray(key)[data], side[data], np.asarray(time)[data]
        keys, inverse = np.unique(key, return_inverse=True)
        counts = np.zeros((2, len(keys)), dtype=np.int64)
        np.add.at(counts, (side.astype(np.int64), inverse), 1)
        return cls(keys, counts, *((int(time.min()), int(time.max())) if len(time) else (None, None)))

    def merge(self, other: "Census") -> None:
        """Add ``other``'s arrivals and time span to this census."""
        if other.first is not None and other.last is not None:  # set together (of)
            self.first = other.first if self.first is None else min(self.first, other.first)
            self.last = other.last if self.last is None else max(self.last, other.last)
        if not len(other.keys):
            return
        merged = np.union1d(self.keys, other.keys)
        total = np.zeros((2, len(merged)), dtype=np.int64)
        total[:, np.searchsorted(merged, self.keys)] += self.counts
        total[:, np.searchsorted(merged, other.keys)] += other.counts
        self.keys, self.counts = merged, total

    @property
    def steps(self) -> int:
        """T: the time steps spanned so far (at least 1)."""
        return 1 if self.first is None or self.last is None else self.last - self.first + 1


def _fill(worth: np.ndarray, slots: np.ndarray, owner: np.ndarray, capacity: int, shards: int) -> np.ndarray:
    """Shares of ``capacity`` per shard: items taken by ``worth`` (highest first; ties by position)
    until the capacity is used, the last one in part; what is left over goes by load."""
    order = np.lexsort((np.arange(len(worth)), -worth))
    taken = np.zeros(len(worth))
    room = np.cumsum(slots[order])
    full = int(np.searchsorted(room, capacity, side="right"))
    taken[order[:full]] = slots[order[:full]]
    if full < len(order):
        taken[order[full]] = capacity - (room[full - 1] if full else 0.0)
    share = np.bincount(owner, weights=taken, minlength=shards).astype(np.float64)
    load = np.bincount(owner, weights=slots, minlength=shards).astype(np.float64)
    spare = capacity - share.sum()
    if spare > 0:
        share += spare * (load / load.sum() if load.sum() > 0 else np.full(shards, 1.0 / shards))
    return share


def _whole(share: np.ndarray, total: int) -> list[int]:
    """Integers that sum to ``total``, each the floor of its share or one more (largest remainders
    first, ties to the lower shard)."""
    base = np.floor(share + 1e-9).astype(np.int64)
    base = np.minimum(base, total)
    rest = int(total - base.sum())
    if rest > 0:
        base[np.lexsort((np.arange(len(share)), -(share - base)))[:rest]] += 1
    elif rest < 0:  # rounding pushed the floors past the total (shares summing to it within 1e-9)
        for i in np.lexsort((np.arange(len(share)), share - base))[: -rest]:
            base[i] -= 1
    return [int(b) for b in base]


def divide(census: Census, window: int, memory: tuple[int, int, int], shards: int, variable: bool,
           by_worth: bool = True) -> list[tuple[int, int, int]]:
    """(M_i, M_R,i, M_S,i) per shard from the census (module docstring). ``memory`` is
    (M, M_R, M_S); ``variable`` divides M as one pool (M_R,i, M_S,i are then M_i // 2 and the
    rest, as the operator's default); ``by_worth`` False divides by load alone (RAND)."""
    m, m_r, m_s = memory
    counts = census.counts.astype(np.float64)
    owner = shard_of(census.keys, shards)
    totals = counts.sum(axis=1)
    slots = counts * window / census.steps
    worth = np.ones_like(counts)
    if by_worth:
        for s in (0, 1):
            worth[s] = counts[1 - s] / totals[1 - s] if totals[1 - s] > 0 else 0.0
    if variable:
        whole = _whole(_fill(worth.ravel(), slots.ravel(), np.tile(owner, 2), m, shards), m)
        return [(b, b // 2, b - b // 2) for b in whole]
    per_side = [_whole(_fill(worth[s], slots[s], owner, cap, shards), cap) for s, cap in ((0, m_r), (1, m_s))]
    return [(r + s, r, s) for r, s in zip(*per_side)]
