"""NLW-join: the nested-loop W-join (Hammad, Aref, Elmagarmid 2002, §3.1 and §3.1.1, Figure 5).

Each stream keeps a buffer of its tuples in arrival order. A new tuple first purges the other
buffers (tuples more than a window before the newest tuple of every other stream, §3.1), then
iterates over *all* tuples of every other buffer in turn, keeping those inside the current period
that satisfy the join predicate (``IsIn`` and ``CheckJoinPredicate`` of Figure 5); each kept tuple
shrinks the period for the next stream. Finally the new tuple joins its own buffer.

Non-blocking: tuples are processed as they arrive, in any interleaving of the streams.
"""

from __future__ import annotations

from shedding.wjoin.operator import WJoinOperator


class NLWJoin(WJoinOperator):
    """Nested-loop W-join; see :mod:`shedding.wjoin.operator` for the shared semantics."""

    name = "nlw"

    def _arrive(self, stream: int, seq: int, time: int, key: int) -> list[tuple[int, ...]]:
        self._purge_others(stream)
        buffers = self.buffers
        out = self._join(stream, seq, time, key, lambda j: buffers[j])
        buffers[stream].append((time, key, seq))
        return out
