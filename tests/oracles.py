"""Independent checkers of OPT / OPTV (Das, Gehrke, Riedewald 2003, §3.2), written straight from
the join semantics (docs/semantics.md): an exhaustive brute force over every admit/evict schedule,
and a replay that counts what a schedule produces."""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

import numpy as np

from shedding.exact import exact_pairs
from shedding.model import Schedule, Workload


def split_of(memory: int, allocation: str, split: tuple[int, int] | None = None,
             bounds: tuple[int, int] | None = None) -> tuple[int, int] | None:
    """The fixed split a run uses (None for the variable allocation): ``split``, else all of M to
    the one side the range ``bounds`` stores (R when lo >= 0 and hi > 0, S when hi <= 0 and lo < 0; the other
    only meets tuples already there), else M // 2, M - M // 2 (docs/semantics.md)."""
    if allocation == "variable":
        return None
    if split is not None:
        return split
    keeps_r, keeps_s = (True, True) if bounds is None else (bounds[1] > 0, bounds[0] < 0)
    if keeps_r != keeps_s:
        return (memory, 0) if keeps_r else (0, memory)
    return memory // 2, memory - memory // 2


def fits(kept: tuple[int, ...], side: list[int], memory: int, split: tuple[int, int] | None) -> bool:
    """Whether the tuples ``kept`` fit ``memory`` (variable split, ``split`` None) or ``split``."""
    if split is None:
        return len(kept) <= memory
    n_r = sum(1 for i in kept if side[i] == 0)
    return n_r <= split[0] and len(kept) - n_r <= split[1]


def brute_force(wl: Workload, memory: int, split: tuple[int, int] | None) -> int:
    """Best counted output over all admit/evict schedules: at every arrival step, every subset of
    (remaining memory + remaining batch) within capacity; memoized on (step, memory contents)."""
    side, time, key = wl.side.tolist(), wl.time.tolist(), wl.key.tolist()
    warmup = wl.warmup
    lo, hi = wl.bounds  # r(a), s(b) pair iff lo <= b - a <= hi (the window: -(w-1), w-1)
    last = [time[i] + (hi if side[i] == 0 else -lo) for i in range(len(time))]  # its last partner time

    def pair(x: int, y: int) -> bool:
        r, s = (x, y) if side[x] == 0 else (y, x)
        return side[x] != side[y] and key[x] == key[y] and lo <= time[s] - time[r] <= hi

    steps = sorted(set(time))
    batches = [[i for i in range(len(time)) if time[i] == t] for t in steps]

    @lru_cache(maxsize=None)
    def best(step: int, held: frozenset) -> int:
        if step == len(steps):
            return 0
        t, batch = steps[step], batches[step]
        held = frozenset(i for i in held if last[i] >= t)  # ranges that ended in a gap
        out = 0
        for y in batch:  # 1. join with memory and with the other side of the batch (counted once)
            out += sum(1 for x in held if pair(x, y))
            if side[y] == 1:
                out += sum(1 for x in batch if side[x] == 0 and pair(x, y))
        gained = out if t >= warmup else 0
        # 2. expire; 3. keep any subset of the candidates that fits
        cands = sorted(i for i in held | set(batch) if last[i] > t)
        options = (c for k in range(len(cands) + 1) for c in combinations(cands, k))
        return gained + max(best(step + 1, frozenset(kept)) for kept in options if fits(kept, side, memory, split))

    return best(0, frozenset())


def replay(wl: Workload, schedule: Schedule, memory: int, split: tuple[int, int] | None) -> int:
    """Check that ``schedule`` is a legal admit/evict schedule and count its counted outputs
    from the pair rule: (x at a, y at b >= a) is produced iff a == b or x is held through b."""
    adm, left, time = schedule.admitted, schedule.left, wl.time
    lo, hi = wl.bounds
    last = time + np.where(wl.side == 0, hi, -lo)
    assert adm.shape == left.shape == time.shape
    assert np.all(left[~adm] == time[~adm]), "a tuple never admitted leaves at its arrival"
    assert np.all((left[adm] > time[adm]) & (left[adm] <= last[adm])), "held past its range"
    for t in np.unique(time):  # memory after the admissions of step t
        held = adm & (time <= t) & (left > t)
        n_r = int(np.count_nonzero(held & (wl.side == 0)))
        n_s = int(np.count_nonzero(held)) - n_r
        if split is None:
            assert n_r + n_s <= memory, f"{n_r + n_s} tuples held after step {t}, memory {memory}"
        else:
            assert n_r <= split[0] and n_s <= split[1], f"({n_r}, {n_s}) held after step {t}, split {split}"
    return int(produced_pairs(wl, schedule).sum())


def zipf_like(n: int, window: int, warmup: int, seed: int, domain: int = 6, gaps: bool = False) -> Workload:
    """Skewed random streams; with ``gaps`` the two streams arrive at random, uneven times."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, domain + 1)
    p /= p.sum()
    r_keys, s_keys = rng.choice(domain, n, p=p), rng.permutation(domain)[rng.choice(domain, n, p=p)]
    if not gaps:
        return Workload.synchronous(r_keys, s_keys, window, warmup)
    r_t = np.sort(rng.integers(0, 2 * n, n))
    s_t = np.sort(rng.integers(0, 2 * n, n))
    return Workload.from_streams(r_t, r_keys, s_t, s_keys, window, warmup)



def produced_pairs(wl: Workload, schedule: Schedule) -> np.ndarray:
    """For each counted window pair of ``exact_pairs``: was it produced under ``schedule``?"""
    pairs = exact_pairs(wl)
    r, s = pairs[:, 0], pairs[:, 1]
    early = np.where(wl.time[r] <= wl.time[s], r, s)
    late = np.where(early == r, s, r)
    held_through = schedule.admitted[early] & (schedule.left[early] >= wl.time[late])
    return (wl.time[early] == wl.time[late]) | held_through


