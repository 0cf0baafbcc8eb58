"""The data model shared by every engine: workloads, schedules, run results and optima.

The join semantics (docs/semantics.md) follow Das, Gehrke, Riedewald (SIGMOD 2003), section 2.1:
a tuple arriving at time ``a`` is alive for ``t`` in ``[a, a + w - 1]``; tuples with equal time
form one arrival batch; outputs count only from ``warmup`` on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from shedding.errors import ShedError
from shedding.timerange import check_range, check_stored_split, default_split, range_horizon, window_range

R, S = 0, 1
SIDE_NAMES = ("R", "S")
#: Every time, window and memory is held in 64-bit integers.
INT64_MAX = 2**63 - 1


def as_int_array(values: Any, what: str) -> np.ndarray:
    """``values`` as a one-dimensional int64 array (integral floats and unsigned integers below
    2^63 are accepted); otherwise a one-line ShedError about ``what`` (e.g. "R time")."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ShedError(f"{what} must be a one-dimensional array, got shape {arr.shape}")
    if arr.dtype.kind in "iu":
        if arr.dtype.kind == "u" and arr.size and arr.max() > INT64_MAX:
            raise ShedError(f"{what} has values beyond 64-bit signed integers (up to {arr.max()}); "
                            f"use values below 2^63")
        return arr.astype(np.int64, copy=False)
    if arr.dtype.kind == "b":
        raise ShedError(f"{what} must hold integers, got booleans")
    if arr.dtype.kind == "f":
        if arr.size and not np.all(np.isfinite(arr)):
            raise ShedError(f"{what} has missing or infinite values; drop or fill those rows")
        if arr.size and not np.all(arr == np.floor(arr)):
            bad = arr[arr != np.floor(arr)][0].item()
            raise ShedError(f"{what} must be integers, found {bad!r}; round or map them to integers first")
        if arr.size and np.abs(arr).max() >= 2.0**63:
            raise ShedError(f"{what} has values beyond 64-bit integers (up to {np.abs(arr).max():.3g}); "
                            f"use values below 2^63")
        return arr.astype(np.int64)
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    raise ShedError(f"{what} must be integers, got values of type {arr.dtype}; map them to integers first")


def check_arrivals(side: np.ndarray, time: np.ndarray) -> None:
    """Refuse a side other than 0 (R) or 1 (S), times going backwards and negative times (the
    checks of a workload's and of a feed's arrivals, after :func:`as_int_array`)."""
    if side.size and not np.all((side == R) | (side == S)):
        raise ShedError("side must be 0 (R) or 1 (S)")
    if time.size and np.any(np.diff(time) < 0):
        i = int(np.argmax(np.diff(time) < 0)) + 1
        raise ShedError(f"times go backwards at tuple {i} ({time[i - 1]} then {time[i]}); sort the input by time")
    if time.size and time[0] < 0:
        raise ShedError(f"times must be non-negative, found {time[0]}; shift them so the first is 0")


@dataclass(frozen=True)
class Workload:
    """Two streams R and S, merged into one arrival sequence ordered by time.

    Within one time the given order is kept (it is the tuple's sequence number, used as the last
    tie-breaker). The arrays are kept as int64 (``side`` as int8); integral floats are accepted.
    :meth:`from_streams` and :meth:`synchronous` build one from two streams.

    Attributes:
        side: Per tuple, 0 for R and 1 for S.
        time: Per tuple, the arrival time: integers >= 0, non-decreasing.
        key: Per tuple, the join key (integers).
        window: w, in time steps (an integer >= 1): a tuple arriving at ``a`` is alive for
            ``t`` in ``[a, a + w - 1]`` (§2.1).
        warmup: The first time whose outputs count (paper §4.1); >= 0, default 0 here (the
            loaders and generators default to 2w).
        name: The workload's name in results and reports.
        meta: What a loader or generator records (its parameters; the flights' ``payload``
            frame), not compared.
        range: ``(lo, hi)``, the time range of the join: r(a) and s(b) pair iff
            ``lo <= b - a <= hi`` (docs/semantics.md, "Time range"); None for the symmetric
            window ``(-(w-1), w-1)``. :attr:`bounds` is the range in force.

    Raises:
        ShedError: Arrays of other lengths or shapes, non-integers, sides other than 0/1, times
            going backwards or negative, a bad ``window`` or ``warmup`` (naming it in
            ``param``), or times that overflow 64-bit integers.
    """

    side: np.ndarray
    time: np.ndarray
    key: np.ndarray
    window: int
    warmup: int = 0
    name: str = "workload"
    meta: dict = field(default_factory=dict, compare=False)
    range: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        side = as_int_array(self.side, "side").astype(np.int8)
        time = as_int_array(self.time, "time")
        key = as_int_array(self.key, "key")
        if not (len(side) == len(time) == len(key)):
            raise ShedError("side, time and key must have the same length")
        check_arrivals(side, time)
        window = check_window(self.window)
        if int(self.warmup) < 0:
            raise ShedError(f"{{param}} must be >= 0, got {self.warmup}", param="warmup")
        last = int(time[-1]) if time.size else 0
        if last + 2 * window + 2 > INT64_MAX or int(self.warmup) > INT64_MAX:
            raise ShedError(f"the last time {last} plus twice the window {window} overflows 64-bit integers; "
                            f"shift the times to start near 0 or use a smaller window")
        object.__setattr__(self, "side", side)
        object.__setattr__(self, "time", time)
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "window", int(self.window))
        object.__setattr__(self, "warmup", int(self.warmup))
        if self.range is not None:
            lo, hi = check_range(self.range)
            if last + abs(lo) + abs(hi) + 2 > INT64_MAX:
                raise ShedError(f"the last time {last} plus the range {lo},{hi} overflows 64-bit integers; shift the "
                                f"times to start near 0 or use a narrower range", param="range")
            object.__setattr__(self, "range", (lo, hi))

    @property
    def bounds(self) -> tuple[int, int]:
        """``(lo, hi)``: r(a) and s(b) pair iff ``lo <= b - a <= hi`` (the range, or the symmetric
        window's ``(-(w-1), w-1)``)."""
        return window_range(self.window) if self.range is None else self.range

    @property
    def horizon(self) -> int:
        """The longest a tuple waits for partners, plus one (:func:`range_horizon`): w for the window."""
        return range_horizon(*self.bounds)

    @classmethod
    def from_streams(
        cls,
        r_time: Any,
        r_key: Any,
        s_time: Any,
        s_key: Any,
        window: int,
        warmup: int | None = None,
        name: str = "workload",
    ) -> "Workload":
        """Merge two streams by time; within one time R tuples come before S tuples.

        Args:
            r_time: R's arrival times (integers >= 0, non-decreasing).
            r_key: R's keys, one per time.
            s_time: S's arrival times, likewise.
            s_key: S's keys.
            window: w, in time steps (>= 1).
            warmup: The first time whose outputs count; default 2w (§4.1).
            name: The workload's name.

        Returns:
            The merged :class:`Workload`.

        Raises:
            ShedError: Times going backwards, keys and times of other lengths, non-integers,
                or a bad ``window`` or ``warmup``.
        """
        r_time, r_key = as_int_array(r_time, "R time"), as_int_array(r_key, "R key")
        s_time, s_key = as_int_array(s_time, "S time"), as_int_array(s_key, "S key")
        for what, t in (("R", r_time), ("S", s_time)):
            if t.size and np.any(np.diff(t) < 0):
                i = int(np.argmax(np.diff(t) < 0)) + 1
                raise ShedError(f"{what} times go backwards at row {i} ({t[i - 1]} then {t[i]}); sort the stream by time")
        if len(r_time) != len(r_key) or len(s_time) != len(s_key):
            raise ShedError("each stream needs as many keys as times")
        time = np.concatenate([r_time, s_time])
        order = np.argsort(time, kind="stable")
        side = np.concatenate([np.zeros(len(r_time), np.int8), np.ones(len(s_time), np.int8)])[order]
        key = np.concatenate([r_key, s_key])[order]
        window = check_window(window)
        return cls(side, time[order], key, window, default_warmup(window) if warmup is None else warmup, name)

    @classmethod
    def synchronous(
        cls, r_keys: Any, s_keys: Any, window: int, warmup: int | None = None, name: str = "workload"
    ) -> "Workload":
        """The paper's tuple-synchronous model: r(t) and s(t) arrive at every t = 0..T-1.

        Args:
            r_keys: R's keys, one per time step.
            s_keys: S's keys, one per time step.
            window: w, in time steps (>= 1).
            warmup: The first time whose outputs count; default 2w (§4.1).
            name: The workload's name.

        Returns:
            The :class:`Workload`.
        """
        r_keys, s_keys = as_int_array(r_keys, "R key"), as_int_array(s_keys, "S key")
        return cls.from_streams(np.arange(len(r_keys)), r_keys, np.arange(len(s_keys)), s_keys, window, warmup, name)

    def with_params(self, *, window: int | None = None, warmup: int | None = None,
                    range: tuple[int, int] | None = None) -> "Workload":
        """The same streams with another window, warmup or time range (a new window drops the
        range unless one is given too)."""
        return Workload(
            self.side, self.time, self.key,
            self.window if window is None else window,
            self.warmup if warmup is None else warmup,
            self.name, self.meta,
            range if range is not None else (self.range if window is None else None),
        )

    def __len__(self) -> int:
        return len(self.time)

    def _first_at_time(self) -> np.ndarray:
        """True at the first arrival of each time step (the times are sorted: O(N), no sort)."""
        first = np.ones(len(self.time), dtype=bool)
        first[1:] = self.time[1:] != self.time[:-1]
        return first

    def event_times(self) -> np.ndarray:
        """The distinct arrival times in order."""
        return self.time[self._first_at_time()]

    def event_index(self) -> np.ndarray:
        """Each tuple's time step as an index into :meth:`event_times`."""
        return np.cumsum(self._first_at_time()) - 1

    @property
    def n_r(self) -> int:
        return int(np.count_nonzero(self.side == R))

    @property
    def n_s(self) -> int:
        return int(len(self.side) - self.n_r)

    def stream(self, which: int) -> tuple[np.ndarray, np.ndarray]:
        """(times, keys) of stream R (0) or S (1)."""
        mask = self.side == which
        return self.time[mask], self.key[mask]

    def key_counts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Distinct keys and their counts in R and in S (the static frequency table)."""
        keys, inverse = np.unique(self.key, return_inverse=True)
        counts_r = np.bincount(inverse[self.side == R], minlength=len(keys))
        counts_s = np.bincount(inverse[self.side == S], minlength=len(keys))
        return keys, counts_r, counts_s


def check_workload(wl: Any, param: str = "wl") -> "Workload":
    """``wl`` if it is a :class:`Workload`, else a ShedError naming ``param`` (not an
    AttributeError from deep inside a run)."""
    if not isinstance(wl, Workload):
        raise ShedError(f"{{param}} must be a Workload (zipf_workload, load_workload or Workload(side, time, key, "
                        f"window)), got {type(wl).__name__}", param=param)
    return wl


def check_window_join(wl: "Workload", what: str) -> None:
    """Refuse a workload with a time range where ``what`` is defined for the window join only."""
    if wl.range is not None:
        raise ShedError(f"{{param}} joins under the time range {wl.range}; {what} holds for the window join only: "
                        "drop the range", param="wl")


def check_name(name: Any, param: str) -> str:
    """A name given as text (a policy, an estimator), stripped and in lower case."""
    if not isinstance(name, str):
        raise ShedError(f"{{param}} must be a name (text), got {type(name).__name__} {name!r}", param=param)
    return name.strip().lower()


def check_window(window: Any) -> int:
    """Validate a window size (w >= 1; an integer, not True or a fraction)."""
    if isinstance(window, bool):
        raise ShedError(f"{{param}} must be a positive integer, got {window!r}", param="window")
    try:
        w = int(window)
    except (TypeError, ValueError):
        raise ShedError(f"{{param}} must be a positive integer, got {window!r}", param="window") from None
    if w != window or w <= 0:
        raise ShedError(f"{{param}} must be a positive integer, got {window!r}", param="window")
    if 2 * w + 2 > INT64_MAX:
        raise ShedError(f"{{param}} {w} overflows 64-bit integers; use a window below 2^62", param="window")
    return w


def check_memory(memory: object, split: tuple[int, int] | None = None,
                 bounds: tuple[int, int] | None = None) -> tuple[int, int, int]:
    """Validate M (``memory``) and the fixed split (M_R, M_S) (``memory_split``) under the time
    range ``bounds`` (None: the window): :func:`default_split`, :func:`check_stored_split`."""
    if isinstance(memory, bool) or not isinstance(memory, (int, np.integer)) or memory < 0:
        raise ShedError(f"{{param}} must be an integer >= 0 (a number of tuples), got {memory!r}", param="memory")
    m = int(memory)
    if m > INT64_MAX:
        raise ShedError(f"{{param}} {m} does not fit in 64-bit integers; room for the most tuples alive at once "
                        "(2w - 2 with one tuple per stream per step; shedding.exact.exact_memory) keeps every tuple, so "
                        "use that", param="memory")
    if split is None:
        return (m, *default_split(m, bounds))
    try:
        parts = tuple(split)
    except TypeError:
        parts = ()
    if len(parts) != 2 or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in parts):
        raise ShedError(f"{{param}} must be two integers M_R,M_S, got {split!r}", param="memory_split")
    m_r, m_s = (int(v) for v in parts)
    if m_r < 0 or m_s < 0:
        raise ShedError(f"{{param}} parts must be >= 0, got {m_r},{m_s}", param="memory_split")
    if m_r + m_s != m:
        raise ShedError(f"{{param}} {m_r},{m_s} sums to {m_r + m_s}, not the memory {m}; make M_R + M_S = M",
                        param="memory_split")
    if bounds is not None:
        check_stored_split(m_r, m_s, bounds)
    return m, m_r, m_s


@dataclass(frozen=True)
class Memory:
    """M, the tuples a join may hold at once, and its fixed split (M_R, M_S): checked once, where
    the run enters the library (:meth:`of`), and passed down as it is (Das, Gehrke, Riedewald
    2003, §2.1: the join memory; §3.3: the fixed and variable splits).

    Build it with :meth:`of`; the layers below take it and never check it again. A default split
    (``given`` False) is resolved by each engine for its workload's range (``Memory.of(budget,
    None, wl.bounds)``), so the policies, OPT and the bounds of one run use the same split.
    """

    total: int
    r: int
    s: int
    given: bool = field(default=True, compare=False)

    @classmethod
    def of(cls, memory: "int | Memory", split: tuple[int, int] | None = None,
           bounds: tuple[int, int] | None = None) -> "Memory":
        """``memory`` checked (:func:`check_memory`) with its ``split`` under the time range
        ``bounds``; a :class:`Memory` without a split is returned as it is, its default split
        resolved for ``bounds`` if not given, a given split checked against ``bounds``.

        Args:
            memory: M, an integer >= 0, or a :class:`Memory` already checked.
            split: (M_R, M_S), two integers >= 0 summing to M; None for the default.
            bounds: The run's time range (``Workload.bounds``); None when not known yet.

        Returns:
            The checked :class:`Memory`.

        Raises:
            ShedError: ``memory`` or ``memory_split`` out of range, or a split giving memory to a
                side the range never stores, naming the parameter.
        """
        if isinstance(memory, Memory):
            if split is None:
                if bounds is not None and memory.given:  # a split given for the window, run under a range
                    check_stored_split(memory.r, memory.s, bounds)
                if memory.given or bounds is None:
                    return memory
                return cls(memory.total, *default_split(memory.total, bounds), given=False)
            memory = memory.total
        return cls(*check_memory(memory, split, bounds), given=split is not None)

    @property
    def split(self) -> tuple[int, int]:
        """(M_R, M_S)."""
        return self.r, self.s


def default_warmup(window: int) -> int:
    """The paper's warmup, 2w (§4.1): every tuple that filled memory at start-up has expired."""
    return 2 * int(window)


@dataclass(frozen=True)
class Schedule:
    """For each tuple (in workload order): whether it entered memory, and the time step
    during which it left memory (it still joins the arrivals of that step).

    A tuple never admitted has ``left == arrival time``; one kept to expiry has
    ``left == time + w - 1``.
    """

    admitted: np.ndarray
    left: np.ndarray


@dataclass
class Optimum:
    """What every join family's offline optimum reports: ``outputs``, the most output any
    admit/evict schedule within the memory budget reaches, against ``exact``.
    :class:`shedding.offline.opt.OptResult` (equi- and band joins, by min-cost flow) and
    :class:`shedding.wjoin.opt.OptResult` (W-joins, by CP-SAT) extend it."""

    outputs: int
    exact: int

    @property
    def ratio(self) -> float:
        """outputs / EXACT (1.0 when EXACT is 0)."""
        return self.outputs / self.exact if self.exact else 1.0


@dataclass
class RunResult:
    """One policy on one workload: the figures every report shows."""

    policy: str
    outputs: int
    exact: int
    arm: int | None
    memory: int
    memory_r: int | None
    memory_s: int | None
    share_time: np.ndarray | None = None
    share_r: np.ndarray | None = None
    share_s: np.ndarray | None = None
    schedule: Schedule | None = None
    pairs: np.ndarray | None = None
    seconds: float = 0.0
    params: dict = field(default_factory=dict)
    #: HAZARD's guard's choice (:attr:`shedding.online.JoinOperator.guard_choice`), None otherwise
    guard: str | None = None
    #: ``group="auto"``: per side (R, S) the refits HAZARD ranked by each grouping (none or a column)
    group_choice: dict | None = None

    @property
    def ratio(self) -> float:
        """outputs / EXACT (1.0 when EXACT is 0)."""
        return self.outputs / self.exact if self.exact else 1.0

    def as_dict(self) -> dict:
        """The JSON row: policy, outputs, exact, ratio, arm and the parameters."""
        row = {
            "policy": self.policy,
            "outputs": int(self.outputs),
            "exact": int(self.exact),
            "ratio": round(self.ratio, 6),
            "arm": None if self.arm is None else int(self.arm),
            "memory": int(self.memory),
            "memory_r": self.memory_r,
            "memory_s": self.memory_s,
            "seconds": round(self.seconds, 4),
        }
        row.update(self.params)
        row.update({} if self.group_choice is None else {"group_choice": self.group_choice})
        return row
