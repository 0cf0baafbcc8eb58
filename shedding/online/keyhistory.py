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

:class:`KeyHistory` computes the groups of a run of arrivals at once and carries, to the next run,
what a later tuple may still need: per side, the tuples whose observation is not known yet and
each key's observation known last. The batch simulator gives it the whole stream as one run
(:func:`history_groups`); the streaming join gives it each micro-batch's released time steps and
keeps the carried arrays in its checkpoint, so both give every tuple the same group. Each tuple's
group uses only arrivals before its own time, so the policy stays online (a test scrambles the
stream after a time and checks the groups before it). The carried state holds one observation per
key seen on a side (as the online estimator holds a count per key) and the tuples of the last
``last`` steps.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from shedding.model import Workload
from shedding.online.bound import ages_within
from shedding.online.snapshot import Snapshot
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


#: the carried arrays of a side: the tuples not known yet (key, arrival), and per key the
#: observation known last (key, the time it became known, the arrival of its tuple, its group)
_PENDING, _SEEN = ("key", "arrival"), ("key", "known", "arrival", "group")
#: an odd multiplier (2^64 over the golden ratio): a payload group's values stay apart once mixed
_ODD = np.uint64(0x9E3779B97F4A7C15)


def _observed(key: np.ndarray, time: np.ndarray, first: int, last: int, other_key: np.ndarray,
              other_time: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per tuple (``key``, arrival ``time``): the group its observation gives (1, or 2 + slice) and
    the time it becomes known, from the other side's arrivals ``other_*`` after the tuple's
    earlier runs (a first partner at u is known at u, none at ``time + last + 1``)."""
    n = len(key)
    keys = np.concatenate([key, other_key])
    times = np.concatenate([time + first, other_time])
    kind = np.r_[np.zeros(n, np.int8), np.ones(len(other_key), np.int8)]
    order = np.lexsort((kind, times, keys))
    hit = _nearest(keys[order], kind[order] == 1, after=True)
    partner = np.full(len(keys), -1)
    partner[order] = np.where(hit >= 0, order[np.maximum(hit, 0)], -1)
    u = np.where(partner[:n] >= 0, times[np.maximum(partner[:n], 0)], time + last + 1)
    met = u <= time + last
    span, age = last - first + 1, np.where(met, u - time - first, 0)
    if span < RANGE_LIMIT // SLICES:  # age * SLICES stays within 64 bits
        slot = age * SLICES // span
    else:
        slot = np.minimum((age / span * SLICES).astype(np.int64), SLICES - 1)
    return np.where(met, 2 + slot, 1), np.where(met, u, time + last + 1)


def _latest(key: np.ndarray, known: np.ndarray, arrival: np.ndarray, before: np.ndarray, time: np.ndarray
            ) -> np.ndarray:
    """Per arrival (``before``, at ``time``): the index of the observation (``key``, ``known``,
    ``arrival``) of its key known last strictly before ``time`` (at equal times, the later
    arrival's), else -1."""
    n = len(before)
    keys = np.concatenate([before, key])
    times = np.concatenate([time, known])
    kind = np.r_[np.zeros(n, np.int8), np.ones(len(key), np.int8)]
    arrivals = np.concatenate([time, arrival])
    order = np.lexsort((arrivals, kind, times, keys))
    seen = _nearest(keys[order], kind[order] == 1, after=False)
    found = np.full(len(keys), -1)
    found[order] = np.where(seen >= 0, order[np.maximum(seen, 0)] - n, -1)
    return found[:n]


class KeyHistory:
    """The key's history of both sides, one run of arrivals at a time (the module's rule).

    ``bounds`` is the join's range (lo, hi). :meth:`groups` takes a run of whole time steps, each
    after every step of the earlier runs, and returns its tuples' groups; :meth:`snapshot` and
    :meth:`restore` carry the state between runs as plain data.
    """

    def __init__(self, bounds: tuple[int, int]) -> None:
        self.ages = (ages_within(bounds, 0), ages_within(bounds, 1))
        self.pending = [tuple(np.zeros(0, np.int64) for _ in _PENDING) for _ in (0, 1)]
        self.seen = [tuple(np.zeros(0, np.int64) for _ in _SEEN) for _ in (0, 1)]

    def groups(self, side: np.ndarray, time: np.ndarray, key: np.ndarray) -> np.ndarray:
        """The group of each arrival of the run (``side``, ``time``, ``key``), updating the state."""
        groups = np.zeros(len(side), dtype=np.int64)
        if len(side) == 0:
            return groups
        horizon = int(time.max())
        for s in (0, 1):
            mine, other = side == s, side != s
            groups[mine] = self._side(s, key[mine], time[mine], key[other], time[other], horizon)
        return groups

    def _side(self, s: int, key: np.ndarray, time: np.ndarray, other_key: np.ndarray, other_time: np.ndarray,
              horizon: int) -> np.ndarray:
        first, last = self.ages[s]
        if first > last:
            return np.zeros(len(key), dtype=np.int64)
        # the tuples not known yet, then the run's own: their observations from the run's other side
        pend_key, pend_time = self.pending[s]
        keys, times = np.concatenate([pend_key, key]), np.concatenate([pend_time, time])
        group, known = _observed(keys, times, first, last, other_key, other_time)
        # the observations a tuple may take: each key's carried one, then those made in the run
        seen_key, seen_known, seen_arrival, seen_group = self.seen[s]
        obs_key, obs_known = np.concatenate([seen_key, keys]), np.concatenate([seen_known, known])
        obs_arrival, obs_group = np.concatenate([seen_arrival, times]), np.concatenate([seen_group, group])
        found = _latest(obs_key, obs_known, obs_arrival, key, time)
        out = np.where(found >= 0, obs_group[np.maximum(found, 0)], 0)
        # carried to the next run: the tuples not known by the horizon (no partner came, and one
        # may still come, or its absence is known only after the horizon), so that a later tuple
        # at horizon + 1 does not take an observation known then; and each key's observation
        # known last
        open_ = known > horizon
        self.pending[s] = (keys[open_], times[open_])
        done = np.flatnonzero(np.r_[np.ones(len(seen_key), bool), ~open_])
        done = done[np.lexsort((obs_arrival[done], obs_known[done], obs_key[done]))]
        done = done[np.r_[obs_key[done][1:] != obs_key[done][:-1], True]] if len(done) else done
        self.seen[s] = tuple(a[done] for a in (obs_key, obs_known, obs_arrival, obs_group))
        return out

    def snapshot(self) -> Snapshot:
        """The carried state as plain data (entries ``r.pending.key``, ``s.seen.known``, ...)."""
        snap: Snapshot = {}
        for s, name in enumerate("rs"):
            snap |= {f"{name}.pending.{f}": a for f, a in zip(_PENDING, self.pending[s])}
            snap |= {f"{name}.seen.{f}": a for f, a in zip(_SEEN, self.seen[s])}
        return snap

    @classmethod
    def restore(cls, bounds: tuple[int, int], entries: Mapping[str, np.ndarray]) -> KeyHistory:
        """The history :meth:`snapshot` took, under the same ``bounds``."""
        history = cls(bounds)
        for s, name in enumerate("rs"):
            history.pending[s] = tuple(np.asarray(entries[f"{name}.pending.{f}"], np.int64) for f in _PENDING)
            history.seen[s] = tuple(np.asarray(entries[f"{name}.seen.{f}"], np.int64) for f in _SEEN)
        return history


def with_history(payload: np.ndarray | None, history: np.ndarray) -> np.ndarray:
    """One group value per combination of a payload group's 64-bit value (None: no payload group)
    and the history's group, as the streaming join feeds them (the values are hashes there, and
    which value a group gets changes no decision: :mod:`~shedding.online.groups`)."""
    if payload is None:
        return history
    mixed = payload.astype(np.int64).view(np.uint64) * _ODD + history.astype(np.uint64)
    return mixed.view(np.int64)


def history_groups(wl: Workload) -> np.ndarray:
    """The group of each tuple of ``wl`` by its key's history (the module's rule): the whole
    workload as one run of :class:`KeyHistory`."""
    return KeyHistory(wl.bounds).groups(wl.side, wl.time, wl.key)
