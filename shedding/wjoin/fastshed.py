"""A compiled count of W-join load shedding for Form 1 (one window w for every pair).

The same policies and semantics as :class:`shedding.wjoin.loadshed.ShedWJoin` (docs/wjoin.md),
counting the results instead of listing them. With one window and arrivals in time order, every
tuple still in memory when x arrives at time t lies in ``[t - w, t]`` once the expired ones are
gone, so all of them are within w of x and of each other: x completes
``prod_{j != i} |memory of stream j with x's key|`` results, an O(N) product (MW's observation,
Hammad et al. 2002, §3.2). Expiring before the join instead of after changes nothing: a tuple that
expires at t cannot join x.

Memory is a node pool: per (stream, key) class a FIFO list (its oldest tuple is the class's
lowest priority under PROB-N and LIFE-N), per stream a FIFO list for expiry, a dense array for
RAND's uniform draw and a dense list of its non-empty classes. A victim of PROB-N or LIFE-N is
found by scanning the oldest tuple of every non-empty class in scope: at most min(M, N x keys)
per eviction. Priorities are float64 here, exact (so ties agree with the reference)
while they stay below 2**53.

RAND draws from numba's generator, seeded by ``seed``, so its choices differ from the reference
operator's (both uniform).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from shedding.errors import ShedError
from shedding.jit import njit
from shedding.online.policies import POLICIES as REGISTRY
from shedding.wjoin.loadshed import check_policy, fixed_split, prob_priorities, shed_wjoin
from shedding.wjoin.streams import Streams, check_compatible
from shedding.wjoin.windows import WindowSpec

_RAND, _PROB, _LIFE = 0, 1, 2
_KINDS = {"rand": _RAND, "prob": _PROB, "life": _LIFE}


def shed_count(streams: Streams, windows: WindowSpec, memory: int, policy: str = "prob", *,
               memory_split: Sequence[int] | None = None, seed: int = 0) -> tuple[int, int]:
    """(results produced, tuples dropped) of ``policy`` with at most ``memory`` tuples (Form 1)."""
    check_compatible(streams, windows.n)
    w = windows.uniform_bound
    if w is None:
        raise ShedError("the compiled shedding count needs one window for every pair (Form 1); "
                        "use shed_wjoin for per-pair windows")
    kind, variable = check_policy(policy)
    caps = np.array(fixed_split(memory, streams.n, memory_split), dtype=np.int64)
    n = streams.n
    stream, seq = streams.arrival_order()
    keys = np.concatenate(streams.keys)
    values, rank = np.unique(keys, return_inverse=True)
    offsets = np.concatenate([[0], np.cumsum(streams.lengths())])
    ev_rank = rank.reshape(-1)[offsets[stream] + seq].astype(np.int64)
    ev_time = np.concatenate(streams.times)[offsets[stream] + seq].astype(np.int64)
    prio = np.zeros((n, max(len(values), 1)), dtype=np.float64)
    if not REGISTRY[policy.strip().lower()].seed:  # RAND draws; the others rank by PROB-N's priorities
        for i, table in enumerate(prob_priorities(streams, windows)):
            for r, v in enumerate(values.tolist()):
                prio[i, r] = float(table.get(v, 0))
    outputs, dropped = _run(stream.astype(np.int64), ev_time, ev_rank, seq.astype(np.int64), n,
                            max(len(values), 1), int(w), _KINDS[kind], variable, caps, int(caps.sum()), prio, int(seed))
    return int(outputs), int(dropped)


def shed_outputs(streams: Streams, windows: WindowSpec, memory: int, policy: str = "prob", *,
                 memory_split: Sequence[int] | None = None, seed: int = 0,
                 exact: int | None = None) -> tuple[int, int]:
    """The counts of ``policy`` with at most ``memory`` tuples, by the fastest exact way: the
    compiled count (:func:`shed_count`) for one window for every pair, the shedding operator
    (:func:`shedding.wjoin.loadshed.shed_wjoin`, given the ``exact`` count if known) for
    per-pair windows. Both give the same counts where both apply (RAND's draws aside).

    Args:
        streams: The N streams (:class:`~shedding.wjoin.streams.Streams`).
        windows: The window constraints (:class:`~shedding.wjoin.windows.WindowSpec`).
        memory: M, the tuples held at once over all buffers (an integer >= 0).
        policy: A W-join policy (:data:`shedding.wjoin.loadshed.POLICIES`).
        memory_split: M_i per stream, summing to ``memory``; default ``M // N`` each.
        seed: The seed of RAND's draws.
        exact: The exact count, when known (used by the operator only).

    Returns:
        (results produced, tuples dropped).

    Raises:
        ShedError: An unknown ``policy``, a bad ``memory`` or split, or streams that do not
            match the windows.
    """
    if windows.uniform_bound is not None:
        return shed_count(streams, windows, memory, policy, memory_split=memory_split, seed=seed)
    res = shed_wjoin(streams, windows, memory, policy, memory_split=memory_split, seed=seed, exact=exact)
    return res.outputs, res.dropped


@njit
def _run(ev_stream, ev_time, ev_rank, ev_seq, n, n_keys, w, kind, variable, caps, memory, prio, seed):  # pragma: no cover
    np.random.seed(seed)
    size = memory + 1
    time = np.zeros(size, np.int64)
    strm = np.zeros(size, np.int64)
    rank = np.zeros(size, np.int64)
    sq = np.zeros(size, np.int64)
    c_prev = np.full(size, -1, np.int64)
    c_next = np.full(size, -1, np.int64)
    s_prev = np.full(size, -1, np.int64)
    s_next = np.full(size, -1, np.int64)
    pos = np.zeros(size, np.int64)
    c_head = np.full(n * n_keys, -1, np.int64)
    c_tail = np.full(n * n_keys, -1, np.int64)
    c_size = np.zeros(n * n_keys, np.int64)
    s_head = np.full(n, -1, np.int64)
    s_tail = np.full(n, -1, np.int64)
    held = np.zeros(n, np.int64)
    slots = np.zeros((n, size), np.int64)
    act = np.zeros((n, n_keys), np.int64)  # per stream, its non-empty key classes (dense, unordered)
    act_n = np.zeros(n, np.int64)
    apos = np.zeros(n * n_keys, np.int64)
    free = np.arange(size - 1, -1, -1).astype(np.int64)
    n_free = size
    outputs = 0
    dropped = 0
    for e in range(len(ev_time)):
        i, t, k = ev_stream[e], ev_time[e], ev_rank[e]
        for j in range(n):  # expire: these can join neither x nor any later arrival
            while s_head[j] >= 0 and time[s_head[j]] + w < t:
                n_free = _remove(s_head[j], time, strm, rank, c_prev, c_next, s_prev, s_next, pos, c_head, c_tail,
                                 c_size, s_head, s_tail, held, slots, free, n_free, n_keys, act, act_n, apos)
        ways = 1
        for j in range(n):
            if j != i:
                ways *= c_size[j * n_keys + k]
        outputs += ways
        # admit x, then cut its partition (or all of memory) back to the budget
        n_free -= 1
        x = free[n_free]
        time[x], strm[x], rank[x], sq[x] = t, i, k, ev_seq[e]
        c = i * n_keys + k
        _append(x, c, c_prev, c_next, c_head, c_tail)
        c_size[c] += 1
        if c_size[c] == 1:
            act[i, act_n[i]] = k
            apos[c] = act_n[i]
            act_n[i] += 1
        _append(x, i, s_prev, s_next, s_head, s_tail)
        slots[i, held[i]] = x
        pos[x] = held[i]
        held[i] += 1
        lo, hi = (0, n) if variable else (i, i + 1)
        total = 0
        for j in range(lo, hi):
            total += held[j]
        if total <= (memory if variable else caps[i]):
            continue
        victim = -1
        if kind == 0:
            r = np.random.randint(total)
            for j in range(lo, hi):
                if r < held[j]:
                    victim = slots[j, r]
                    break
                r -= held[j]
        else:
            bp, bt, bj, bs = 0.0, 0, 0, 0
            for j in range(lo, hi):
                for a in range(act_n[j]):
                    r = act[j, a]
                    y = c_head[j * n_keys + r]
                    p = prio[j, r] * ((time[y] + w - t) if kind == 2 else 1)
                    if victim < 0 or p < bp or (p == bp and (time[y] < bt or (time[y] == bt and (
                            j < bj or (j == bj and sq[y] < bs))))):
                        victim, bp, bt, bj, bs = y, p, time[y], j, sq[y]
        n_free = _remove(victim, time, strm, rank, c_prev, c_next, s_prev, s_next, pos, c_head, c_tail, c_size,
                         s_head, s_tail, held, slots, free, n_free, n_keys, act, act_n, apos)
        dropped += 1
    return outputs, dropped


@njit(inline="always")
def _remove(x, time, strm, rank, c_prev, c_next, s_prev, s_next, pos, c_head, c_tail, c_size, s_head, s_tail,
            held, slots, free, n_free, n_keys, act, act_n, apos):  # pragma: no cover - compiled
    j = strm[x]
    c = j * n_keys + rank[x]
    _unlink(x, c, c_prev, c_next, c_head, c_tail)
    c_size[c] -= 1
    if c_size[c] == 0:
        moved = act[j, act_n[j] - 1]
        act[j, apos[c]] = moved
        apos[j * n_keys + moved] = apos[c]
        act_n[j] -= 1
    _unlink(x, j, s_prev, s_next, s_head, s_tail)
    last = slots[j, held[j] - 1]
    slots[j, pos[x]] = last
    pos[last] = pos[x]
    held[j] -= 1
    free[n_free] = x
    return n_free + 1


@njit(inline="always")
def _append(x, lst, prev, nxt, head, tail):  # pragma: no cover - compiled
    """Append node x to the doubly linked list ``lst``."""
    prev[x], nxt[x] = tail[lst], -1
    if tail[lst] >= 0:
        nxt[tail[lst]] = x
    else:
        head[lst] = x
    tail[lst] = x


@njit(inline="always")
def _unlink(x, lst, prev, nxt, head, tail):  # pragma: no cover - compiled
    """Take node x out of the doubly linked list ``lst``."""
    if prev[x] >= 0:
        nxt[prev[x]] = nxt[x]
    else:
        head[lst] = nxt[x]
    if nxt[x] >= 0:
        prev[nxt[x]] = prev[x]
    else:
        tail[lst] = prev[x]
