"""Load shedding for the W-join: N streams, memory for at most M tuples over all buffers.

DGR'03's policies (Das, Gehrke, Riedewald, SIGMOD 2003, §3.3) carried to N streams:

* **PROB-N** (``prob``): a tuple's priority is the expected number of N-way results it takes part
  in, from the other streams' static key frequencies: for x of stream i with key v,
  ``prod_{j != i} lambda_j p_j(v) (2 b_ij + 1)``, the expected number of stream-j tuples with key v
  within x's window (rate ``lambda_j = n_j / T_j`` over the stream's time span, frequency ``p_j``),
  multiplied over the other streams as if they were independent.
* **LIFE-N** (``life``): PROB-N times the remaining lifetime ``a + reach_i - now``, where
  ``reach_i = max_j b_ij`` is how long a tuple of stream i can still be joined.
* **RAND** (``rand``): drop uniformly at random among the candidates (seeded).

Each has a fixed per-stream split (``M_i``; default ``M // N`` each, the remainder to the first
streams) and a variable split (suffix ``v``: ``probv``, ``lifev``, ``randv``). Priorities are exact
integers (every factor is multiplied by ``prod_j T_j``), so ties are exact: the lowest priority is
dropped first, then the older tuple, then the lower stream, then the lower seq.

The operator (:class:`ShedWJoin`, a per-item ``push``) processes tuples in (time, stream, seq)
order, as docs/wjoin.md states: join the arrival with memory, expire, then cut memory and the
arrival to the budget. Outputs are always a subset of the exact N-tuples, and with memory for every
unexpired tuple they are all of them.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from shedding.errors import ShedError
from shedding.online.policies import POLICIES as REGISTRY
from shedding.online.policies import WJOIN, names_for, require
from shedding.wjoin.hw import HWJoin
from shedding.wjoin.operator import Entry
from shedding.wjoin.streams import Streams, as_rows, check_compatible
from shedding.wjoin.windows import WindowSpec

#: the policies of the registry (:mod:`shedding.online.policies`) that run on the W-join
POLICIES = names_for(WJOIN)


def check_policy(name: str, also: Sequence[str] = ()) -> tuple[str, bool]:
    """(kind, variable split) of a policy name, the kind being its fixed-split name (rand, prob or
    life); ``also`` names more choices for the error message. A registry policy the W-join does
    not implement is refused naming the families it runs on."""
    key = name.strip().lower() if isinstance(name, str) else name
    if key not in POLICIES:
        if key in REGISTRY and not REGISTRY[key].replay:
            require(REGISTRY[key], WJOIN)
        raise ShedError(f"unknown {{param}} {name!r}; choose from {', '.join((*POLICIES, *also))}", param="policy")
    return REGISTRY[key].family, REGISTRY[key].variable


def fixed_split(memory: int, n: int, split: Sequence[int] | None = None) -> list[int]:
    """Validate M and the per-stream split (default ``M // N`` each, the remainder first)."""
    if isinstance(memory, bool) or not isinstance(memory, (int, np.integer)) or memory < 0:
        raise ShedError(f"{{param}} must be an integer >= 0 (a number of tuples), got {memory!r}", param="memory")
    m = int(memory)
    if split is None:
        return [m // n + (1 if i < m % n else 0) for i in range(n)]
    parts = [int(v) for v in split]
    if len(parts) != n:
        raise ShedError(f"{{param}} has {len(parts)} parts for {n} streams; give one per stream", param="memory_split")
    if min(parts) < 0 or sum(parts) != m:
        raise ShedError(f"{{param}} {','.join(map(str, parts))} must be >= 0 and sum to the memory {m}",
                        param="memory_split")
    return parts


def prob_priorities(streams: Streams, windows: WindowSpec) -> list[dict[int, int]]:
    """PROB-N priority per (stream, key), as exact integers (see the module docstring)."""
    n = streams.n
    span = [max(1, int(t[-1] - t[0]) + 1) if len(t) else 1 for t in streams.times]
    counts = []
    for k in streams.keys:
        values, c = np.unique(k, return_counts=True)
        counts.append(dict(zip(values.tolist(), c.tolist())))
    out = []
    for i in range(n):
        prio = {}
        for v in counts[i]:
            p = span[i]
            for j in range(n):
                if j != i:
                    p *= counts[j].get(v, 0) * (2 * int(windows.bounds[i, j]) + 1)
            prio[v] = p
        out.append(prio)
    return out


@dataclass
class ShedResult:
    """A policy's run: its results against the exact W-join."""

    policy: str
    outputs: int
    exact: int
    memory: int
    split: list[int] | None
    dropped: int
    results: np.ndarray = field(repr=False)

    @property
    def ratio(self) -> float:
        return self.outputs / self.exact if self.exact else 1.0

    def as_dict(self) -> dict:
        return {"policy": self.policy, "outputs": self.outputs, "exact": self.exact,
                "ratio": round(self.ratio, 6), "memory": self.memory, "split": self.split,
                "dropped": self.dropped}


class ShedWJoin(HWJoin):
    """A hash W-join holding at most ``memory`` tuples, shedding by ``policy`` (DGR's §3.3
    policies carried to N streams, see the module docstring).

    Args:
        windows: The window constraints (:class:`~shedding.wjoin.windows.WindowSpec`).
        memory: M, the tuples held at once over all buffers (an integer >= 0).
        policy: One of :data:`POLICIES`: ``rand``, ``prob``, ``life`` (fixed split) or
            ``randv``, ``probv``, ``lifev`` (variable split).
        memory_split: M_i per stream, summing to ``memory``; default ``M // N`` each, the
            remainder to the first streams.
        priorities: ``priorities[i][v]`` is the PROB-N priority of stream i's key v (required
            for PROB and LIFE, see :func:`prob_priorities`; None for RAND).
        seed: The seed of RAND's draws.

    Raises:
        ShedError: An unknown ``policy`` or a bad ``memory`` (naming it in ``param``), a split
            of the wrong length or sum, or PROB and LIFE without ``priorities``.
    """

    def __init__(self, windows: WindowSpec, memory: int, policy: str = "prob", *,
                 memory_split: Sequence[int] | None = None, priorities: list[dict[int, int]] | None = None,
                 seed: int = 0) -> None:
        super().__init__(windows)
        self.kind, self.variable = check_policy(policy)
        self.policy = policy.strip().lower()
        self.caps = fixed_split(memory, self.n, memory_split)
        self.memory = sum(self.caps)
        self.seeded = REGISTRY[self.policy].seed  # draws its victims at random (RAND)
        if not self.seeded and priorities is None:
            raise ShedError(f"policy {policy} needs key priorities; pass priorities=prob_priorities(streams, windows)")
        self._prio = priorities
        self._reach_of = [windows.reach(i) for i in range(self.n)]
        self._rng = np.random.default_rng(seed)
        self._fifo: list[deque[Entry]] = [deque() for _ in range(self.n)]  # admitted, in arrival order
        self._gone: set[tuple[int, int]] = set()          # evicted (stream, seq), skipped by expiry
        self._held = [0] * self.n
        self._now: int | None = None
        self.dropped = 0

    def push(self, stream: int, time: int, key: int) -> list[tuple[int, ...]]:
        if self._now is not None and time < self._now:
            raise ShedError(f"the shedding operator takes tuples in time order; got time {time} after {self._now}")
        self._now = int(time)
        return super().push(stream, time, key)

    def _arrive(self, stream: int, seq: int, time: int, key: int) -> list[tuple[int, ...]]:
        buckets = self.buckets
        empty: tuple[Entry, ...] = ()
        out = self._join(stream, seq, time, key, lambda j: buckets[j].get(key, empty))
        self._expire(time)
        self._admit(stream, (time, key, seq))
        return out

    def _expire(self, now: int) -> None:
        for i, fifo in enumerate(self._fifo):  # a stream's tuples expire in its arrival order
            edge = now - self._reach_of[i]
            while fifo and fifo[0][0] < edge:
                entry = fifo.popleft()
                if (i, entry[2]) in self._gone:
                    self._gone.discard((i, entry[2]))
                else:
                    self._remove(i, entry)

    def _remove(self, i: int, entry: Entry) -> None:
        bucket = self.buckets[i][entry[1]]
        if bucket[0] is entry:
            bucket.popleft()
        else:
            bucket.remove(entry)
        if not bucket:
            del self.buckets[i][entry[1]]
        self._held[i] -= 1

    def _admit(self, stream: int, entry: Entry) -> None:
        bucket = self.buckets[stream].get(entry[1])
        if bucket is None:
            bucket = self.buckets[stream][entry[1]] = deque()
        bucket.append(entry)
        self._held[stream] += 1
        self._fifo[stream].append(entry)
        scope = range(self.n) if self.variable else (stream,)
        held = sum(self._held[i] for i in scope)
        cap = self.memory if self.variable else self.caps[stream]
        if held > cap:
            i, victim = self._victim(scope, held)
            self._remove(i, victim)
            self._gone.add((i, victim[2]))
            self.dropped += 1

    def _victim(self, scope: Sequence[int], held: int) -> tuple[int, Entry]:
        if self.seeded:
            r = int(self._rng.integers(held))
            for i in scope:
                for bucket in self.buckets[i].values():
                    if r < len(bucket):
                        return i, bucket[r]
                    r -= len(bucket)
        best: tuple | None = None
        now, life = self._now or 0, self.kind == "life"
        for i in scope:
            prio, reach = self._prio[i], self._reach_of[i]  # type: ignore[index]
            for key, bucket in self.buckets[i].items():
                t, _, seq = bucket[0]  # the oldest of a class has the lowest priority in it
                p = prio.get(key, 0) * ((t + reach - now) if life else 1)
                rank = (p, t, i, seq)
                if best is None or rank < best[0]:
                    best = (rank, i, bucket[0])
        assert best is not None
        return best[1], best[2]

    def _drop(self, stream: int, entry: Entry) -> None:  # pragma: no cover - expiry is by time here
        raise AssertionError("the shedding operator expires tuples by time, not by the HW purge")

    def _purge_others(self, stream: int) -> None:
        """Expiry is by the clock (:meth:`_expire`), not HW's per-stream purge."""


def shed_wjoin(streams: Streams, windows: WindowSpec, memory: int, policy: str = "prob", *,
               memory_split: Sequence[int] | None = None, seed: int = 0, exact: int | None = None) -> ShedResult:
    """Run one policy over ``streams`` in arrival order; compare with the exact count.

    Args:
        streams: The N streams (:class:`~shedding.wjoin.streams.Streams`).
        windows: The window constraints (:class:`~shedding.wjoin.windows.WindowSpec`).
        memory: M, the tuples held at once over all buffers (an integer >= 0).
        policy: One of :data:`POLICIES` (see :class:`ShedWJoin`).
        memory_split: M_i per stream, summing to ``memory``; default ``M // N`` each.
        seed: The seed of RAND's draws.
        exact: The exact count, when known; computed here when None.

    Returns:
        A :class:`ShedResult`: outputs, the exact count, the memory and split, the tuples
        dropped and the results produced.

    Raises:
        ShedError: An unknown ``policy``, a bad ``memory`` or split, or streams that do not
            match the windows.
    """
    from shedding.wjoin.exact import exact_count
    from shedding.wjoin.operator import run

    check_compatible(streams, windows.n)
    kind, variable = check_policy(policy)
    prio = None if REGISTRY[policy.strip().lower()].seed else prob_priorities(streams, windows)
    op = ShedWJoin(windows, memory, policy, memory_split=memory_split, priorities=prio, seed=seed)
    rows = run(op, streams)
    total = exact_count(streams, windows) if exact is None else exact
    return ShedResult(op.policy, len(rows), total, op.memory, None if variable else op.caps, op.dropped,
                      as_rows(rows, streams.n))
