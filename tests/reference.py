"""A deliberately simple reference join, written straight from the join semantics (docs/semantics.md).

Each step it rebuilds the candidate list and sorts all of it by priority, using exact fractions.
It shares no code with the engine; the tests compare the two tuple for tuple.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np


def reference_run(side, time, key, window, memory_r, memory_s, warmup, policy, variable,
                  estimator="static", memory=None, valuer=None, budget_at=None):
    """Returns (outputs, sorted pairs, left per tuple, admitted per tuple).

    ``budget_at(t)``, if given, returns the budgets (M, M_R, M_S) of step t's admission instead of
    the fixed ones (a budget changed between feeds, ``JoinOperator.set_memory``).

    ``valuer(t, batch, counts, totals)``, if given, is called every step before admission and returns
    the value function ``value(x)`` that replaces the policy's priority (for the project's own
    policies, SURV and DUAL)."""
    n = len(time)
    w = window
    total = memory if memory is not None else memory_r + memory_s
    if estimator == "static":
        counts = [dict(), dict()]
        for s_, k in zip(side, key):
            counts[s_][k] = counts[s_].get(k, 0) + 1
    else:
        counts = [dict(), dict()]
    totals = [sum(counts[0].values()), sum(counts[1].values())]
    memory_set: list[int] = []
    left = list(time)
    admitted = [False] * n
    pairs = []
    outputs = 0

    def p(x):  # priority of tuple x: probability of a partner on the other side
        o = 1 - side[x]
        if totals[o] == 0:
            return Fraction(0)
        return Fraction(counts[o].get(key[x], 0), totals[o])

    times = sorted(set(time))
    for t in times:
        batch = [x for x in range(n) if time[x] == t]
        for y in memory_set:  # windows that ended between batches
            if time[y] + w - 1 <= t - 1:
                left[y], admitted[y] = time[y] + w - 1, True
        memory_set = [y for y in memory_set if time[y] + w - 1 > t - 1]
        for x in batch:
            partners = [y for y in memory_set if side[y] != side[x] and key[y] == key[x]]
            same = [y for y in batch if side[y] != side[x] and key[y] == key[x]]
            if t >= warmup:
                for y in partners + (same if side[x] == 1 else []):
                    r, s = (x, y) if side[x] == 0 else (y, x)
                    pairs.append((r, s))
                    outputs += 1
        if estimator == "online":
            for x in batch:
                counts[side[x]][key[x]] = counts[side[x]].get(key[x], 0) + 1
                totals[side[x]] += 1
        for y in list(memory_set):
            if time[y] + w - 1 <= t:
                left[y] = time[y] + w - 1
                admitted[y] = True
        memory_set = [y for y in memory_set if time[y] + w - 1 > t]
        cands = memory_set + [x for x in batch if time[x] + w - 1 > t]
        value = valuer(t, batch, counts, totals) if valuer is not None else None

        def prio(x):
            base = p(x) if value is None else value(x)
            if policy == "life":
                base *= time[x] + w - 1 - t
            # ascending order = drop first: priority, older, R before S, sequence
            return (base, time[x], side[x], x)

        cands.sort(key=prio)
        if budget_at is not None:
            total, memory_r, memory_s = budget_at(t)
        if variable:
            dropped = cands[: max(0, len(cands) - total)]
        else:
            dropped = []
            for s_, budget in ((0, memory_r), (1, memory_s)):
                mine = [x for x in cands if side[x] == s_]
                dropped += mine[: max(0, len(mine) - budget)]
        for x in dropped:
            left[x] = t
            admitted[x] = time[x] < t
        memory_set = [x for x in cands if x not in set(dropped)]
    for y in memory_set:
        left[y] = time[y] + w - 1
        admitted[y] = True
    return outputs, sorted(pairs), np.array(left), np.array(admitted)
