"""MW-join: the merge W-join (Hammad, Aref, Elmagarmid 2002, §3.2, Figure 6).

MW sweeps the time axis: it processes tuples in timestamp order, merging the streams. Arriving
tuples wait in the input queue (one heap over all streams, ordered by (time, stream, seq)) until
every stream has reached their time (or said so with
:meth:`~shedding.wjoin.operator.WJoinOperator.advance`, or the streams end); input is never
refused, so a silent stream delays output but blocks no other stream's input.

When a tuple x at time t is processed, every buffered tuple is at most t, and:

* **Mode 1** drops from each buffer the tuples left of the period, those more than the stream's
  widest bound before t (no tuple processed later can join them), and looks for a starting
  N-tuple: if some other stream's buffer is empty, x completes nothing;
* **Mode 2** is a nested loop over the other streams' buffers that tests only the join predicate.
  With one window w for every pair (Form 1) every buffered tuple lies in ``[t - w, t]``, so all of
  them are within w of x and of each other: "no repeated verification for the window inclusion is
  necessary". The key test of a stream-j tuple then does not depend on the members chosen for the
  other streams, so each buffer is scanned once and the loop runs over the product of the tuples
  that passed (NLW re-scans buffer j for every partial N-tuple). With per-pair windows (Forms 2
  and 3, the local conservative approach of §5.1) the buffers keep each stream's widest window and
  Mode 2 is the shared period-testing nested loop; with a key band (a non-equi predicate) the key
  test depends on the members chosen, so Mode 2 is the shared nested loop with its key period
  (without window tests in Form 1).

Then x joins its own buffer.
"""

from __future__ import annotations

from heapq import heappop, heappush
from itertools import product

from shedding.wjoin.operator import WJoinOperator


class MWJoin(WJoinOperator):
    """Merge W-join; see :mod:`shedding.wjoin.operator` for the shared semantics."""

    name = "mw"

    def __init__(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003 - the base class's
        super().__init__(*args, **kwargs)
        # the input queues as one heap of (time, stream, seq, key): the merge pops the smallest
        self._queue: list[tuple[int, int, int, int]] = []
        self._started = False  # every stream has sent or punctuated something
        self._reach = [max(self._period[i][j] for j in self._others[i]) for i in range(self.n)]
        self._blind = self.windows.uniform_bound is not None
        self._product = self._blind and self.key_band == 0 and self._times_ok is None

    def _arrive(self, stream: int, seq: int, time: int, key: int) -> list[tuple[int, ...]]:
        heappush(self._queue, (time, stream, seq, key))
        return self._release()

    def advance(self, stream: int, time: int) -> list[tuple[int, ...]]:
        self._clock(stream, time)
        return self._release()

    def finish(self) -> list[tuple[int, ...]]:
        return self._release(float("inf"))

    @property
    def buffered(self) -> int:
        """Tuples held, in the join buffers and waiting in the input queues."""
        return super().buffered + len(self._queue)

    def _release(self, mark: float | None = None) -> list[tuple[int, ...]]:
        """Process, in (time, stream, seq) order, every queued tuple no stream can still precede."""
        if mark is None:
            if not self._started:
                if any(last is None for last in self._last):
                    return []
                self._started = True
            mark = min(last for last in self._last if last is not None)  # none is None once started
        out: list[tuple[int, ...]] = []
        queue = self._queue
        while queue and queue[0][0] <= mark:
            time, stream, seq, key = heappop(queue)
            out.extend(self._process(stream, seq, time, key))
        return out

    def _process(self, stream: int, seq: int, time: int, key: int) -> list[tuple[int, ...]]:
        buffers, reach = self.buffers, self._reach
        ready = True
        for j in range(self.n):  # Mode 1: drop what lies left of every later period
            buf = buffers[j]
            edge = time - reach[j]
            while buf and buf[0][0] < edge:
                buf.popleft()
            if not buf and j != stream:
                ready = False
        if not ready:
            out: list[tuple[int, ...]] = []
        elif self._product:
            out = self._mode2(stream, seq, key)
        else:
            out = self._join(stream, seq, time, key, lambda j: buffers[j], test_window=not self._blind)
        buffers[stream].append((time, key, seq))
        return out

    def _mode2(self, stream: int, seq: int, key: int) -> list[tuple[int, ...]]:
        """Mode 2 of Form 1: the nested loop over the other buffers, testing only the key.

        Every buffered tuple is within w of x and of each other, and whether a tuple of stream j
        passes the key test does not depend on the members chosen for the other streams; so each
        buffer is scanned once, and the nested loop runs over the tuples that passed (their
        product) instead of re-testing buffer j for every partial N-tuple."""
        buffers = self.buffers
        members: list = [None] * self.n
        members[stream] = (seq,)
        for j in self._others[stream]:
            match = [s for _, k, s in buffers[j] if k == key]
            if not match:
                return []
            members[j] = match
        rows = product(*members)
        predicate = self._predicate
        return list(rows) if predicate is None else [r for r in rows if predicate(r)]
