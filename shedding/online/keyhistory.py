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
keeps the carried arrays in its checkpoint, so both give every tuple the same group. A run is one
compiled pass per side in time order (:func:`_side_pass`: each key's waiting tuples in a queue,
each tuple's observation made once), after the keys of both sides are numbered once: 0.17-0.20 us
per tuple on the flights of January, where the sorts of a numpy formulation took 0.5-0.65. Each tuple's
group uses only arrivals before its own time, so the policy stays online (a test scrambles the
stream after a time and checks the groups before it). The carried state holds one observation per
key seen on a side (as the online estimator holds a count per key) and the tuples of the last
``last`` steps.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from shedding.jit import njit
from shedding.model import Workload
from shedding.online.bound import ages_within
from shedding.online.snapshot import Snapshot
from shedding.timerange import RANGE_LIMIT

#: the value of ``group`` that asks for the key's history
HISTORY = "history"
#: the slices of a side's partner ages the first partner age is put in
SLICES = 16
#: the carried arrays of a side: the tuples not known yet (key, arrival), and per key the
#: observation known last (key, the time it became known, the arrival of its tuple, its group)
_PENDING, _SEEN = ("key", "arrival"), ("key", "known", "arrival", "group")
#: an odd multiplier (2^64 over the golden ratio): a payload group's values stay apart once mixed
_ODD = np.uint64(0x9E3779B97F4A7C15)


@njit(_nrt=False)
def _resolve(i, known, group, times, keys, done, seen_known, seen_arrival, seen_group):
    """Tuple ``i``'s observation (known at ``known``, group ``group``) made: its key's observation
    known last becomes it if it is later (by known time, then arrival)."""
    done[i] = True
    k = keys[i]
    if seen_group[k] < 0 or known > seen_known[k] or (known == seen_known[k] and times[i] > seen_arrival[k]):
        seen_known[k], seen_arrival[k], seen_group[k] = known, times[i], group


@njit(_nrt=False)
def _wait(i, keys, head, tail, nxt):
    """Tuple ``i`` joins the end of its key's queue of waiting tuples (``head``/``tail`` per key,
    ``nxt`` per tuple, -1 for none)."""
    k = keys[i]
    if head[k] < 0:
        head[k] = i
    else:
        nxt[tail[k]] = i
    tail[k] = i


@njit(_nrt=False)
def _side_pass(times, keys, carried, other_time, other_key, first, last, slices, horizon, out, done, head, tail,
               nxt, seen_known, seen_arrival, seen_group):
    """One side's groups over a run, in time order (the module's rule): ``times``/``keys`` the
    side's tuples not known yet (the first ``carried``, from earlier runs) then the run's own, in
    arrival order; ``other_*`` the other side's arrivals of the run; keys are dense ids, and
    ``seen_*`` each key's observation known last (group -1: none). Writes the run's own groups to
    ``out`` and marks in ``done`` the tuples whose observation is known by ``horizon``.

    Per step t: the observations known before t are made (a tuple whose last partner age has
    passed: no partner), the side's tuples of t take their key's latest, then each arrival of
    the other side makes the observation of every waiting tuple of its key it is a first partner
    of (kept per key in arrival order: those past their ages leave first, then those whose ages
    have begun); the side's tuples of t then wait."""
    n, m = times.shape[0], other_time.shape[0]
    span = last - first + 1
    wide = span >= RANGE_LIMIT // slices  # age * slices would leave 64 bits
    for i in range(carried):  # the carried tuples wait, in arrival order
        _wait(i, keys, head, tail, nxt)
    own, j, d = carried, 0, 0
    while own < n or j < m:
        t = times[own] if own < n else other_time[j]
        if j < m and other_time[j] < t:
            t = other_time[j]
        while d < own and times[d] + last + 1 < t:  # no partner, known before t
            if not done[d]:
                _resolve(d, times[d] + last + 1, 1, times, keys, done, seen_known, seen_arrival, seen_group)
            d += 1
        start = own
        while own < n and times[own] == t:
            out[own - carried] = max(seen_group[keys[own]], 0)
            own += 1
        while j < m and other_time[j] == t:
            k = other_key[j]
            i = head[k]
            while i >= 0 and (done[i] or times[i] + last < t):
                if not done[i]:
                    _resolve(i, times[i] + last + 1, 1, times, keys, done, seen_known, seen_arrival, seen_group)
                i = nxt[i]
            while i >= 0 and times[i] + first <= t:
                age = t - times[i] - first
                slot = min(int(age / span * slices), slices - 1) if wide else age * slices // span
                _resolve(i, t, 2 + slot, times, keys, done, seen_known, seen_arrival, seen_group)
                i = nxt[i]
            head[k] = i
            j += 1
        for i in range(start, own):  # the side's tuples of t wait for a partner
            _wait(i, keys, head, tail, nxt)
    for i in range(d, n):  # no partner, known by the horizon
        if not done[i] and times[i] + last + 1 <= horizon:
            _resolve(i, times[i] + last + 1, 1, times, keys, done, seen_known, seen_arrival, seen_group)


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
        # every key of the run and of the carried state numbered once: dense ids for the passes
        carried = [a for s in (0, 1) for a in (self.pending[s][0], self.seen[s][0])]
        uniq, ids = np.unique(np.concatenate([key, *carried]), return_inverse=True)
        parts = np.split(ids.astype(np.int64), np.cumsum([len(key), *map(len, carried[:-1])]))
        horizon, time = int(time.max()), time.astype(np.int64)
        for s in (0, 1):
            mine, other = side == s, side != s
            groups[mine] = self._side(s, uniq, parts[1 + 2 * s], parts[0][mine], time[mine], parts[0][other],
                                      time[other], parts[2 + 2 * s], horizon)
        return groups

    def _side(self, s: int, uniq: np.ndarray, pend_ids: np.ndarray, ids: np.ndarray, time: np.ndarray,
              other_ids: np.ndarray, other_time: np.ndarray, seen_ids: np.ndarray, horizon: int) -> np.ndarray:
        """Side ``s``'s groups of the run (its arrivals' key ids and times), the other side's
        arrivals, the carried tuples' and observations' key ids (``uniq`` the keys by id)."""
        first, last = self.ages[s]
        if first > last:
            return np.zeros(len(ids), dtype=np.int64)
        pend_key, pend_time = self.pending[s]
        _, seen_known, seen_arrival, seen_group = self.seen[s]
        k = len(uniq)
        known, arrival, group = np.zeros(k, np.int64), np.zeros(k, np.int64), np.full(k, -1, np.int64)
        known[seen_ids], arrival[seen_ids], group[seen_ids] = seen_known, seen_arrival, seen_group
        own, times = np.concatenate([pend_ids, ids]), np.concatenate([pend_time, time])
        out, done = np.zeros(len(ids), np.int64), np.zeros(len(own), np.bool_)
        _side_pass(times, own, len(pend_key), other_time, other_ids, first, last, SLICES, horizon, out, done,
                   np.full(k, -1, np.int64), np.full(k, -1, np.int64), np.full(len(own), -1, np.int64), known,
                   arrival, group)
        self.pending[s] = (uniq[own[~done]], times[~done])
        has = np.flatnonzero(group >= 0)
        self.seen[s] = (uniq[has], known[has], arrival[has], group[has])
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
