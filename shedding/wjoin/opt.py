"""The exact optimum of W-join load shedding on small instances, with OR-Tools CP-SAT.

Choosing which tuples to keep so that the most N-way results survive is NP-hard already for three
relations (Das, Gehrke, Riedewald 2003, Theorem 1), so this is an integer program for small
instances, the yardstick of the online policies of :mod:`shedding.wjoin.loadshed`.

Model (the operator's semantics, docs/wjoin.md): events are the arrivals in (time, stream, seq)
order. Tuple x arrives at event ``e_x`` and can be joined by arrivals up to event ``end_x``, the
last one with time ``<= t_x + reach_i``. A binary ``stay[x, e]`` says that x is in memory when the
arrival of event e is joined; a tuple never returns (``stay[x, e'] <= stay[x, e]`` for
``e < e'``); at every event at most M tuples are present (or ``M_i`` of stream i under the fixed
split). A result whose last member arrives at event e counts iff every other member stays at e.
Only the events at which x completes a result need a variable: x is present at any event up to
the next such one iff it stays for that one (keeping it longer only costs memory). Every schedule of admissions and evictions that obeys the budget gives
such a ``stay``, and every ``stay`` is such a schedule, so the optimum is the most output any
policy can reach.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
from ortools.sat.python import cp_model

from shedding.offline.cpsat import solve
from shedding.offline.opt import ALLOCATIONS
from shedding.errors import ShedError
from shedding.model import Optimum
from shedding.wjoin.loadshed import fixed_split
from shedding.wjoin.streams import Streams, check_compatible
from shedding.wjoin.windows import WindowSpec

MAX_TUPLES = 400
MAX_RESULTS = 20_000


@dataclass(frozen=True)
class Timeline:
    """The events of a shedding instance: per event its (stream, seq, time); per tuple its arrival
    event; and the exact results' members as events."""

    stream: np.ndarray
    seq: np.ndarray
    time: np.ndarray
    event_of: list[list[int]]
    results: np.ndarray

    @classmethod
    def of(cls, streams: Streams, windows: WindowSpec) -> "Timeline":
        from shedding.wjoin.hw import HWJoin
        from shedding.wjoin.operator import run

        stream, seq = streams.arrival_order()
        time = np.array([streams.times[i][s] for i, s in zip(stream.tolist(), seq.tolist())], dtype=np.int64)
        event_of = [[0] * n for n in streams.lengths()]
        for e, (i, s) in enumerate(zip(stream.tolist(), seq.tolist())):
            event_of[i][s] = e
        rows = run(HWJoin(windows), streams)
        results = np.array([[event_of[i][s] for i, s in enumerate(r)] for r in rows.tolist()], dtype=np.int64)
        return cls(stream, seq, time, event_of, results.reshape(-1, streams.n))


@dataclass
class OptResult(Optimum):
    """The optimum: its output, the exact count, whether CP-SAT proved it ``optimal`` within the
    time limit, and per tuple the last event it stays for (its arrival event if it is never
    admitted)."""

    optimal: bool
    leave: list[list[int]]
    seconds: float


def solve_opt(streams: Streams, windows: WindowSpec, memory: int, *, memory_split: Sequence[int] | None = None,
              allocation: str = "fixed", time_limit: float = 60.0, workers: int = 1) -> OptResult:
    """The most W-join output any admit/evict schedule within the memory budget produces, by
    CP-SAT (see the module docstring), for instances of at most 400 tuples.

    Args:
        streams: The N streams (:class:`~shedding.wjoin.streams.Streams`).
        windows: The window constraints (:class:`~shedding.wjoin.windows.WindowSpec`).
        memory: M, the tuples held at once over all buffers (an integer >= 0).
        memory_split: M_i per stream for ``allocation='fixed'``, summing to ``memory``;
            default ``M // N`` each, the remainder to the first streams.
        allocation: ``fixed`` (at most M_i tuples of stream i) or ``variable`` (at most M).
        time_limit: CP-SAT's time limit, in seconds.
        workers: CP-SAT's search workers.

    Returns:
        An :class:`OptResult`: the optimum, the exact count, whether CP-SAT proved it optimal,
        and when each tuple leaves.

    Raises:
        ShedError: An unknown ``allocation`` or a bad ``memory`` (naming it in ``param``), a
            bad split, an instance over 400 tuples or 20,000 results, or no solution within
            the time limit.
    """
    check_compatible(streams, windows.n)
    if allocation not in ALLOCATIONS:
        raise ShedError(f"unknown {{param}} {allocation!r}; choose fixed or variable", param="allocation")
    caps = fixed_split(memory, streams.n, memory_split)
    if sum(streams.lengths()) > MAX_TUPLES:
        raise ShedError(f"the exact optimum is for small instances (at most {MAX_TUPLES} tuples), got "
                        f"{sum(streams.lengths())}; shorten the streams")
    tl = Timeline.of(streams, windows)
    if len(tl.results) > MAX_RESULTS:
        raise ShedError(f"the instance has {len(tl.results)} results, more than the {MAX_RESULTS} the exact "
                        f"optimum models; shorten the streams")
    model = cp_model.CpModel()
    stream_of_event, seq_of_event = tl.stream.tolist(), tl.seq.tolist()
    # A tuple only needs to stay until events where it completes a result; between two such events
    # it is present iff it stays for the later one. needs[x] lists those events, ascending.
    needs: dict[tuple[int, int], list[int]] = {}
    for members in tl.results.tolist():
        last = max(members)
        for e_x in members:
            if e_x != last:
                needs.setdefault((stream_of_event[e_x], seq_of_event[e_x]), []).append(last)
    stay: dict[tuple[int, int], dict[int, cp_model.IntVar]] = {}
    present: dict[int, list[tuple[int, cp_model.IntVar]]] = {}
    for x, events in needs.items():
        prev, row, start = None, {}, tl.event_of[x[0]][x[1]] + 1
        for r in sorted(set(events)):
            v = model.new_bool_var("")
            if prev is not None:
                model.add(v <= prev)
            row[r] = prev = v
            for e in range(start, r + 1):
                present.setdefault(e, []).append((x[0], v))
            start = r + 1
        stay[x] = row
    for items in present.values():
        if allocation == "variable":
            if len(items) > sum(caps):
                model.add(sum(v for _, v in items) <= sum(caps))
        else:
            for i in range(streams.n):
                mine = [v for j, v in items if j == i]
                if len(mine) > caps[i]:
                    model.add(sum(mine) <= caps[i])
    gains = []
    for members in tl.results.tolist():
        last = max(members)
        y = model.new_bool_var("")
        for e_x in members:
            if e_x != last:
                model.add(y <= stay[(stream_of_event[e_x], seq_of_event[e_x])][last])
        gains.append(y)
    model.maximize(sum(gains))
    solver, optimal = solve(model, time_limit, workers, "raise the time limit or shrink the instance")
    leave = [[max([e_x] + [r for r, v in stay.get((i, s), {}).items() if solver.value(v)])
              for s, e_x in enumerate(events)] for i, events in enumerate(tl.event_of)]
    return OptResult(int(round(solver.objective_value)) if gains else 0, len(tl.results), optimal, leave,
                     solver.wall_time)
