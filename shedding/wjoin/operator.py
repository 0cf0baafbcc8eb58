"""What NLW, HW and MW share: an online operator fed one tuple at a time.

An operator is a small object (river's spirit): :meth:`WJoinOperator.push` takes one tuple of one
stream and returns the N-tuples it completes. Streams may interleave in any way (each stream's own
timestamps non-decreasing); a silent stream never blocks the others' input. Every N-tuple is
returned exactly once, by the push of its last member to be processed (Hammad et al. 2002, §3.1:
"the output tuples of this iteration must include the new tuple, thus duplicate tuples cannot be
produced").

**Periods** (§3.1.1). While a candidate is built stream by stream, the next stream's members must
lie in the *period* ``[max_s t_s - P[s, j], min_s t_s + P[s, j]]`` over the members s chosen so far;
for Form 1 (``P = w``) that is the paper's ``[TS_max - w, TS_min + w]``. Two approaches for
Forms 2 and 3 (§5.1):

* ``local`` (default): ``P`` is the closure of the constraints, so the period test is exact;
* ``global`` (the paper's GCA): ``P`` is the widest bound everywhere (the filter), and every
  complete N-tuple is then checked against the closure (the refinement).

**Key predicates.** The join predicate is equality of the keys (``key_band = 0``, the paper's
"equality over objectID") or a band: the keys of every pair differ by at most ``key_band``, a
non-equi predicate for NLW and MW (§4.3: "hash joins is best used with equijoin, which is a
restricted case compared with NLW-join and MW-join"). A nested loop tests it as it tests the
window: the keys chosen so far leave a *key period* ``[max_s k_s - band, min_s k_s + band]`` for
the next member.

**Refinement.** ``refine`` (a test of a complete N-tuple's timestamps, in stream order) is applied
to every N-tuple before the user predicate: the path W-join's directed windows use it
(:mod:`shedding.wjoin.path`).

**Purging** (§3.1): a buffered tuple x of stream i is dropped once it is more than ``P[i, j]``
before the newest tuple of *every* other stream j: no later tuple of any stream can join it then.
A stream that has sent nothing keeps every other buffer (its first tuple may join any of them).
:meth:`WJoinOperator.advance` lets a silent stream say how far its clock has gone (a punctuation).
"""

from __future__ import annotations

from collections import deque
from typing import Callable, Iterable, Iterator, Sequence

import numpy as np

from shedding.errors import ShedError
from shedding.wjoin.predicates import Predicate, Refine, check_key_band
from shedding.wjoin.streams import Streams, as_rows, check_compatible
from shedding.wjoin.windows import WindowSpec

APPROACHES = ("local", "global")
Entry = tuple[int, int, int]  # (time, key, seq)


class WJoinOperator:
    """Base of the W-join operators (§3); subclasses define how a new tuple is joined and stored.

    Args:
        windows: The window constraints (:class:`~shedding.wjoin.windows.WindowSpec`).
        approach: ``local`` (each pair's closure bound, exact) or ``global`` (the paper's GCA:
            the widest bound everywhere, then a refinement); see the module docstring.
        predicate: A user predicate every result must also pass; None for none.
        key_band: Keys join within this distance (an integer >= 0; 0: equal keys).
        refine: A test of a result's times, for the operators that need one; None for none.

    Raises:
        ShedError: An unknown ``approach`` or a bad ``key_band`` (naming it in ``param``).
    """

    name = "base"

    def __init__(self, windows: WindowSpec, *, approach: str = "local", predicate: Predicate | None = None,
                 key_band: int = 0, refine: Refine | None = None) -> None:
        if approach not in APPROACHES:
            raise ShedError(f"unknown {{param}} {approach!r}; choose from {', '.join(APPROACHES)}", param="approach")
        self.key_band = check_key_band(key_band)
        self.windows = windows
        self.n = windows.n
        self.approach = approach
        bounds = windows.bounds.tolist()
        if approach == "local":
            self._period = bounds
        else:
            w = windows.widest
            self._period = [[0 if i == j else w for j in range(self.n)] for i in range(self.n)]
        self._bounds = bounds
        self._refine = approach == "global" and windows.uniform_bound is None
        self._predicate = predicate
        self._times_ok = refine
        self._others = [[j for j in range(self.n) if j != i] for i in range(self.n)]
        self._last: list[int | None] = [None] * self.n
        self._seq = [0] * self.n
        self.buffers: list[deque[Entry]] = [deque() for _ in range(self.n)]

    # -- the per-item method -------------------------------------------------------------------
    def push(self, stream: int, time: int, key: int) -> list[tuple[int, ...]]:
        """One tuple of ``stream``; returns the N-tuples (one seq per stream) it completes."""
        self._clock(stream, time)
        seq = self._seq[stream]
        self._seq[stream] = seq + 1
        return self._arrive(stream, seq, int(time), int(key))

    def advance(self, stream: int, time: int) -> list[tuple[int, ...]]:
        """Punctuation: ``stream`` will send nothing before ``time``. Lets buffers be purged (and MW
        release tuples) while a stream is silent; returns any N-tuples that completes."""
        self._clock(stream, time)
        self._purge_others(stream)
        return []

    def finish(self) -> list[tuple[int, ...]]:
        """End of all streams; returns any N-tuples still held back."""
        return []

    @property
    def buffered(self) -> int:
        """Tuples held in the join buffers."""
        return sum(len(b) for b in self.buffers)

    # -- shared machinery -----------------------------------------------------------------------
    def _clock(self, stream: int, time: int) -> None:
        if not 0 <= stream < self.n:
            raise ShedError(f"stream index {stream} is out of range; use 0..{self.n - 1}")
        last = self._last[stream]
        if last is not None and time < last:
            raise ShedError(f"stream {self.windows.names[stream]}: time goes backwards ({last} then {time}); "
                            f"feed each stream in time order")
        self._last[stream] = int(time)

    def _arrive(self, stream: int, seq: int, time: int, key: int) -> list[tuple[int, ...]]:
        raise NotImplementedError

    def _horizon(self, i: int) -> float:
        """Tuples of stream i before this time can join no later tuple (-inf while a stream is silent)."""
        h = float("inf")
        for j in self._others[i]:
            last = self._last[j]
            if last is None:
                return float("-inf")
            h = min(h, last - self._period[i][j])
        return h

    def _purge_others(self, stream: int) -> None:
        for i in self._others[stream]:
            h = self._horizon(i)
            buf = self.buffers[i]
            while buf and buf[0][0] < h:
                self._drop(i, buf.popleft())

    def _drop(self, stream: int, entry: Entry) -> None:
        """Hook for structures kept beside the buffers (HW's hash buckets)."""

    def _join(self, stream: int, seq: int, time: int, key: int,
              scan: Callable[[int], Iterable[Entry]], test_window: bool = True) -> list[tuple[int, ...]]:
        """All N-tuples of the new tuple with members from ``scan(j)`` of every other stream j,
        built stream by stream within the shrinking period (a nested loop, §3.1); without
        ``test_window`` the members are taken as they come (MW's Mode 2: the buffers hold only
        tuples within the window) and only the join predicate is tested."""
        n, period, others = self.n, self._period, self._others[stream]
        members = [0] * n
        members[stream] = seq
        times = [0] * n
        times[stream] = time
        out: list[tuple[int, ...]] = []
        last_level = len(others) - 1
        band = self.key_band
        equi = band == 0

        def rec(level: int, lo: list[float], hi: list[float], klo: int, khi: int) -> None:
            j = others[level]
            if test_window:
                a, b = lo[j], hi[j]
                row = period[j]
            for ty, ky, sy in scan(j):
                if (ky != key if equi else not klo <= ky <= khi) or (test_window and not a <= ty <= b):
                    continue
                members[j] = sy
                times[j] = ty
                if level == last_level:
                    if self._accept(members, times):
                        out.append(tuple(members))
                    continue
                nlo, nhi = (klo, khi) if equi else (max(klo, ky - band), min(khi, ky + band))
                if test_window:
                    rec(level + 1, [max(lo[k], ty - row[k]) for k in range(n)],
                        [min(hi[k], ty + row[k]) for k in range(n)], nlo, nhi)
                else:
                    rec(level + 1, lo, hi, nlo, nhi)

        row = period[stream]
        if test_window:
            rec(0, [time - row[k] for k in range(n)], [time + row[k] for k in range(n)], key - band, key + band)
        else:
            rec(0, [], [], key - band, key + band)
        return out

    def _accept(self, members: list[int], times: list[int]) -> bool:
        if self._refine:
            b = self._bounds
            for i in range(self.n):
                for j in range(i + 1, self.n):
                    if abs(times[i] - times[j]) > b[i][j]:
                        return False
        if self._times_ok is not None and not self._times_ok(times):
            return False
        return self._predicate is None or self._predicate(tuple(members))


def arrivals(streams: Streams, order: Sequence[int] | None = None) -> Iterator[tuple[int, int, int]]:
    """Every tuple of ``streams`` as ``(stream, time, key)`` in the interleaving ``order``: a
    sequence of stream indices, each stream's tuples taken in its own order (default: by
    timestamp, :meth:`Streams.arrival_order`)."""
    if order is None:
        order = streams.arrival_order()[0].tolist()
    elif np.bincount(np.asarray(order, dtype=np.int64), minlength=streams.n).tolist() != streams.lengths():
        raise ShedError("the interleaving must name every tuple of every stream exactly once")
    pos = [0] * streams.n
    times = [t.tolist() for t in streams.times]
    keys = [k.tolist() for k in streams.keys]
    for i in order:
        s = pos[i]
        pos[i] = s + 1
        yield i, times[i][s], keys[i][s]


def run(operator: WJoinOperator, streams: Streams, order: Sequence[int] | None = None) -> np.ndarray:
    """Run a W-join operator over whole streams.

    Args:
        operator: The operator (:class:`WJoinOperator`, any of its algorithms).
        streams: The N streams (:class:`~shedding.wjoin.streams.Streams`).
        order: The interleaving of the arrivals, the stream of each push in turn; None for
            time order (:func:`arrivals`).

    Returns:
        Every N-tuple the operator produced, as sorted rows of tuple indices.

    Raises:
        ShedError: ``streams`` of another N than the operator's.
    """
    check_compatible(streams, operator.n)
    out: list[tuple[int, ...]] = []
    for i, time, key in arrivals(streams, order):
        out.extend(operator.push(i, time, key))
    out.extend(operator.finish())
    return as_rows(out, streams.n)
