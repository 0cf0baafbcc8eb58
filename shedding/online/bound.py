"""How much any online policy can get on i.i.d. streams: an upper bound, to set against OPT.

On the paper's synthetic streams (Das, Gehrke, Riedewald 2003, §4: keys drawn i.i.d. per stream,
one R and one S tuple per step) the arrival at time t is independent of everything an online
policy knew when it chose its memory. So the expected output of any online policy (non-anticipating,
§3.3) at step t is the sum, over the tuples it holds, of their partner probability p (§3.3.1), plus
the same-batch pairs every policy produces. Relaxing "memory is what was kept" to "memory is any M
tuples still alive" gives, per step, the top-M sum of p over the live tuples: an upper bound on the
expected output of every online policy, whatever it learns (DUAL, a learned model, ...). OPT, which
sees the future, is not bound by it; the difference is the price of not knowing the future.

Under a time range ``lo <= s.time - r.time <= hi`` (docs/semantics.md, "Time range") the argument
is the same with each tuple's partner ages in place of the window: r(a) can meet the arrival of
step t only when ``max(lo, 1) <= t - a <= hi``, s(b) only when ``max(-hi, 1) <= t - b <= -lo``; a
tuple held outside them (waiting for its range to begin) earns nothing that step, so the top-M
over the tuples inside them still bounds every policy, and same-batch pairs exist only when
``lo <= 0 <= hi``.
"""

from __future__ import annotations

import numpy as np

from shedding.datasets.zipf import s_value_map, zipf_probabilities
from shedding.errors import ShedError
from shedding.model import Memory, Schedule, Workload


def key_probabilities(wl: Workload) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(keys, P_R(key), P_S(key)): the generator's exact Zipf probabilities for a Zipf workload,
    else the frequencies of the whole stream (the static table of §4)."""
    keys, counts_r, counts_s = wl.key_counts()
    meta = wl.meta
    if meta.get("generator") != "zipf":
        return keys, counts_r / max(counts_r.sum(), 1), counts_s / max(counts_s.sum(), 1)
    domain = int(meta["domain"])
    full = np.arange(domain)
    p_r = zipf_probabilities(meta["skew"], domain)
    p_s = np.zeros(domain)
    p_s[s_value_map(domain, meta["correlation"], int(meta["seed"]))] = zipf_probabilities(meta["skew_s"], domain)
    return full, p_r, p_s


def _partner_p(wl: Workload) -> np.ndarray:
    """Per tuple: the probability that the other stream's arrival of a step has its key."""
    keys, p_r, p_s = key_probabilities(wl)
    k = np.searchsorted(keys, wl.key)
    return np.where(wl.side == 0, p_s[k], p_r[k])


def partner_ages(wl: Workload, side: int) -> tuple[int, int]:
    """(first, last): the ages t - a >= 1 at which a tuple of ``side`` held since its arrival at a
    can meet the arrival of step t under the workload's range (first > last: never)."""
    return ages_within(wl.bounds, side)


def ages_within(bounds: tuple[int, int], side: int) -> tuple[int, int]:
    """:func:`partner_ages` under the range ``bounds`` (lo, hi): what the compiled join reads from
    :func:`shedding.online.partners.partner_ages`, for a caller that holds the range as a pair."""
    lo, hi = bounds
    return (max(lo, 1), hi) if side == 0 else (max(-hi, 1), -lo)


def _check_synchronous(wl: Workload) -> None:
    steps = np.arange(len(wl) // 2)
    if len(wl) % 2 or not (np.array_equal(wl.time[wl.side == 0], steps)
                           and np.array_equal(wl.time[wl.side == 1], steps)):
        raise ShedError("the online bound needs the paper's tuple-synchronous streams (one R and one S tuple "
                        "per step, as from zipf_workload)")


def same_batch_pairs(wl: Workload) -> int:
    """Counted pairs of tuples arriving at the same time (every schedule produces them; none unless
    the range holds 0)."""
    lo, hi = wl.bounds
    if not lo <= 0 <= hi:
        return 0
    r, s = wl.side == 0, wl.side == 1
    both = (wl.time[r] >= wl.warmup) & (wl.key[r] == wl.key[s])
    return int(np.count_nonzero(both))


def expected_outputs(wl: Workload, schedule: Schedule) -> float:
    """The expected counted output of a schedule on i.i.d. synchronous streams, given the memory it
    held: every tuple held after admission at a joins the arrival of each step t in (a, left]
    within its partner ages (:func:`partner_ages`)."""
    _check_synchronous(wl)
    (r_first, r_last), (s_first, s_last) = partner_ages(wl, 0), partner_ages(wl, 1)
    is_r = wl.side == 0
    first, last = np.where(is_r, r_first, s_first), np.where(is_r, r_last, s_last)
    start = np.maximum(np.maximum(wl.time, wl.warmup - 1), wl.time + first - 1)
    end = np.minimum(np.minimum(schedule.left, len(wl) // 2 - 1), wl.time + last)  # no arrivals after the last step
    steps = np.where(schedule.admitted, np.maximum(end - start, 0), 0)
    return same_batch_pairs(wl) + float(np.sum(steps * _partner_p(wl)))


def online_bound(wl: Workload, memory: int | Memory, memory_split: tuple[int, int] | None = None,
                 variable: bool = False) -> float:
    """Upper bound on the expected counted output of any online policy (Das, Gehrke, Riedewald
    2003, §3.3) on i.i.d. tuple-synchronous streams: per step from the warmup on, the top-M
    partner probabilities among the live tuples (those within their partner ages under the
    workload's range, :func:`partner_ages`).

    Args:
        wl: The workload: one R and one S tuple per step, as :func:`~shedding.datasets.zipf.zipf_workload`
            draws it.
        memory: M (an integer >= 0), or a checked :class:`~shedding.model.Memory`.
        memory_split: (M_R, M_S), summing to M; default the range's
            (:func:`~shedding.timerange.default_split`), as the policies run under.
        variable: Bound the variable-split policies (one pool of M) instead of the fixed split.

    Returns:
        The bound on the expected counted output.

    Raises:
        ShedError: Streams that are not tuple-synchronous, or a bad ``memory`` or
            ``memory_split``, naming the parameter.
    """
    _check_synchronous(wl)
    budget = Memory.of(memory, memory_split, wl.bounds)  # a Memory is checked already
    m, m_r, m_s = budget.total, budget.r, budget.s
    n_steps = len(wl) // 2
    keys, p_r, p_s = key_probabilities(wl)
    # live[t, k]: tuples of key k within their partner ages at t (arrived in [t - last, t - first]),
    # per side, for join steps t >= warmup
    joins = np.arange(max(wl.warmup, 1), n_steps)
    total = 0.0
    lanes = []
    for side, p_partner in ((0, p_s), (1, p_r)):
        k = np.searchsorted(keys, wl.key[wl.side == side])
        onehot = np.zeros((n_steps + 1, len(keys)), dtype=np.int32)
        np.add.at(onehot, (np.arange(n_steps) + 1, k), 1)
        cum = np.cumsum(onehot, axis=0)  # cum[t] = arrivals before t
        first, last = partner_ages(wl, side)
        live = cum[np.clip(joins - first + 1, 0, n_steps)] - cum[np.clip(joins - last, 0, n_steps)]
        live = np.maximum(live, 0)  # first > last: none
        lanes.append((live, p_partner))
    groups = [lanes] if variable else [[lanes[0]], [lanes[1]]]
    caps = [m] if variable else [m_r, m_s]
    for group, cap in zip(groups, caps):
        live = np.concatenate([g[0] for g in group], axis=1)
        p = np.concatenate([g[1] for g in group])
        order = np.argsort(-p, kind="stable")
        filled = np.minimum(np.cumsum(live[:, order], axis=1), cap)
        taken = np.diff(filled, axis=1, prepend=0)
        total += float(np.sum(taken * p[order]))
    return same_batch_pairs(wl) + total
