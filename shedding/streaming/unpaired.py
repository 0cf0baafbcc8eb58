"""The rows of an outer join for the tuples that leave the streaming join without a pair.

A tuple of a preserved side (R for ``left``, S for ``right``, both for ``full``) that leaves the
join operator (its range passed, it was shed, or the input ended) without having paired gets one
row: its key, time and payload, nulls for the other side, its event time and ``shed``. The join
is the fast-CPU integrated window join of Das, Gehrke, Riedewald (SIGMOD 2003, §2.1) over a time
range, shed by a policy of §3.3; ``shed`` tells a tuple that had no partner from one that may
have lost one to shedding: a tuple held through its range pairs with every partner that arrives
while it is held and with every partner held when it arrives, so a partner it missed is one shed
before it arrived (:meth:`Unpaired.leave`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from shedding.online.snapshot import Snapshot, SnapshotReader
from shedding.streaming.spec import KEY_VALUE, TIME_VALUE, JoinSpec

#: the output's event-time column: for a pair the later of its two times (the time the pair became
#: known), for an outer row the time its tuple was seen to leave; and the outer rows' flag: true
#: when the tuple, or a partner it missed, was shed; false when it had no partner
EVENT_TIME, SHED = "event_time", "shed"
#: microseconds per day: a date's original time is days, a step microseconds
_DAY = 86_400_000_000


def key_columns(spec: JoinSpec, table: pd.DataFrame, rows: np.ndarray) -> dict:
    """The output's key columns of ``rows`` of ``table``: the original keys when carried, else ``key``."""
    names = spec.key_names
    if names:
        return {name: table[f"{KEY_VALUE}{i}"].to_numpy()[rows] for i, name in enumerate(names)}
    return {"key": table["key"].to_numpy()[rows]}


class Unpaired:
    """An outer join's bookkeeping in one shard: per side, the latest step of a shed tuple of each
    key (operator keys; state, kept for one range's span), and the rows of the running
    micro-batch (scratch: empty between micro-batches)."""

    def __init__(self, spec: JoinSpec) -> None:
        self.spec = spec
        self.dropped: tuple[dict[int, int], dict[int, int]] = ({}, {})
        self.rows: list[pd.DataFrame] = []
        self.since_step = 0  # the first step this micro-batch may release: an outer row's earliest event time

    def begin(self, released_until: int | None) -> None:
        """A micro-batch starts; its steps start at ``released_until``."""
        self.rows, self.since_step = [], 0 if released_until is None else released_until

    def end(self, released_until: int | None, resident: pd.DataFrame) -> list[pd.DataFrame]:
        """The micro-batch's rows; forgets the shed tuples no tuple held (``resident``, columns
        ``side`` and ``time``) or still to come can pair with. The R tuples that can still leave
        are those held and those at or after the released frontier F, so a shed s(b) matters
        only while b >= min(F, the oldest held R) + lo; likewise a shed r(a) only while
        a >= min(F, the oldest held S) - hi."""
        rows, self.rows, self.since_step = self.rows, [], 0
        if released_until is not None:
            lo, hi = self.spec.bounds
            sides, times = resident["side"].to_numpy(), resident["time"].to_numpy()
            first = [min(released_until, int(times[sides == side].min(initial=released_until))) for side in (0, 1)]
            oldest = (first[1] - hi, first[0] + lo)  # of the shed R tuples worth keeping, of the shed S ones
            for seen, floor in zip(self.dropped, oldest):
                for k in [k for k, t in seen.items() if t < floor]:
                    del seen[k]
        return rows

    def leave(self, table: pd.DataFrame, pos: np.ndarray, sides: np.ndarray, left: np.ndarray,
              shed: np.ndarray) -> None:
        """Tuples at rows ``pos`` of ``table`` (columns ``time``, ``key``, ``matched``, ...) left,
        in this order, at steps ``left``, ``shed`` (before their range ended) or not: a row for
        each of a preserved side that never paired (tuples before the warmup get none).

        Each shed tuple's key and step is recorded; a tuple that leaves is marked when it was
        shed, or when the latest shed tuple of the other side with its key (among those that
        left before it) is not below its range. Those that left later did so after it (so they
        paired with it if they could), or arrived after its range."""
        times = table["time"].to_numpy()[pos]
        keys = table["key"].to_numpy()[pos]
        lone = ~table["matched"].to_numpy()[pos] & np.isin(sides, self.spec.preserved) & (times >= self.spec.warmup)
        marked = shed.copy()
        lo, hi = self.spec.bounds
        for i in np.flatnonzero(shed | lone):
            k, side, t = int(keys[i]), int(sides[i]), int(times[i])
            if shed[i]:
                seen = self.dropped[side]
                seen[k] = max(seen.get(k, t), t)
            else:  # r(a) meets s(b >= a + lo); s(b) meets r(a >= b - hi)
                other = self.dropped[1 - side].get(k)
                marked[i] = other is not None and other >= t + (lo if side == 0 else -hi)
        if lone.any():
            self.rows.append(self.frame(table, pos[lone], sides[lone], left[lone], marked[lone]))

    def frame(self, table: pd.DataFrame, rows: np.ndarray, sides: np.ndarray, left: np.ndarray,
              shed: np.ndarray) -> pd.DataFrame:
        """Rows of the unpaired tuples at ``rows`` of ``table``: their keys, time and payload,
        nulls for the other side's, ``shed``, and as event time the step they left at (not before
        the first step this micro-batch releases, so no row is older than an earlier batch's), in
        the original time's unit."""
        spec = self.spec
        out = key_columns(spec, table, rows)
        times = table[TIME_VALUE if spec.carry_time else "time"].to_numpy()[rows]
        for name, side in (("r_time", 0), ("s_time", 1)):
            out[name] = pd.array(np.where(sides == side, times, 0), dtype="Int64")
            out[name][sides != side] = pd.NA
        step = np.maximum(left, self.since_step) * spec.step
        out[EVENT_TIME] = step // _DAY if spec.days else step
        for col in spec.payload_columns:
            values = pd.Series(table[col].to_numpy()[rows], dtype=object)
            out[col] = values.where(sides == (0 if col.startswith("r_") else 1), None)
        out[SHED] = shed
        return pd.DataFrame(out)

    def snapshot(self) -> Snapshot:
        """The record of shed tuples as plain data (``r.key``, ``r.time``, ``s.key``, ``s.time``)."""
        snap: Snapshot = {}
        for side, seen in zip("rs", self.dropped):
            snap[f"{side}.key"] = np.fromiter(seen.keys(), dtype=np.int64, count=len(seen))
            snap[f"{side}.time"] = np.fromiter(seen.values(), dtype=np.int64, count=len(seen))
        return snap

    @classmethod
    def restore(cls, spec: JoinSpec, entries: SnapshotReader) -> Unpaired:
        """The bookkeeping :meth:`snapshot` took."""
        unpaired = cls(spec)
        for side, seen in zip("rs", unpaired.dropped):
            seen.update(zip(map(int, entries[f"{side}.key"]), map(int, entries[f"{side}.time"])))
        return unpaired
