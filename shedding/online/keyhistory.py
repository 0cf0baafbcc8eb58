"""The key's history as HAZARD's group: how soon the last tuple of the same side and key met its
first partner, known from the stream alone.

HAZARD learns how a tuple's chance of a partner depends on its age (:mod:`~shedding.online.hazard`),
one age curve per group (:mod:`~shedding.online.groups`). Without a payload every tuple shares one
curve, which cannot tell a departure whose arrival comes in 40 minutes from one whose arrival
comes in six hours. The stream itself often can: the same key (an aircraft, a user, a session)
tends to repeat how long its partners take, and how long the key's previous tuple waited is seen
by every online policy (Das, Gehrke, Riedewald 2003, §3.3: an online policy knows the arrivals so
far, not the future). ``group="history"`` groups each tuple by that observation:

* For a tuple x of side s and key k arriving at p, its *first partner age* is u - p for the first
  arrival u of the other side with key k within x's partner ages (``first <= u - p <= last``,
  :func:`~shedding.online.bound.partner_ages`: the ages at which a held x can meet an arrival; a
  partner arriving with x is produced whether x is held or not, so it is not counted). The
  observation is known at u; when no such arrival comes, "no partner" is known at ``p + last + 1``.
* A tuple y of side s and key k arriving at t takes the observation made last before t among the
  earlier tuples of its side and key (at equal times, the later arrival's): group 0 while none is
  known, 1 for "no partner", ``2 + b`` for a first partner age in slice b of :data:`SLICES` equal
  slices of ``first..last``.

The groups are computed from the whole stream at once, but each tuple's uses only arrivals before
its own time, so the policy stays online (a test scrambles the stream after a time and checks the
groups before it). The streaming join refuses it: it would need each key's history in its state.
"""

from __future__ import annotations

import numpy as np

from shedding.model import Workload
from shedding.online.bound import partner_ages
from shedding.timerange import RANGE_LIMIT

#: the value of ``group`` that asks for the key's history
HISTORY = "history"
#: the slices of a side's partner ages the first partner age is put in
SLICES = 16


def _nearest(key: np.ndarray, marked: np.ndarray, after: bool) -> np.ndarray:
    """Per event in (key, time, kind) order: the index of the nearest ``marked`` event with the same
    key at or after it (``after``) or at or before it, else -1."""
    n = len(key)
    idx = np.where(marked, np.arange(n), n if after else -1)
    near = np.minimum.accumulate(idx[::-1])[::-1] if after else np.maximum.accumulate(idx)
    found = (near >= 0) & (near < n)
    same = np.zeros(n, dtype=bool)
    same[found] = key[near[found]] == key[found]
    return np.where(same, near, -1)


def _side_groups(wl: Workload, side: int) -> np.ndarray:
    """The groups of the tuples of ``side``, in their order in the workload."""
    mine = np.flatnonzero(wl.side == side)
    first, last = partner_ages(wl, side)
    if first > last or len(mine) == 0:
        return np.zeros(len(mine), dtype=np.int64)
    other = np.flatnonzero(wl.side != side)
    mk, mt = wl.key[mine], wl.time[mine]
    # each tuple's first partner: the first other arrival of its key at or after mt + first
    key = np.concatenate([mk, wl.key[other]])
    time = np.concatenate([mt + first, wl.time[other]])
    kind = np.r_[np.zeros(len(mine), np.int8), np.ones(len(other), np.int8)]
    order = np.lexsort((kind, time, key))
    hit = _nearest(key[order], kind[order] == 1, after=True)
    partner = np.full(len(key), -1)
    partner[order] = np.where(hit >= 0, order[np.maximum(hit, 0)], -1)
    u = np.where(partner[:len(mine)] >= 0, time[np.maximum(partner[:len(mine)], 0)], mt + last + 1)
    met = u <= mt + last
    span, age = last - first + 1, np.where(met, u - mt - first, 0)
    if span < RANGE_LIMIT // SLICES:  # age * SLICES stays within 64 bits
        slot = age * SLICES // span
    else:
        slot = np.minimum((age / span * SLICES).astype(np.int64), SLICES - 1)
    bucket = np.where(met, 2 + slot, 1)
    known = np.where(met, u, mt + last + 1)
    # each tuple's group: the observation known last strictly before its arrival
    key = np.concatenate([mk, mk])
    time = np.concatenate([mt, known])
    kind = np.r_[np.zeros(len(mine), np.int8), np.ones(len(mine), np.int8)]
    arrival = np.concatenate([mt, mt])
    order = np.lexsort((arrival, kind, time, key))
    seen = _nearest(key[order], kind[order] == 1, after=False)
    group = np.zeros(len(key), dtype=np.int64)
    group[order] = np.where(seen >= 0, bucket[order[np.maximum(seen, 0)] - len(mine)], 0)
    return group[:len(mine)]


def history_groups(wl: Workload) -> np.ndarray:
    """The group of each tuple of ``wl`` by its key's history (the module's rule)."""
    groups = np.zeros(len(wl), dtype=np.int64)
    for side in (0, 1):
        groups[wl.side == side] = _side_groups(wl, side)
    return groups
