"""MW-join as the paper describes it (Hammad, Aref, Elmagarmid 2002, §3.2, Figure 6; §5.1 for GCA
and LCA): Mode 1 sweeps the time axis to the *starting N-tuple* and its period v, Mode 2 admits the
tuples that fall inside v and joins each with nested loops over the other buffers.

Each stream has an input queue (tuples pushed but not yet admitted) and a join buffer (admitted
tuples). The *head* of a stream is the first tuple of its buffer, or of its queue when the buffer
is empty. Stream j's window in the period is ``W_j``: the single window w (Form 1), the widest
window for every stream (the global conservative approach, GCA) or stream j's widest window (the
local conservative approach, LCA: "the maximum local window for each stream", §5.1), in the
complete constraint graph of §5.2: the windows as given, and the shortest-path bound for a
missing pair.

* **Mode 1** ("a plane sweep ... to locate the first N-tuples at window distance w from each
  other"): starting from one stream's head, the streams are visited in cyclic order and each head
  is tested against the period ``[TS_max - W_j, TS_min + W_j]`` of the heads taken so far (two
  comparisons). A head left of the period is dropped (it is more than a window before the head of
  a stream whose later tuples are later still, so it joins nothing) and the stream's next head is
  tested; a head right of the period discards it, and a new period starts at that head, which
  becomes the starting stream; a head inside joins the period. The head at ``TS_min`` of a
  discarded period is more than ``W_j`` before the new head and every later tuple of its stream,
  so it joins nothing either: it is dropped at once (the paper drops it when the sweep next
  reaches its stream, as a head left of the period; with one window both orders leave the same
  heads, and with per-stream windows dropping it at once keeps the sweep from cycling). When every stream has a head in the
  period, the heads are the starting N-tuple and the period is v. The join predicate is not tested.
* **Mode 2**: the heads that were still in their input queues are admitted one at a time, then
  the streams' queues in round-robin order ("A, B, C, D, E, A, ..."): a queued tuple is admitted
  only if it lies inside v, else its stream waits until the next Mode 2 ("Mode 2 does not block
  waiting for tuples to arrive at a specific stream, rather, it considers another stream
  meanwhile"); v's left end needs no test, as a queued tuple is not before its stream's head
  (with per-stream windows a tuple left of it is admitted too and the refinement sorts it out).
  Each admitted tuple is joined with every tuple in the other buffers by nested loops
  that test only the join predicate ("Mode 2, blindly tests the join predicate with all tuples
  currently in the join buffer"): every buffered tuple of stream j lies in ``[TS_min, TS_min +
  W_j]``, so with one window no window test is needed. Mode 2 stops when the next tuple of every
  stream is right of v; the head at ``TS_min`` is then dropped (every later tuple of every stream j
  is more than ``W_j`` after it, and every N-tuple of buffered tuples has been produced), and
  Mode 1 restarts.

With per-pair windows (Forms 2 and 3, GCA or LCA) the N-tuples of Mode 2 are refined against the
closure bounds (§5.1: "the refinement step is performed to the output"). Each N-tuple is produced
once, when its last member is admitted.

The paper runs over streams that are all available. Online, a stream whose queue is empty stops
the sweep until it sends a tuple, says how far its clock has gone
(:meth:`~shedding.wjoin.operator.WJoinOperator.advance`: every queued tuple more than ``W_j``
before that clock is dropped), or the streams end (:meth:`finish`).

The paper's Mode 2 verifies "the join predicate for the starting N_tuples only if it includes new
tuples". Here every head that enters the buffer is joined with all the other buffers, as every
tuple Mode 2 admits is: with one tuple in every other buffer (the first Mode 2) that is exactly
the starting N-tuple, and later it also finds the N-tuples of a new head with tuples admitted in an
earlier Mode 2, which the definition counts.
"""

from __future__ import annotations

from collections import deque

from shedding.wjoin.operator import Entry, WJoinOperator


class PaperMWJoin(WJoinOperator):
    """Merge W-join with Mode 1 and Mode 2 as in the paper's Figure 6; see the module docstring."""

    name = "mw-paper"

    def __init__(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003 - the base class's
        super().__init__(*args, **kwargs)
        complete = self._complete()
        if self.approach == "global":
            self._w = [max(max(row) for row in complete)] * self.n
        else:
            self._w = [max(complete[i][j] for j in self._others[i]) for i in range(self.n)]
        # GCA and LCA refine (§5.1), unless every stream's window is the one bound of every pair
        self._refine = any(w != self.windows.uniform_bound for w in self._w)
        self.queues: list[deque[Entry]] = [deque() for _ in range(self.n)]
        self._ended = False
        self._mode2 = False
        # Mode 1: the streams with a head in the period, its TS_min and TS_max, the stream to test
        self._taken = 0
        self._low = self._high = self._lowest = 0  # TS_min, TS_max, the stream of the head at TS_min
        self._cursor = 0
        # Mode 2: the streams whose next tuple is right of v, and the stream to visit next
        self._closed = [False] * self.n
        self._turn = 0

    def _complete(self) -> list[list[int]]:
        """The complete constraint graph of §5.2: each given window as given, the shortest-path
        bound for a missing pair only ("the GCA considers the 1 sec window as the fixed-size
        window", §5.3, though a path through other streams may imply less)."""
        given, b = self.windows.given, self.windows.bounds
        return [[0 if i == j else given.get((min(i, j), max(i, j)), int(b[i, j])) for j in range(self.n)]
                for i in range(self.n)]

    @property
    def buffered(self) -> int:
        """Tuples held, in the join buffers and the input queues."""
        return super().buffered + sum(len(q) for q in self.queues)

    def _arrive(self, stream: int, seq: int, time: int, key: int) -> list[tuple[int, ...]]:
        self.queues[stream].append((time, key, seq))
        return self._sweep()

    def advance(self, stream: int, time: int) -> list[tuple[int, ...]]:
        self._clock(stream, time)
        return self._sweep()

    def finish(self) -> list[tuple[int, ...]]:
        self._ended = True
        return self._sweep()

    # -- the two modes ----------------------------------------------------------------------------
    def _head(self, j: int) -> Entry | None:
        buf = self.buffers[j]
        if buf:
            return buf[0]
        queue = self.queues[j]
        return queue[0] if queue else None

    def _pop_head(self, j: int) -> None:
        (self.buffers[j] if self.buffers[j] else self.queues[j]).popleft()

    def _sweep(self) -> list[tuple[int, ...]]:
        """Run Mode 1 and Mode 2 in turn as far as the input allows."""
        out: list[tuple[int, ...]] = []
        while True:
            if not self._mode2:
                if not self._mode1():
                    return out
                self._start_mode2(out)
            if not self._run_mode2(out):
                return out
            self._mode2 = False
            self.buffers[self._lowest].popleft()  # the head at TS_min joins no later tuple
            self._taken, self._cursor = 0, self._lowest

    def _mode1(self) -> bool:
        """Advance the plane sweep; True once the starting N-tuple is found."""
        n, w = self.n, self._w
        while self._taken < n:
            j = self._cursor
            head = self._head(j)
            if head is None:
                self._wait_for(j)
                return False
            t = head[0]
            if self._taken and t > self._low + w[j]:  # right of the period: TS_min joins nothing
                self._pop_head(self._lowest)
                self._taken = 0
            if self._taken == 0:  # a new period starts at this head
                self._taken, self._low, self._high, self._lowest = 1, t, t, j
            elif t < self._high - w[j]:  # left of the period: joins nothing
                self._pop_head(j)
                continue
            else:
                self._taken += 1
                if t < self._low:
                    self._low, self._lowest = t, j
                self._high = max(self._high, t)
            self._cursor = j + 1 if j + 1 < n else 0
        return True

    def _wait_for(self, j: int) -> None:
        """Stream j has no head: drop every other head more than a window before j's clock."""
        clock = self._last[j]
        if self._ended:
            for i in range(self.n):
                self.buffers[i].clear()
                self.queues[i].clear()
            return
        if clock is None:
            return
        for i in self._others[j]:
            edge = clock - self._w[i]
            head = self._head(i)
            while head is not None and head[0] < edge:
                self._pop_head(i)
                head = self._head(i)
        self._taken = 0

    def _start_mode2(self, out: list[tuple[int, ...]]) -> None:
        """Admit the heads of the starting N-tuple that were still queued."""
        self._mode2 = True
        self._closed = [False] * self.n
        self._turn = self._cursor
        for j in range(self.n):
            if not self.buffers[j]:
                self._admit(j, out)

    def _run_mode2(self, out: list[tuple[int, ...]]) -> bool:
        """Admit queued tuples inside v round robin; True once every stream's next tuple is right of v."""
        n, w, low, closed = self.n, self._w, self._low, self._closed
        waiting = 0
        while waiting < n:
            j = self._turn
            self._turn = j + 1 if j + 1 < n else 0
            if closed[j]:
                waiting += 1
                continue
            queue = self.queues[j]
            if queue:
                if queue[0][0] <= low + w[j]:
                    self._admit(j, out)
                    waiting = 0
                    continue
                closed[j] = True
            elif self._ended or ((last := self._last[j]) is not None and last > low + w[j]):
                closed[j] = True
            waiting += 1
        return all(closed)

    def _admit(self, j: int, out: list[tuple[int, ...]]) -> None:
        """Move stream j's next queued tuple to its buffer, joining it with the other buffers."""
        entry = self.queues[j].popleft()
        buffers = self.buffers
        for i in self._others[j]:
            if not buffers[i]:
                break
        else:
            out.extend(self._join(j, entry[2], entry[0], entry[1], buffers.__getitem__, test_window=False))
        buffers[j].append(entry)
