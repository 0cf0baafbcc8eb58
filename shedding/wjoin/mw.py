"""MW-join: the merge W-join (Hammad, Aref, Elmagarmid 2002, §3.2, Figure 6).

MW sweeps the time axis: it processes tuples in timestamp order, merging the streams. Arriving
tuples wait in per-stream input queues until every stream has reached their time (or said so with
:meth:`~shedding.wjoin.operator.WJoinOperator.advance`, or the streams end); input is never
refused, so a silent stream delays output but blocks no other stream's input.

When a tuple x at time t is processed, every buffered tuple is at most t, and:

* **Mode 1** drops from each buffer the tuples left of the period, those more than the stream's
  widest bound before t (no tuple processed later can join them), and looks for a starting
  N-tuple: if some other stream's buffer is empty, x completes nothing;
* **Mode 2** is a nested loop over the other streams' buffers that tests only the join predicate.
  With one window w for every pair (Form 1) every buffered tuple lies in ``[t - w, t]``, so all of
  them are within w of x and of each other: "no repeated verification for the window inclusion is
  necessary". With per-pair windows (Forms 2 and 3, the local conservative approach of §5.1)
  the buffers keep each stream's widest window and Mode 2 also tests the period.

Then x joins its own buffer.
"""

from __future__ import annotations

from collections import deque

from .operator import Entry, WJoinOperator


class MWJoin(WJoinOperator):
    """Merge W-join; see :mod:`shedding.wjoin.operator` for the shared semantics."""

    name = "mw"

    def __init__(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003 - the base class's
        super().__init__(*args, **kwargs)
        self.queues: list[deque[Entry]] = [deque() for _ in range(self.n)]
        self._reach = [max(self._period[i][j] for j in self._others[i]) for i in range(self.n)]
        self._blind = self.windows.uniform_bound is not None

    def _arrive(self, stream: int, seq: int, time: int, key: int) -> list[tuple[int, ...]]:
        self.queues[stream].append((time, key, seq))
        return self._release()

    def advance(self, stream: int, time: int) -> list[tuple[int, ...]]:
        self._clock(stream, time)
        return self._release()

    def finish(self) -> list[tuple[int, ...]]:
        return self._release(float("inf"))

    @property
    def buffered(self) -> int:
        """Tuples held, in the join buffers and waiting in the input queues."""
        return super().buffered + sum(len(q) for q in self.queues)

    def _release(self, mark: float | None = None) -> list[tuple[int, ...]]:
        """Process, in (time, stream) order, every queued tuple no stream can still precede."""
        if mark is None:
            if any(last is None for last in self._last):
                return []
            mark = min(self._last)  # type: ignore[type-var]
        out: list[tuple[int, ...]] = []
        queues = self.queues
        while True:
            best = -1
            for i in range(self.n):
                q = queues[i]
                if q and q[0][0] <= mark and (best < 0 or q[0][0] < queues[best][0][0]):
                    best = i
            if best < 0:
                return out
            time, key, seq = queues[best].popleft()
            out.extend(self._process(best, seq, time, key))

    def _process(self, stream: int, seq: int, time: int, key: int) -> list[tuple[int, ...]]:
        buffers = self.buffers
        ready = True
        for j in range(self.n):  # Mode 1: drop what lies left of every later period
            buf = buffers[j]
            edge = time - self._reach[j]
            while buf and buf[0][0] < edge:
                buf.popleft()
            if j != stream and not buf:
                ready = False
        out = self._join(stream, seq, time, key, lambda j: buffers[j], test_window=not self._blind) if ready else []
        buffers[stream].append((time, key, seq))
        return out
