"""The join operator: a small object fed arrival batches, holding at most M tuples.

One incremental operator (in the spirit of river's streaming operators: state plus a per-batch
method) implements the fast-CPU integrated window join of Das, Gehrke, Riedewald (SIGMOD 2003),
§2.1, shedding by a policy of §3.3. The batch simulator, the OPT schedule replay and the Spark
streaming job all drive this same object; it does no I/O and keeps no global state. Between
micro-batches its state is a *snapshot* (:meth:`JoinOperator.snapshot`): plain data, numpy arrays
of numbers and scalars (ints, floats, text, flags) by name, never pickled objects, which
:meth:`JoinOperator.restore` reads back by name and :mod:`~shedding.streaming.shard` stores as an
Arrow IPC stream.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import fields, replace

import numpy as np

from shedding.errors import ShedError
from shedding.model import Memory, as_int_array
from shedding.timerange import lives_apart, range_horizon, window_range
from shedding.online import kernel as K
from shedding.online.aged import AgedState
from shedding.online.feed import FeedResult, check_feed
from shedding.online.estimators import Estimator, OnlineEstimator, StaticEstimator, make_estimator
from shedding.online.layout import JoinState
from shedding.online.params import OperatorParams
from shedding.online.policies import Policy, get_policy
from shedding.online.snapshot import Snapshot, SnapshotReader, from_words, words
from shedding.online.tuning import HazardTuning


_EMPTY_INT = np.zeros(0, dtype=np.int64)
_EMPTY_ROWS = np.zeros((0, 3), dtype=np.int64)


def _pow2(n: int) -> int:
    return 1 << max(0, (max(n, 1) - 1).bit_length())


class JoinOperator:
    """Sliding-window join of R and S with at most ``memory`` tuples in join memory: the fast-CPU
    integrated join of Das, Gehrke, Riedewald (SIGMOD 2003, §2.1), shedding by an online policy of
    §3.3 (or ours) when memory is full.

    Feed it arrivals with :meth:`feed` (``side`` 0 = R / 1 = S, ``time``, ``key``, and for HAZARD
    optionally a payload ``group``), whole time steps at a time, in time order; call :meth:`finish`
    at the end of the stream. :meth:`snapshot` and :meth:`restore` carry its state as plain data.

    Args:
        window: the window w in time steps (>= 1): r and s join when |r.time - s.time| < w.
        range: ``(lo, hi)``, integers with lo <= hi: r and s join when ``lo <= s.time - r.time <= hi``
            instead (docs/semantics.md, "Time range"); None for the window's ``(-(w-1), w-1)``.
            Each side's tuples are held only while a partner can still come (an R tuple until
            ``time + hi``, an S tuple until ``time - lo``); a side that can meet no later arrival
            (R when hi <= 0, S when lo >= 0) is never stored.
        memory: M, the most tuples held in join memory (>= 0).
        policy: a policy's name from the registry (:data:`~shedding.online.policies.POLICIES`) or a
            :class:`~shedding.online.policies.Policy` that runs on the equi-join.
        memory_split: (M_R, M_S) for a fixed split (M_R + M_S = M); None for M/2 each (a variable
            policy, suffix ``v``, shares M).
        warmup: the first time step whose pairs are counted (earlier ones fill memory).
        estimator: the partner-frequency estimator: an
            :class:`~shedding.online.estimators.OnlineEstimator` (the default, or ``"online"``) or a
            :class:`~shedding.online.estimators.StaticEstimator` of the workload's key frequencies.
        seed: RAND's seed (an integer >= 0).
        pairs: keep the output pairs (``FeedResult.pairs``), not only their count.
        record: keep each tuple's departure (the schedule this run followed).
        share_every: steps between the variable split's updates of the memory shares (>= 1).
        schedule_left: for ``opt-schedule``/``optv-schedule``, each tuple's scheduled departure.
        tuning: HAZARD's learner (and AGE's when it estimates its age curve online): a
            :class:`~shedding.online.tuning.HazardTuning` or its ``field=value,...`` text, None for
            the defaults.

    Raises:
        ShedError: a parameter out of its range, a policy the equi-join does not run, a schedule
            missing for a replay; the error names the parameter.
    """

    # the state arrays, one per JoinState field (set by _alloc, and by restore)
    _node: np.ndarray
    _cls: np.ndarray
    _cnt: np.ndarray
    _tree: np.ndarray
    _bag: np.ndarray
    _free: np.ndarray
    _sc: np.ndarray
    _fsc: np.ndarray
    _bcnt: np.ndarray
    _bhead: np.ndarray
    _bnext: np.ndarray
    _stack: np.ndarray

    def __init__(
        self,
        window: int,
        memory: int,
        policy: str | Policy = "prob",
        *,
        memory_split: tuple[int, int] | None = None,
        warmup: int = 0,
        estimator: Estimator | None = None,
        seed: int = 0,
        pairs: bool = False,
        record: bool = False,
        share_every: int = 1,
        schedule_left: np.ndarray | None = None,
        tuning: HazardTuning | str | None = None,
        range: tuple[int, int] | None = None,
    ) -> None:
        self._start(OperatorParams.of(window, memory, policy, memory_split=memory_split, warmup=warmup, seed=seed,
                                      share_every=share_every, tuning=tuning, range=range),
                    estimator, pairs, record, schedule_left)

    @classmethod
    def of(cls, params: OperatorParams, *, estimator: Estimator | str | None = None, pairs: bool = False,
           record: bool = False, schedule_left: np.ndarray | None = None) -> JoinOperator:
        """The operator of ``params``, checked already (:meth:`OperatorParams.of
        <shedding.online.params.OperatorParams.of>`, or built from checked values): nothing of
        them is checked again. The other arguments are the constructor's."""
        op = cls.__new__(cls)
        op._start(params, estimator, pairs, record, schedule_left)
        return op

    def _start(self, params: OperatorParams, estimator: Estimator | str | None, pairs: bool, record: bool,
               schedule_left: np.ndarray | None) -> None:
        """Set up the empty operator of ``params``."""
        self.window, self.policy = params.window, params.policy
        self.memory, self.memory_r, self.memory_s = params.memory.total, params.memory.r, params.memory.s
        warmup, share_every, tuning = params.warmup, params.share_every, params.tuning
        lo, hi = window_range(params.window) if params.range is None else params.range
        if isinstance(estimator, str):  # "online"; "static" needs the workload and says so
            estimator = make_estimator(estimator)
        if estimator is not None and not isinstance(estimator, (OnlineEstimator, StaticEstimator)):
            raise ShedError(f"{{param}} must be 'online', an OnlineEstimator or a StaticEstimator, got {estimator!r}",
                            param="estimator")
        self.estimator = estimator if estimator is not None else OnlineEstimator()
        if self.policy.kind == K.SCHEDULE:
            if schedule_left is None:
                raise ShedError(f"policy {self.policy.name} replays a schedule; pass schedule_left")
            self._sched = np.ascontiguousarray(schedule_left, dtype=np.int64)
        else:
            self._sched = _EMPTY_INT
        self.want_pairs = pairs
        self.record = record
        self._rng = np.random.default_rng(params.seed)
        self._next_seq = 0
        self._last_time: int | None = None
        self._keys = np.zeros(0, dtype=np.int64)  # sorted raw keys
        self._ids = np.zeros(0, dtype=np.int64)  # class id of each sorted raw key
        sc = np.zeros(K.SC_FIELDS, dtype=np.int64)
        sc[K.P_W], sc[K.P_M], sc[K.P_MR], sc[K.P_MS] = range_horizon(lo, hi), self.memory, self.memory_r, self.memory_s
        sc[K.P_LO], sc[K.P_HI] = lo, hi
        sc[K.P_VARIABLE] = int(self.policy.variable)
        sc[K.P_KIND] = self.policy.kind
        sc[K.SC_RANK] = K.PROB if self.policy.kind == K.HAZARD else self.policy.kind  # HAZARD starts as PROB
        sc[K.P_WARMUP] = int(warmup)
        sc[K.P_ONLINE] = int(isinstance(self.estimator, OnlineEstimator))
        sc[K.P_SHARE_EVERY] = share_every
        sc[K.SC_GHEAD] = sc[K.SC_GTAIL] = sc[K.SC_RTAIL] = sc[K.SC_T0] = -1
        fsc = np.zeros(K.FSC_FIELDS, dtype=np.float64)
        fsc[K.F_ALPHA] = self.policy.alpha
        if isinstance(self.estimator, OnlineEstimator):
            fsc[K.F_LOGG] = -math.log(self.estimator.decay)
        self._sc, self._fsc = sc, fsc
        static = self.estimator if isinstance(self.estimator, StaticEstimator) else None
        self._aged = AgedState(self.policy.kind, int(sc[K.P_W]), self._age_budgets, self.policy.variable,
                               tuning, None if static is None else static.age_curves,
                               None if static is None else static.rates)
        self._capacity = 0
        self._n_keys = 0
        # nodes grow with the tuples held (see ``feed``), not with M: memory beyond what has
        # arrived changes nothing, and M may be far larger than the stream (or unbounded)
        self._alloc(capacity=2, n_keys=1)
        if isinstance(self.estimator, StaticEstimator):
            est = self.estimator
            ids = self._map_keys(np.asarray(est.keys, dtype=np.int64))
            self._cnt[0, ids] = est.counts_r
            self._cnt[1, ids] = est.counts_s
            fsc[K.F_TOT_R] = float(np.sum(est.counts_r))
            fsc[K.F_TOT_S] = float(np.sum(est.counts_s))

    # ------------------------------------------------------------------ state

    @property
    def range(self) -> tuple[int, int]:
        """``(lo, hi)``: r and s join when ``lo <= s.time - r.time <= hi``."""
        return int(self._sc[K.P_LO]), int(self._sc[K.P_HI])

    def _alloc(self, capacity: int, n_keys: int) -> None:
        """(Re)allocate the state for ``capacity`` nodes and ``n_keys`` classes, keeping content."""
        old = self._capacity
        if capacity > old:
            node = np.zeros((capacity, K.NODE_FIELDS), dtype=np.int64)
            bag = np.zeros((2, capacity), dtype=np.int64)
            free = np.zeros(capacity, dtype=np.int64)
            top = int(self._sc[K.SC_FREETOP])
            if old:
                node[:old] = self._node
                bag[:, :old] = self._bag
                free[:top] = self._free[:top]
            added = np.arange(capacity - 1, old - 1, -1, dtype=np.int64)
            free[top:top + len(added)] = added
            self._sc[K.SC_FREETOP] = top + len(added)
            self._node, self._bag, self._free = node, bag, free
            self._bnext = np.full(capacity, -1, dtype=np.int64)
            self._capacity = capacity
            self._aged.grow(capacity, self._n_keys, node, int(self._sc[K.SC_GHEAD]))
        if n_keys > self._n_keys:
            oldk = self._n_keys
            cls = np.zeros((2, n_keys, K.CLS_FIELDS), dtype=np.int64)
            cls[:, :, K.C_HEAD] = -1
            cls[:, :, K.C_TAIL] = -1
            cnt = np.zeros((2, n_keys), dtype=np.float64)
            if oldk:
                cls[:, :oldk] = self._cls
                cnt[:, :oldk] = self._cnt
            self._cls, self._cnt = cls, cnt
            self._bcnt = np.zeros((2, n_keys), dtype=np.int64)
            self._bhead = np.full((2, n_keys), -1, dtype=np.int64)
            leaves = _pow2(n_keys)
            if leaves != self._sc[K.P_LEAVES]:
                self._sc[K.P_LEAVES] = leaves
                self._tree = np.full((2, 2, 2 * leaves), -1, dtype=np.int64)
                self._tree[K.T_CERT] = K.INF
                self._stack = np.zeros(4 * leaves, dtype=np.int64)
            self._n_keys = n_keys
            self._aged.grow(self._capacity, n_keys, self._node, int(self._sc[K.SC_GHEAD]))
            if oldk:
                K.rebuild_trees(self._split_flag, self._state(), self._sc[K.SC_LAST_T])

    @property
    def _age_budgets(self) -> tuple[int, int]:
        """The budgets AGE plans its hold ages for: (M, M_S) under the variable split, else (M_R, M_S)."""
        return (self.memory if self.policy.variable else self.memory_r, self.memory_s)

    @property
    def _aged_flag(self) -> bool | None:
        """The first argument of the kernel's entry points: True for the age-aware kinds, None for
        the others, whose loop numba compiles without the age-aware work."""
        return True if self._aged.active else None

    @property
    def _split_flag(self) -> bool | None:
        """The second argument of the kernel's entry points: True when the two sides' tuples live for
        different times (:func:`~shedding.timerange.lives_apart`), None on the window."""
        return True if lives_apart(*self.range) else None

    def _state(self) -> JoinState:
        return JoinState(self._node, self._cls, self._cnt, self._tree, self._bag, self._free, self._sc, self._fsc,
                         self._bcnt, self._bhead, self._bnext, self._stack)

    # ------------------------------------------------------------------ snapshot

    def snapshot(self) -> Snapshot:
        """Everything the operator holds, as plain data (copies; nothing pickled): its parameters,
        the policy (its registry name and DUAL's price multiple ``policy.alpha``, the one field a
        caller may set apart from the registry), the estimator's fields by name (``estimator.decay``, ...),
        the key map, the RNG's state (``rng.*``: PCG64's 128-bit state and increment as four
        64-bit words), one entry per :class:`~shedding.online.layout.JoinState` field
        (``state.node``, ...) and the age-aware state (``aged.*``,
        :meth:`~shedding.online.aged.AgedState.snapshot`). An entry whose value is None is left
        out. :meth:`restore` reads it back; feeding both the same arrivals gives the same results."""
        snap: Snapshot = {"window": self.window, "memory": self.memory, "memory_r": self.memory_r,
                          "memory_s": self.memory_s, "want_pairs": self.want_pairs, "record": self.record,
                          "next_seq": self._next_seq, "capacity": self._capacity, "n_keys": self._n_keys,
                          "keys": self._keys.copy(), "ids": self._ids.copy(), "sched": self._sched.copy()}
        if self._last_time is not None:
            snap["last_time"] = self._last_time
        snap["policy.name"], snap["policy.alpha"] = self.policy.name, self.policy.alpha
        snap["estimator.kind"] = "online" if isinstance(self.estimator, OnlineEstimator) else "static"
        for f in fields(self.estimator):
            value = getattr(self.estimator, f.name)
            if value is not None:
                snap[f"estimator.{f.name}"] = value.copy() if isinstance(value, np.ndarray) else value
        rng = self._rng.bit_generator.state
        snap["rng.bit_generator"] = rng["bit_generator"]
        snap["rng.state"] = np.array(words(rng["state"]["state"]) + words(rng["state"]["inc"]), dtype=np.uint64)
        snap["rng.has_uint32"], snap["rng.uinteger"] = int(rng["has_uint32"]), int(rng["uinteger"])
        snap |= {f"state.{name}": a.copy() for name, a in zip(JoinState._fields, self._state())}
        snap |= {f"aged.{name}": value for name, value in self._aged.snapshot().items()}
        return snap

    @classmethod
    def restore(cls, snap: Mapping[str, object]) -> JoinOperator:
        """The operator :meth:`snapshot` took, read by name from plain data only: an entry that
        is not numbers, text or flags (an object array) is refused, and so are missing entries
        and entries this version does not know (a snapshot of another state layout)."""
        entries = snap if isinstance(snap, SnapshotReader) else SnapshotReader(snap)
        op = cls.__new__(cls)
        op.window, op.memory = int(entries["window"]), int(entries["memory"])
        op.memory_r, op.memory_s = int(entries["memory_r"]), int(entries["memory_s"])
        op.want_pairs, op.record = bool(entries["want_pairs"]), bool(entries["record"])
        op._next_seq, op._capacity, op._n_keys = (int(entries[n]) for n in ("next_seq", "capacity", "n_keys"))
        op._keys, op._ids, op._sched = entries["keys"], entries["ids"], entries["sched"]
        op._last_time = int(entries["last_time"]) if "last_time" in entries else None
        policy, alpha = get_policy(str(entries["policy.name"])), float(entries["policy.alpha"])
        op.policy = policy if policy.alpha == alpha else replace(policy, alpha=alpha)
        kinds = {"online": OnlineEstimator, "static": StaticEstimator}
        kind = kinds.get(str(entries["estimator.kind"]))
        if kind is None:
            raise ShedError(f"the snapshot's estimator is {entries['estimator.kind']}, neither online nor static")
        est = entries.within("estimator.")
        op.estimator = kind(**{f.name: est[f.name] if est[f.name].ndim else est[f.name].item()
                               for f in fields(kind) if f.name in est})
        if str(entries["rng.bit_generator"]) != "PCG64":
            raise ShedError(f"the snapshot's random generator is {entries['rng.bit_generator']}, not PCG64")
        state = entries["rng.state"]
        op._rng = np.random.Generator(np.random.PCG64())
        op._rng.bit_generator.state = {
            "bit_generator": "PCG64", "state": {"state": from_words(state[:2]), "inc": from_words(state[2:])},
            "has_uint32": int(entries["rng.has_uint32"]), "uinteger": int(entries["rng.uinteger"])}
        for name in JoinState._fields:
            setattr(op, f"_{name}", entries[f"state.{name}"])
        op._aged = AgedState.restore(entries.within("aged."))
        entries.check_all_read()
        return op

    def _map_keys(self, raw: np.ndarray) -> np.ndarray:
        """Class id of each raw key; keys never seen get new, empty classes."""
        pos = np.searchsorted(self._keys, raw)
        known = pos < len(self._keys)
        known[known] = self._keys[pos[known]] == raw[known]
        if not known.all():
            new = np.unique(raw[~known])
            used = len(self._keys)
            ids = np.concatenate([self._ids, np.arange(used, used + len(new))])
            keys = np.concatenate([self._keys, new])
            order = np.argsort(keys, kind="stable")
            self._keys, self._ids = keys[order], ids[order]
            self._alloc(self._capacity, max(self._n_keys, len(self._keys)))
            pos = np.searchsorted(self._keys, raw)
        return self._ids[pos]

    @property
    def arrivals(self) -> int:
        """Tuples fed so far; also the sequence number the next tuple gets."""
        return self._next_seq

    @property
    def in_memory(self) -> tuple[int, int]:
        """(R tuples, S tuples) in join memory now."""
        return int(self._sc[K.SC_NMEM_R]), int(self._sc[K.SC_NMEM_S])

    @property
    def guard_choice(self) -> str | None:
        """HAZARD's guard's choice so far (:mod:`~shedding.online.guard`): per side the refits at
        which the side ranked by its age shape, of all refits, as ``R 3/19 S 0/19``; None for the
        other policies."""
        return self._aged.guard_choice()

    @property
    def group_picks(self) -> np.ndarray | None:
        """HAZARD with candidate groupings (a 2-D ``group``, :mod:`~shedding.online.autogroup`): per
        side and candidate (no group first, then the group's columns in order) the refits at which
        the side ranked by it; None otherwise."""
        return self._aged.picks()

    @property
    def state_bytes(self) -> int:
        """Bytes held by the operator's state: O(M + batch + domain), never O(stream)."""
        return sum(a.nbytes for a in self._state()) + self._aged.nbytes

    # ------------------------------------------------------------------ feeding

    def feed(self, side: np.ndarray, time: np.ndarray, key: np.ndarray, group: np.ndarray | None = None) -> FeedResult:
        """Process arrivals sorted by time; every time step must be complete in one call. Sides
        (0/1), times (>= 0) and keys are integers (integral floats are taken, as by
        :class:`~shedding.model.Workload`). ``group``
        (integers, one per arrival) is the payload group HAZARD ranks by; the first feed decides
        whether there is one. A 2-D ``group`` (one row per arrival, one column of dense ids below
        :data:`~shedding.online.groups.MAX_GROUPS` per candidate grouping) lets HAZARD pick among the
        candidates and no group (``group="auto"``, :mod:`~shedding.online.autogroup`)."""
        side = np.ascontiguousarray(as_int_array(side, "side"))
        time = np.ascontiguousarray(as_int_array(time, "time"))
        key = np.ascontiguousarray(as_int_array(key, "key"))
        n = len(time)
        if not (len(side) == n == len(key)):
            raise ShedError("side, time and key must have the same length")
        if n == 0:
            return FeedResult(0, _EMPTY_ROWS, _EMPTY_ROWS, np.zeros((0, 2), dtype=np.int64))
        starts = check_feed(side, time, self._last_time)
        ids = self._map_keys(key)
        groups = self._aged.group_ids(group, n)
        max_batch = int(np.max(np.diff(np.r_[starts, n])))
        # memory never holds more than M tuples, nor more than it holds now plus this feed
        need = min(self.memory, sum(self.in_memory) + n) + max_batch + 1
        if need > self._capacity:
            self._alloc(max(need, min(2 * self._capacity, self.memory + max_batch + 1)), self._n_keys)
        seq = np.arange(self._next_seq, self._next_seq + n, dtype=np.int64)
        draws = self._rng.random(n) if self.policy.kind == K.RAND else np.zeros(1)
        dep = np.zeros((n + self._capacity, 3), dtype=np.int64) if self.record else _EMPTY_ROWS
        share_every = int(self._sc[K.P_SHARE_EVERY])
        share = np.zeros((len(starts) // share_every + 2, 3), dtype=np.int64) if self.record else _EMPTY_ROWS
        pairs = np.zeros((max(16, n), 2), dtype=np.int64) if self.want_pairs else np.zeros((0, 2), dtype=np.int64)
        if self.policy.kind == K.SCHEDULE and seq[-1] >= len(self._sched):
            raise ShedError("the schedule is shorter than the stream; pass a schedule for every tuple")
        state, aged, pos = self._state(), self._aged.state(), np.zeros(K.POS_FIELDS, dtype=np.int64)
        while True:
            err = K.process(self._aged_flag, self._split_flag, state, aged, side, time, ids, groups, seq, draws,
                            self._sched, dep, share, pairs, pos)
            if err == K.PAUSE_PAIRS:
                grown = np.zeros((max(int(pos[K.POS_NEED]), 2 * len(pairs)), 2), dtype=np.int64)
                grown[:pos[K.POS_PAIRS]] = pairs[:pos[K.POS_PAIRS]]
                pairs = grown
            elif err == K.PAUSE_REFIT:
                K.refit_step(self._split_flag, state, aged, time[pos[K.POS_I]])
            elif err == K.PAUSE_PARAMS:
                K.params_step(self._split_flag, state, time[pos[K.POS_I]])
            else:
                break
        if err == K.ERR_SCHEDULE_OVERFULL:
            raise ShedError("the schedule keeps more tuples than the memory allows; check its memory and split")
        outputs, n_dep, n_share, n_pairs = (int(v) for v in pos[K.POS_OUT:K.POS_PAIRS + 1])
        self._next_seq += n
        self._last_time = int(time[-1])
        return FeedResult(outputs, dep[:n_dep], share[:n_share], pairs[:n_pairs])

    def set_memory(self, memory: int | Memory, memory_split: tuple[int, int] | None = None) -> np.ndarray:
        """Change the budget between feeds: M (and M_R, M_S; default M // 2, M - M // 2), or a
        :class:`~shedding.model.Memory` checked already. A lower
        budget takes effect at once, as if it had held at the admission of the last fed time step:
        the lowest-priority tuples leave memory now. Returns their departure rows (seq, left,
        admitted)."""
        if self.policy.kind == K.SCHEDULE:
            raise ShedError(f"policy {self.policy.name} replays a schedule made for one budget; its memory is fixed")
        budget = Memory.of(memory, memory_split, self.range)
        self.memory, self.memory_r, self.memory_s = budget.total, budget.r, budget.s
        sc = self._sc
        sc[K.P_M], sc[K.P_MR], sc[K.P_MS] = self.memory, self.memory_r, self.memory_s
        self._aged.set_budgets(self._age_budgets, self.policy.variable, self._node, self._cnt, sc, int(sc[K.SC_LAST_T]))
        n_r, n_s = self.in_memory
        over = (max(0, n_r + n_s - self.memory) if self.policy.variable
                else max(0, n_r - self.memory_r) + max(0, n_s - self.memory_s))
        if over == 0:
            return _EMPTY_ROWS
        draws = self._rng.random(over) if self.policy.kind == K.RAND else np.zeros(over)
        dep = np.zeros((over, 3), dtype=np.int64)
        n_dep = K.shrink(self._aged_flag, self._split_flag, self._state(), self._aged.state(), draws, dep)
        return dep[:n_dep]

    def finish(self) -> np.ndarray:
        """End of stream: the tuples still in memory stay until they expire. Returns their
        departure rows (seq, left, admitted)."""
        dep = np.zeros((self._capacity, 3), dtype=np.int64)
        n_dep = K.flush(self._aged_flag, self._split_flag, self._state(), self._aged.state(), dep)
        return dep[:n_dep]
