"""The band join operator: fed arrival batches, it holds at most M tuples (Das, Gehrke,
Riedewald 2003, §2.1, with the band predicate of :mod:`.predicate`).

The band counterpart of :class:`shedding.online.engine.JoinOperator`: the policies of
:mod:`shedding.online.policies` that run on the band join (PROB, LIFE, RAND, their variable forms
and the schedule replay; the others are refused), the same :class:`~shedding.online.feed.FeedResult`, a state of
plain numpy arrays that can be pickled between feeds, and the compiled loop of :mod:`.kernel`.
Values arrive already scaled to integers (:class:`~.predicate.BandWorkload`); PROB and LIFE take
their priorities from a :class:`~.estimator.BandHistogram`, counted in advance (static) or
learned from the arrivals (online).
"""

from __future__ import annotations

import numpy as np

from shedding.errors import ShedError
from shedding.model import Memory, as_int_array, check_window
from shedding.online import kernel as K
from shedding.online.feed import FeedResult, check_feed
from shedding.online.policies import BAND, Policy, get_policy, require
from shedding.band import kernel as BK
from shedding.band.estimator import BandHistogram

_EMPTY_ROWS = np.zeros((0, 3), dtype=np.int64)


class BandJoinOperator:
    """Sliding-window band join of R and S with at most ``memory`` tuples in join memory.

    Feed whole time steps in time order with :meth:`feed`; call :meth:`finish` at the end of the
    stream.

    Args:
        window: w, in time steps (>= 1).
        memory: M, the tuples the join may hold at once (>= 0), or a checked
            :class:`~shedding.model.Memory`.
        policy: A policy of the registry that runs on the band join (a name or a
            :class:`~shedding.online.policies.Policy`).
        eps: The scaled band width per attribute.
        histogram: The estimate behind PROB and LIFE (unused by RAND and the schedule
            replay; required by PROB and LIFE): its counts are used as given, or with
            ``online=True`` its layout only.
        memory_split: (M_R, M_S) for the fixed-split policies; default (M // 2, M - M // 2).
        warmup: The first time whose outputs count (>= 0).
        seed: The seed of RAND's draws (>= 0).
        pairs: Record the joined pairs.
        online: Learn the histogram's counts from the arrivals.
        schedule_left: Per tuple, the step it leaves memory, for a replaying policy.

    Raises:
        ShedError: A bad ``window``, ``memory``, ``memory_split``, ``warmup`` or ``seed``, a
            policy that does not run on a band join, or a missing ``histogram`` or
            ``schedule_left`` the policy needs.
    """

    #: the slots (:class:`.kernel.BandState`), (re)allocated by :meth:`_alloc`
    _mem: np.ndarray
    _vals: np.ndarray
    _cnt: np.ndarray

    def __init__(self, window: int, memory: int | Memory, policy: str | Policy, eps: np.ndarray, *,
                 histogram: BandHistogram | None = None, memory_split: tuple[int, int] | None = None,
                 warmup: int = 0, seed: int = 0, pairs: bool = False, online: bool = False,
                 schedule_left: np.ndarray | None = None) -> None:
        self.window = check_window(window)
        budget = Memory.of(memory, memory_split)
        self.memory, self.memory_r, self.memory_s = budget.total, budget.r, budget.s
        self.policy = policy if isinstance(policy, Policy) else get_policy(policy)
        if int(warmup) < 0:
            raise ShedError(f"{{param}} must be >= 0, got {warmup}", param="warmup")
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ShedError(f"the policy seed ({{param}}) must be an integer >= 0, got {seed!r}", param="seed")
        require(self.policy, BAND)  # the kernel ranks by histograms (PROB, LIFE), at random or by a schedule
        if histogram is None:
            if self.policy.kind in (K.PROB, K.LIFE):
                raise ShedError(f"policy {self.policy.name} ranks tuples by a histogram; pass one")
            d = len(np.atleast_1d(eps))
            histogram = BandHistogram(np.zeros(d, np.int64), np.ones(d, np.int64), np.zeros((2, d, 2), np.int64),
                                      np.zeros(2, np.int64))
        if self.policy.kind == K.SCHEDULE and schedule_left is None:
            raise ShedError(f"policy {self.policy.name} replays a schedule; pass schedule_left")
        self.eps = np.ascontiguousarray(eps, dtype=np.int64)
        self._sched = np.ascontiguousarray(schedule_left if schedule_left is not None else np.zeros(1), np.int64)
        self.want_pairs = pairs
        self._rng = np.random.default_rng(seed)
        self._next_seq = 0
        self._last_time: int | None = None
        sc = np.zeros(K.SC_FIELDS, dtype=np.int64)
        sc[K.P_W], sc[K.P_M], sc[K.P_MR], sc[K.P_MS] = self.window, self.memory, self.memory_r, self.memory_s
        sc[K.P_VARIABLE], sc[K.P_KIND], sc[K.P_WARMUP] = int(self.policy.variable), self.policy.kind, int(warmup)
        sc[K.P_ONLINE] = int(online)
        sc[K.P_LO], sc[K.P_HI] = -(self.window - 1), self.window - 1  # the window, as the shared ranking reads it
        fsc = np.zeros(K.FSC_FIELDS, dtype=np.float64)
        self._hist = (histogram.lo.astype(np.int64), histogram.width.astype(np.int64),
                      np.zeros_like(histogram.fen) if online else histogram.fen.copy())
        if not online:
            fsc[K.F_TOT_R], fsc[K.F_TOT_S] = histogram.denominators()
        self._sc, self._fsc = sc, fsc
        self._bs = np.zeros(BK.BS_FIELDS, dtype=np.int64)
        self._alloc(2)

    def _alloc(self, capacity: int) -> None:
        """(Re)allocate the slots for ``capacity`` tuples, keeping the content."""
        used = int(self._bs[BK.B_USED])
        mem = np.zeros((3, capacity), dtype=np.int64)
        vals = np.zeros((capacity, len(self.eps)), dtype=np.int64)
        cnt = np.zeros((2, capacity), dtype=np.float64)
        if used:
            mem[:, :used], vals[:used], cnt[:, :used] = self._mem[:, :used], self._vals[:used], self._cnt[:, :used]
        self._mem, self._vals, self._cnt = mem, vals, cnt

    def _state(self) -> BK.BandState:
        return BK.BandState(self._mem, self._vals, self._cnt, self.eps, self._sc, self._fsc, self._bs, *self._hist)

    @property
    def in_memory(self) -> tuple[int, int]:
        """(R tuples, S tuples) in join memory now."""
        return int(self._bs[BK.B_HELD_R]), int(self._bs[BK.B_HELD_R + 1])

    def feed(self, side: np.ndarray, time: np.ndarray, values: np.ndarray) -> FeedResult:
        """Process arrivals sorted by time (``values``: N x d scaled integers); every time step
        must be complete in one call."""
        side = np.ascontiguousarray(as_int_array(side, "side"))
        time = np.ascontiguousarray(as_int_array(time, "time"))
        values = np.ascontiguousarray(values, dtype=np.int64).reshape(len(time), len(self.eps))
        n = len(time)
        if len(side) != n:
            raise ShedError("side, time and values must have the same length")
        if n == 0:
            return FeedResult(0, _EMPTY_ROWS, _EMPTY_ROWS, np.zeros((0, 2), dtype=np.int64))
        starts = check_feed(side, time, self._last_time)
        max_batch = int(np.max(np.diff(np.r_[starts, n])))
        need = min(self.memory, sum(self.in_memory) + n) + max_batch + 1
        if need > self._mem.shape[1]:
            self._alloc(max(need, min(2 * self._mem.shape[1], self.memory + max_batch + 1)))
        seq = np.arange(self._next_seq, self._next_seq + n, dtype=np.int64)
        if self.policy.kind == K.SCHEDULE and seq[-1] >= len(self._sched):
            raise ShedError("the schedule is shorter than the stream; pass a schedule for every tuple")
        draws = self._rng.random(n) if self.policy.seed else np.zeros(1)
        dep = np.zeros((n + self._mem.shape[1], 3), dtype=np.int64)
        pairs = np.zeros((max(16, n), 2), dtype=np.int64) if self.want_pairs else np.zeros((0, 2), dtype=np.int64)
        outputs, n_dep, n_pairs, pairs, err = BK.band_process(self._state(), side, time, values, seq, draws,
                                                              self._sched, dep, pairs)
        if err == BK.ERR_SCHEDULE_OVERFULL:
            raise ShedError("the schedule keeps more tuples than the memory allows; check its memory and split")
        self._next_seq += n
        self._last_time = int(time[-1])
        return FeedResult(int(outputs), dep[:n_dep], _EMPTY_ROWS, pairs[:n_pairs])

    def finish(self) -> np.ndarray:
        """End of stream: the tuples still in memory stay until they expire; their departure rows."""
        dep = np.zeros((self._mem.shape[1], 3), dtype=np.int64)
        return dep[:BK.band_flush(self._state(), dep)]
