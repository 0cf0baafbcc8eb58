"""HW-join: the hash W-join (Hammad, Aref, Elmagarmid 2002, §3.1.2).

As NLW, but every stream also keeps a hash table from join key to its tuples (in arrival order),
and a new tuple probes only the bucket of its own key in each other stream instead of scanning the
whole buffer; when some other stream has no bucket for the key, the tuple completes nothing and
the probe stops there. Equality predicates only.

The paper purges a probed bucket as it goes and calls an update routine for rarely probed buckets.
Here the arrival-ordered buffer is the one expiry list: a tuple purged from its front is also at
the front of its bucket (both are in arrival order), so every bucket is kept current in O(1) per
purged tuple and no periodic scan is needed.
"""

from __future__ import annotations

from collections import deque

from shedding.errors import ShedError
from shedding.wjoin.operator import Entry, WJoinOperator


class HWJoin(WJoinOperator):
    """Hash W-join; see :mod:`shedding.wjoin.operator` for the shared semantics."""

    name = "hw"

    def __init__(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003 - the base class's
        super().__init__(*args, **kwargs)
        if self.key_band:
            raise ShedError(f"HW is a hash join, for equal keys only: {{param}} must be 0, got {self.key_band}; "
                            f"use nlw or mw for a key band", param="key_band")
        self.buckets: list[dict[int, deque[Entry]]] = [{} for _ in range(self.n)]

    def _arrive(self, stream: int, seq: int, time: int, key: int) -> list[tuple[int, ...]]:
        self._purge_others(stream)
        buckets = self.buckets
        probes = [buckets[j].get(key) for j in self._others[stream]]
        out = [] if None in probes else self._join(stream, seq, time, key, lambda j: buckets[j][key])
        entry = (time, key, seq)
        self.buffers[stream].append(entry)
        bucket = buckets[stream].get(key)
        if bucket is None:
            bucket = buckets[stream][key] = deque()
        bucket.append(entry)
        return out

    def _drop(self, stream: int, entry: Entry) -> None:
        bucket = self.buckets[stream][entry[1]]
        bucket.popleft()
        if not bucket:
            del self.buckets[stream][entry[1]]
