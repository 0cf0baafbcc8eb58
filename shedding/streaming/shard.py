"""One shard of the semantic window join, as a small object with a per-micro-batch method.

A micro-batch of a streaming query does not end on a time step: it may hold R up to time 900 and S
only up to 850. The fast-CPU integrated join of Das, Gehrke, Riedewald (SIGMOD 2003, §2.1) needs
whole time steps in time order, so :class:`ShardJoin` holds arrivals back until both inputs have
*passed* their time step (the frontier is the smaller of the two inputs' latest times; a step is
released once it is below it), then feeds them, in a canonical order, to the one
:class:`~shedding.online.engine.JoinOperator` that the simulator also drives. A tuple below the
frontier already released is *late*: counted and dropped (or refused in strict mode), never joined
out of order. At the end of the input every held step is released.

Lateness, idle sources and a cap on held-back tuples (all off by default):

* ``lateness`` L: a step is released only once both inputs are more than L steps past it, so a
  tuple up to L steps behind the frontier still joins, in order; the held-back tuples are those of
  the last L steps (plus the steps one input is ahead of the other);
* ``idle_timeout_ms``: an input that has sent this shard no tuple for that long (in the processing
  time of the micro-batches, which Spark keeps in its offset log, so a replayed batch sees the
  same time) no longer holds the frontier back: the other input's steps are released as they
  pass. Held-back tuples are then at most those that arrived within the timeout (plus L steps);
  tuples the idle input sends later, below the released frontier, are late;
* ``max_held`` H: at most H tuples are held back over all shards (each shard its share): when
  more would be, the oldest held steps are joined at once, the frontier moving past them, and
  tuples of those steps that arrive later are late (with ``strict`` the query stops instead).
  The state is then at most M tuples in the join plus H held back.

Within a time step tuples are ordered by side (R first), key, original time, then payload, so the
result does not depend on file or micro-batch boundaries, nor on the order Spark delivers rows in.
Keys other than integers reach the shard as a 64-bit hash (the operator's key) with the original
values carried along; a pair is output only if its original keys are equal, so two keys never
join even if their hashes collide (they would then share one class of the estimator).

Between micro-batches the shard is one binary value (:meth:`ShardJoin.to_bytes`): a compressed
Arrow IPC stream of plain data (:mod:`~shedding.streaming.state`, never a pickle) holding the format
and its version (:data:`STATE_FORMAT`, :data:`FORMAT_VERSION`), the state layout
(:data:`STATE_LAYOUT`), the :class:`JoinSpec` as JSON text, the join operator's snapshot
(:meth:`~shedding.online.engine.JoinOperator.snapshot`, entries ``op.*``), the shared budget's
census, the frontier's times, and the held-back and resident tuples as Arrow IPC streams (their
columns in the Arrow types they arrived in). :meth:`ShardJoin.from_bytes` never unpickles: a value
in another format, such as the pickle that layouts 1 and 2 stored, is refused.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import fields
from typing import Any, cast

import numpy as np
import pandas as pd

from shedding.errors import ShedError
from shedding.model import Memory, default_split
from shedding.online.engine import JoinOperator
from shedding.online.estimators import OnlineEstimator, StaticEstimator
from shedding.online.groups import is_auto_history
from shedding.online.keyhistory import KeyHistory, with_history
from shedding.online.kinds import RAND as RAND_KIND
from shedding.online.params import OperatorParams
from shedding.online.policies import POLICIES
from shedding.online.snapshot import Snapshot, SnapshotReader
from shedding.online.tuning import HazardTuning
from shedding.streaming.budget import Census, divide
from shedding.streaming.partition import shard_budgets
from shedding.streaming.frames import append_rows, canonical, positions
from shedding.streaming.spec import GROUP_VALUE, HOWS, KEY_VALUE, SHEDDING, TIME_VALUE, JoinSpec
from shedding.streaming.state import NEW_CHECKPOINT, bytes_table, from_state_bytes, table_bytes, to_state_bytes
from shedding.streaming.unpaired import EVENT_TIME, SHED, Unpaired, key_columns

#: re-exported: the streaming modules, the command line and the tests take them from here
__all__ = ["BAD", "END", "EVENT_TIME", "GROUP_VALUE", "HOWS", "KEY_VALUE", "METRICS", "R", "S", "SHED", "SHEDDING",
           "STATE_LAYOUT", "TIME_VALUE", "JoinSpec", "ShardJoin", "check_layout", "new_operator"]

#: side codes of the unioned input: R, S, the end-of-input marker and a row that failed to parse
R, S, END, BAD = 0, 1, 2, 3
_UNBOUNDED = 2**62  # "none": memory never binds (the operator's pool grows with the data)

#: the layout of a shard's state (:meth:`ShardJoin.to_bytes`): the join operator's arrays and what
#: their columns mean. A change to them must raise it, so that a checkpoint written before is
#: refused on restart (by ``shed stream-join`` before the query starts, and by
#: :meth:`ShardJoin.from_bytes`) instead of being read with the new meaning;
#: tests/streaming/test_state_layout.py fingerprints the snapshot's entries and the arrays' fields
#: to catch a change made without it. State pickled before the layout was recorded is layout 1;
#: layout 2 gave HAZARD its wheel of falling priorities (shedding.online.hazardmemory) instead of age
#: segments; layout 3 is the plain-data snapshot (an Arrow IPC stream, module docstring) instead of a pickle;
#: layout 4 adds HAZARD's guard (shedding.online.guard: its virtual memories and verdicts) and forgetting,
#: and the time range to the operator's scalars (P_LO, P_HI, SC_RTAIL: shedding.online.layout);
#: layout 5 adds HAZARD's fit that forgets, chosen by its guard (shedding.online.forgetting: the
#: decayed statistics, the counts at the last refit, both candidates' fits and the choice);
#: layout 6 adds HAZARD's candidate groupings (shedding.online.autogroup: their curves, running
#: scores, picks and counts); layout 7 keeps HAZARD's priorities a row of age buckets at a time and
#: lists the rows filled since the last refit after the learner's counters (hazardindex, ``H_ROWS``),
#: and drops the memo of the buckets where they fall; layout 8 adds three rows per state to the memo, after its bins of beta: the scratch of a
#: row's computation (hazardindex.index_row); layout 9 adds ``xc`` (exposure) and ``ab`` (guard.bucket_table);
#: layout 10 adds the fits' schedule with groups (``H_NEXT_FIT``: agehooks.fit_due); layout 11 the key's
#: history (``history.*``: shedding.online.keyhistory.KeyHistory.snapshot).
STATE_LAYOUT = 11
#: the entry naming what a shard's state is, and the version of its entries
STATE_FORMAT, FORMAT_VERSION = "shedding.streaming.shard", 1

#: ``unpaired`` counts an outer join's rows for tuples without a pair, ``unpaired_shed`` those of
#: them marked ``shed`` (docs/streaming.md, "Outer joins"); both stay 0 for an inner join
METRICS = ("arrivals", "outputs", "unpaired", "unpaired_shed", "shed", "late", "bad", "held", "memory_r", "memory_s",
           "budget_r", "budget_s", "released_until", "ended")


def new_operator(spec: JoinSpec, shard: int, table: StaticEstimator | None = None) -> JoinOperator:
    """The join operator of ``shard``: its share of M, its seed, and its estimator (the spec's
    values were checked when it was built, and are not checked again)."""
    m, m_r, m_s = shard_budgets(spec.limits, None, spec.shards)[shard]
    if spec.shedding == "none":
        return JoinOperator.of(OperatorParams(window=spec.window, memory=Memory(_UNBOUNDED, *default_split(_UNBOUNDED)),
                                              policy=POLICIES["probv"], warmup=spec.warmup,
                                              share_every=_UNBOUNDED, range=spec.range), pairs=True, record=True)
    if spec.estimator == "static":
        if table is None:
            raise ShedError("the static estimator needs a frequency table (key, count_r, count_s)")
        estimator: StaticEstimator | OnlineEstimator = table
    else:
        estimator = OnlineEstimator(spec.decay)
    params = OperatorParams(window=spec.window, memory=Memory(m, m_r, m_s), policy=POLICIES[spec.shedding],
                            warmup=spec.warmup, seed=spec.seed + shard, share_every=_UNBOUNDED,
                            tuning=HazardTuning.parse(spec.tuning) if spec.tuning else HazardTuning(),
                            range=spec.range)
    return JoinOperator.of(params, estimator=estimator, pairs=True, record=True)


def _empty(columns: list[str]) -> pd.DataFrame:
    def dtype(c: str) -> str:
        return "int64" if c in ("side", "time", "key", "seq", TIME_VALUE, GROUP_VALUE) else "bool" if c == "matched" else "object"

    return pd.DataFrame({c: pd.Series(dtype=dtype(c)) for c in columns})


_NO_PAIRS = np.zeros((0, 2), dtype=np.int64)


class ShardJoin:
    """The window join of one shard: hold back, release whole steps, join, shed, report.

    :meth:`push` takes one micro-batch (columns ``side``, ``time``, ``key``, the spec's carried
    and payload columns; ``side`` is :data:`R`, :data:`S`, :data:`END` or :data:`BAD`) and returns
    the pairs it produced (the key columns, ``r_time``, ``s_time``, payloads) and the batch's
    metrics.
    """

    def __init__(self, spec: JoinSpec, shard: int = 0, table: StaticEstimator | None = None) -> None:
        self._setup(spec, shard)
        self.op = new_operator(spec, shard, table)
        self.budget = shard_budgets(spec.limits, None, spec.shards)[shard]
        self.census = Census() if spec.shares_budget else None
        self.history = KeyHistory(spec.bounds) if spec.by_history else None
        self._held = _empty(self._columns)
        self._resident = _empty(["seq", "time", "key", *self._carried, *self._payload, *self._extra])
        self._latest: list[int | None] = [None, None]  # latest time seen from R and from S
        self._heard: list[int | None] = [None, None]  # processing time of the last tuple from R, from S
        self._since: int | None = None  # processing time of the first micro-batch
        self.released_until: int | None = None  # every step below it has been joined
        self.ended = False

    def _setup(self, spec: JoinSpec, shard: int) -> None:
        """The parameters, and the columns they give the held-back and resident tuples."""
        self.spec = spec
        self.shard = shard
        self.layout = STATE_LAYOUT
        self._payload = spec.payload_columns
        self._carried = spec.carried_columns
        self._columns = ["side", "time", "key", *self._carried, *spec.group_columns, *self._payload]
        self._outer = bool(spec.preserved)
        # the resident tuples' side, when their ranges differ by side or an outer row needs it, and
        # whether each has paired, in an outer join (a checkpoint of the symmetric inner join has neither)
        self._extra = ["side"] * (self._outer or spec.range is not None) + ["matched"] * self._outer
        self.unpaired = Unpaired(spec) if self._outer else None  # an outer join's rows and record of shed keys

    # ------------------------------------------------------------------ per micro-batch

    def push(self, batch: pd.DataFrame, census: Census | None = None, now: int | None = None
             ) -> tuple[pd.DataFrame, dict]:
        """Process one micro-batch of this shard's rows (any order). ``census`` is the batch's
        arrivals per key over all shards (:mod:`~shedding.streaming.budget`): with a shared
        budget the shard re-divides M by it before joining. ``now`` is the batch's processing
        time in milliseconds (for ``idle_timeout_ms``)."""
        side = batch["side"].to_numpy()
        data = batch[(side == R) | (side == S)]
        end = bool(np.any(side == END))
        metrics = dict.fromkeys(METRICS, 0) | {"bad": int(np.count_nonzero(side == BAD))}
        if self.unpaired is not None:
            self.unpaired.begin(self.released_until)
        shed = self._rebudget(census) if census is not None and self.census is not None else 0
        late = np.ones(len(data), dtype=bool) if self.ended else (
            np.zeros(len(data), dtype=bool) if self.released_until is None
            else data["time"].to_numpy() < self.released_until)
        if late.any() and self.spec.strict:
            first = data[late].iloc[0]
            raise ShedError(
                f"late tuple: {'RS'[int(first['side'])]} time {int(first['time'])} arrived after every step "
                f"below {self.released_until} was joined; order the input by time or drop strict mode")
        metrics["late"] = int(late.sum())
        fresh = data[~late]
        metrics["arrivals"] = len(fresh)
        if now is not None and self._since is None:
            self._since = now
        for s in (R, S):
            times = fresh["time"].to_numpy()[fresh["side"].to_numpy() == s]
            if len(times):
                latest = self._latest[s]
                self._latest[s] = int(times.max()) if latest is None else max(latest, int(times.max()))
                self._heard[s] = now
        held = append_rows(self._held, fresh.reindex(columns=self._columns))
        frontier = None if end else self._frontier(now)
        if end:
            ready = np.ones(len(held), dtype=bool)
        elif frontier is None:
            ready = np.zeros(len(held), dtype=bool)
        else:
            ready = held["time"].to_numpy() < frontier
            self.released_until = frontier if self.released_until is None else max(self.released_until, frontier)
        if not end:
            ready = self._cap_held(held["time"].to_numpy(), ready)
        pairs, joined_shed = self._join(held[ready])
        shed += joined_shed
        self._held = held[~ready].reset_index(drop=True)
        metrics["memory_r"], metrics["memory_s"] = self.op.in_memory  # before the end empties it
        metrics["budget_r"], metrics["budget_s"] = self.budget[1:]
        if end:
            shed += self._leave(self.op.finish())
            self._resident = self._resident.iloc[0:0]
            self.ended = True
            metrics["ended"] = 1
            if len(held):
                top = int(held["time"].max()) + 1
                self.released_until = top if self.released_until is None else max(self.released_until, top)
        metrics["outputs"] = len(pairs)
        unpaired = [] if self.unpaired is None else self.unpaired.end(self.released_until, self._resident)
        if unpaired:
            metrics["unpaired"] = sum(len(rows) for rows in unpaired)
            metrics["unpaired_shed"] = sum(int(rows[SHED].sum()) for rows in unpaired)
            pairs = pd.concat([pairs, *unpaired], ignore_index=True)
        metrics["shed"] = shed
        metrics["held"] = len(self._held)
        metrics["released_until"] = -1 if self.released_until is None else self.released_until
        return pairs, metrics

    @property
    def held_cap(self) -> int | None:
        """This shard's share of ``max_held`` (the shards' shares add up to it), or None."""
        cap, shards = self.spec.max_held, self.spec.shards
        return None if cap is None else cap // shards + (self.shard < cap % shards)

    def _cap_held(self, times: np.ndarray, ready: np.ndarray) -> np.ndarray:
        """``ready`` (over the held rows of ``times``) widened to whole steps from the oldest held
        one on, until at most :attr:`held_cap` tuples stay held: those steps are joined early, and
        later tuples of them are late. With ``strict`` a cap that binds is refused instead."""
        cap = self.held_cap
        waiting = times[~ready]
        if cap is None or len(waiting) <= cap:
            return ready
        if self.spec.strict:
            raise ShedError(f"{len(waiting)} tuples are held back in shard {self.shard}, more than its share {cap} of "
                            "max_held; raise max_held, lower the allowed lateness or the idle timeout, or drop strict "
                            "mode to join the oldest held steps early")
        k = len(waiting) - cap  # at least this many leave: the steps up to the k-th oldest tuple's
        until = int(np.partition(waiting, k - 1)[k - 1]) + 1
        self.released_until = until if self.released_until is None else max(self.released_until, until)
        return times < self.released_until

    def _frontier(self, now: int | None) -> int | None:
        """The step below which every step is released now: the inputs' latest times, less the
        lateness, where an input silent for ``idle_timeout_ms`` does not count (unless both are)."""
        timeout = self.spec.idle_timeout_ms
        sides = [R, S]
        if timeout is not None and now is not None:
            since = cast(int, self._since)  # set by the first micro-batch, before any frontier
            awake = [s for s in sides if now - (heard if (heard := self._heard[s]) is not None else since) < timeout]
            sides = awake or sides
        latest = [t for s in sides if (t := self._latest[s]) is not None]
        if len(latest) < len(sides):
            return None
        return min(latest) - self.spec.lateness

    def _rebudget(self, census: Census) -> int:
        """Add the batch's census and take this shard's share of M (:func:`~shedding.streaming.budget.divide`);
        the tuples over a lowered budget leave memory now. Returns how many were shed so."""
        assert self.census is not None, "a shard that shares the budget keeps a census (spec.shares_budget)"
        self.census.merge(census)
        spec = self.spec
        policy = POLICIES[spec.shedding]
        limits = spec.limits
        budget = divide(self.census, spec.window, (limits.total, limits.r, limits.s), spec.shards,
                        policy.variable, by_worth=policy.kind != RAND_KIND)[self.shard]
        if budget == self.budget:
            return 0
        self.budget = budget
        gone = self.op.set_memory(Memory(*budget))
        shed = self._leave(gone)
        self._resident = self._resident[~np.isin(self._resident["seq"].to_numpy(), gone[:, 0])].reset_index(drop=True)
        return shed

    def _join(self, ready: pd.DataFrame) -> tuple[pd.DataFrame, int]:
        """Feed the released steps to the operator; the pairs with their payloads, and the shed count
        (the outer rows of the tuples that left go to :meth:`_leave`)."""
        if not len(ready):
            return self._pairs_frame(self._resident, *self._pair_rows(self._resident, _NO_PAIRS, self.op.arrivals)), 0
        ready = canonical(ready, ["time", "side", "key", *([TIME_VALUE] if self.spec.carry_time else [])],
                          self._columns)
        side, time, key = (ready[c].to_numpy() for c in ("side", "time", "key"))
        group = ready[GROUP_VALUE].to_numpy(np.int64) if self.spec.payload_group else None
        if self.history is not None:  # the key's history: alone, with the payload group, or as auto-history's candidate
            hist = self.history.groups(side, time, key)
            group = hist[:, None] if is_auto_history(self.spec.group) else with_history(group, hist)
        fed = self.op.feed(side, time, key, group)
        first = self.op.arrivals - len(ready)
        arrived = ready.assign(seq=np.arange(first, first + len(ready)))  # with its side: kept if _extra has it
        if self._outer:
            arrived = arrived.assign(matched=False)
        table = append_rows(self._resident, arrived[self._resident.columns])
        r, s = self._pair_rows(table, fed.pairs, first)
        if self._outer and len(r):
            matched = table["matched"].to_numpy().copy()
            matched[r] = matched[s] = True
            table = table.assign(matched=matched)
        pairs = self._pairs_frame(table, r, s)
        gone = fed.departures[:, 0]
        shed = self._leave(fed.departures, table, first)
        self._resident = table[~np.isin(table["seq"].to_numpy(), gone)].reset_index(drop=True)
        return pairs, shed

    def _ends(self, side: np.ndarray, time: np.ndarray) -> np.ndarray:
        """The last step at which tuples of ``side`` and ``time`` (steps) can meet a later arrival:
        r(a) until a + hi, s(b) until b - lo (both a + w - 1 in the symmetric window)."""
        lo, hi = self.spec.bounds
        return time + np.where(side == S, -lo, hi)

    def _leave(self, departures: np.ndarray, table: pd.DataFrame | None = None, first: int | None = None) -> int:
        """Tuples that left the operator (rows seq, left, admitted): the number that were shed
        (left before their range ended, or never admitted while it had not), and, in an outer
        join, a row for each of the preserved sides' that never paired (:meth:`Unpaired.leave`).
        ``table`` (the resident tuples by default) is consecutive by seq from ``first`` on, as in
        :meth:`_pair_rows`."""
        if not len(departures):
            return 0
        table = self._resident if table is None else table
        pos = positions(table["seq"].to_numpy(), self.op.arrivals if first is None else first, departures[:, 0])
        times = table["time"].to_numpy()[pos]
        # the symmetric window's end is the same for both sides, which its resident tuples do not carry
        sides = table["side"].to_numpy()[pos] if "side" in self._extra else np.zeros(len(pos), dtype=np.int64)
        shed = departures[:, 1] < self._ends(sides, times)
        if self.unpaired is not None:
            self.unpaired.leave(table, pos, sides, departures[:, 1], shed)
        return int(np.count_nonzero(shed))

    def _pair_rows(self, table: pd.DataFrame, pairs: np.ndarray, first: int) -> tuple[np.ndarray, np.ndarray]:
        """The rows of ``table`` of the R and S member of each (r seq, s seq) pair. ``table`` is
        sorted by seq, and its rows from seq ``first`` on (this batch's arrivals) are
        consecutive. With original keys carried, a pair whose original keys differ (a hash
        collision) is dropped."""
        seq = table["seq"].to_numpy()
        r, s = positions(seq, first, pairs[:, 0]), positions(seq, first, pairs[:, 1])
        if self.spec.key_names:
            keys = [table[f"{KEY_VALUE}{i}"].to_numpy() for i in range(len(self.spec.key_names))]
            equal = np.logical_and.reduce([k[r] == k[s] for k in keys])
            r, s = r[equal], s[equal]
        return r, s

    def _pairs_frame(self, table: pd.DataFrame, r: np.ndarray, s: np.ndarray) -> pd.DataFrame:
        """Rows (keys, r_time, s_time, event time, r payload, s payload) of the pairs of rows ``r``
        and ``s`` of ``table`` (and ``shed``, false, in an outer join)."""
        out = key_columns(self.spec, table, r)
        times = table[TIME_VALUE if self.spec.carry_time else "time"].to_numpy()
        out |= {"r_time": times[r], "s_time": times[s], EVENT_TIME: np.maximum(times[r], times[s])}
        for col in self._payload:
            out[col] = table[col].to_numpy()[r if col.startswith("r_") else s]
        if self._outer:
            out[SHED] = np.zeros(len(r), dtype=bool)
        return pd.DataFrame(out)

    # ------------------------------------------------------------------ state

    def snapshot(self) -> Snapshot:
        """The whole shard as plain data (module docstring): what :meth:`to_bytes` stores. An
        entry whose value is None is left out."""
        optional = {"latest.r": self._latest[R], "latest.s": self._latest[S], "heard.r": self._heard[R],
                    "heard.s": self._heard[S], "since": self._since, "released_until": self.released_until}
        if self.census is not None:
            optional |= {f"census.{f.name}": getattr(self.census, f.name) for f in fields(Census)}
        snap: Snapshot = {"format": STATE_FORMAT, "version": FORMAT_VERSION, "layout": self.layout,
                          "spec": json.dumps(self.spec.stored()), "shard": self.shard, "ended": self.ended,
                          "budget": np.array(self.budget, dtype=np.int64),
                          "held": table_bytes(self._held, "held-back"),
                          "resident": table_bytes(self._resident, "resident")}
        snap |= {name: value for name, value in optional.items() if value is not None}
        if self.unpaired is not None:
            snap |= {f"dropped.{name}": value for name, value in self.unpaired.snapshot().items()}
        if self.history is not None:
            snap |= {f"history.{name}": value for name, value in self.history.snapshot().items()}
        return snap | {f"op.{name}": value for name, value in self.op.snapshot().items()}

    @classmethod
    def restore(cls, snap: Mapping[str, Any] | SnapshotReader) -> ShardJoin:
        """The shard :meth:`snapshot` took; another format, version or :data:`STATE_LAYOUT` is
        refused, and so is anything but plain data."""
        entries = snap if isinstance(snap, SnapshotReader) else SnapshotReader(snap, "the streaming state")
        if "format" not in entries or str(entries["format"]) != STATE_FORMAT:
            raise ShedError(f"the streaming state is not a shard's state (no format {STATE_FORMAT!r}): "
                            f"{NEW_CHECKPOINT}", param="checkpoint")
        check_layout(int(entries["layout"]), "the streaming state")
        if int(entries["version"]) != FORMAT_VERSION:
            raise ShedError(f"the streaming state has format version {int(entries['version'])}; this version of "
                            f"shedding reads version {FORMAT_VERSION}: {NEW_CHECKPOINT}", param="checkpoint")
        join = cls.__new__(cls)
        join._setup(JoinSpec.restore(json.loads(str(entries["spec"]))), int(entries["shard"]))  # checked when made
        join.op = JoinOperator.restore(entries.within("op."))
        m, m_r, m_s = (int(v) for v in entries["budget"])
        join.budget = (m, m_r, m_s)
        census = entries.within("census.")
        values: dict[str, Any] = {f.name: census[f.name] if census[f.name].ndim else census[f.name].item()
                                  for f in fields(Census) if f.name in census}
        join.census = Census(**values) if join.spec.shares_budget else None
        join.history = KeyHistory.restore(join.spec.bounds, entries.within("history.")) if join.spec.by_history else None
        join._held, join._resident = (bytes_table(entries[name], name) for name in ("held", "resident"))
        known = {name: int(entries[name]) for name in ("latest.r", "latest.s", "heard.r", "heard.s", "since",
                                                        "released_until") if name in entries}
        join._latest = [known.get("latest.r"), known.get("latest.s")]
        join._heard = [known.get("heard.r"), known.get("heard.s")]
        join._since, join.released_until = known.get("since"), known.get("released_until")
        join.ended = bool(entries["ended"])
        if join.unpaired is not None:
            join.unpaired = Unpaired.restore(join.spec, entries.within("dropped."))
        entries.check_all_read()
        return join

    def to_bytes(self) -> bytes:
        """The whole shard as one binary value, the streaming state: :meth:`snapshot` as a
        compressed Arrow IPC stream (:func:`~shedding.streaming.state.to_state_bytes`)."""
        return to_state_bytes(self.snapshot())

    @staticmethod
    def from_bytes(blob: bytes) -> ShardJoin:
        """The shard :meth:`to_bytes` wrote, read without pickles; anything else (the pickle of
        layouts 1 and 2, state in another :data:`STATE_LAYOUT`) is refused, never unpickled."""
        before = f"versions of shedding before state layout {STATE_LAYOUT} pickled it"
        return ShardJoin.restore(from_state_bytes(blob, "the streaming state", before))


def check_layout(layout: int, what: str) -> None:
    """Refuse shard state written in another :data:`STATE_LAYOUT` than this version's."""
    if layout != STATE_LAYOUT:
        raise ShedError(f"{what} was written by a version of shedding whose join state has layout {layout}; this "
                        f"version reads layout {STATE_LAYOUT}: {NEW_CHECKPOINT}", param="checkpoint")
