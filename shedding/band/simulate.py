"""Run a shedding policy on a band join (Das, Gehrke, Riedewald 2003, §3.3): the band counterpart
of :func:`shedding.online.simulate`, reporting the same :class:`~shedding.model.RunResult`.

Policies are the keyed engine's (:mod:`shedding.online.policies`): PROB and LIFE rank tuples by
the band probability of :mod:`.estimator`, RAND drops uniformly, ``opt-schedule`` /
``optv-schedule`` replay a schedule (OPT's, §3.2). EXACT comes from :mod:`.exact`.
"""

from __future__ import annotations

import time as _time
from dataclasses import dataclass

import numpy as np

from shedding.errors import ShedError
from shedding.exact import exact_memory
from shedding.model import Memory, RunResult, Schedule
from shedding.online import kernel as K
from shedding.online.estimators import default_estimator
from shedding.online.policies import BAND, get_policy, require
from shedding.band.estimator import DEFAULT_BINS, ESTIMATORS, BandHistogram
from shedding.band.operator import BandJoinOperator
from shedding.band.exact import BandIndex, archive_metric, exact_pairs
from shedding.band.predicate import BandWorkload, eps_texts


@dataclass
class BandReference:
    """EXACT's pairs of one band workload, computed once for every policy run on it."""

    pairs: np.ndarray

    @classmethod
    def of(cls, bw: BandWorkload) -> "BandReference":
        return cls(exact_pairs(bw, BandIndex(bw)))

    @property
    def exact(self) -> int:
        return len(self.pairs)


def simulate_band(
    bw: BandWorkload,
    policy: str,
    memory: int | Memory,
    *,
    memory_split: tuple[int, int] | None = None,
    seed: int = 0,
    pairs: bool = False,
    schedule: Schedule | None = None,
    bins: int = DEFAULT_BINS,
    estimator: str | None = None,
    reference: BandReference | None = None,
) -> RunResult:
    """Run ``policy`` with ``memory`` tuples on the band join ``bw``, by
    :class:`~shedding.band.operator.BandJoinOperator` (the online policies of §3.3 on a band
    predicate).

    Args:
        bw: The band join's workload.
        policy: ``exact``, a policy of the registry that runs on the band join, or
            ``opt-schedule`` / ``optv-schedule``, which replay ``schedule``.
        memory: M, the tuples the join may hold at once (an integer >= 0, or a checked Memory).
        memory_split: (M_R, M_S), summing to ``memory``, for the fixed-split policies; default
            (M // 2, M - M // 2).
        seed: The seed of RAND's draws (>= 0).
        pairs: Also return the joined pairs (``RunResult.pairs``).
        schedule: The :class:`~shedding.model.Schedule` a replaying policy follows (OPT's).
        bins: The histogram's bins per attribute (>= 1), the estimate behind PROB and LIFE.
        estimator: ``static`` (the histogram counts the whole workload in advance) or
            ``online`` (the arrivals so far); None for the workload's default
            (:func:`~shedding.online.estimators.default_estimator`: online on files).
        reference: EXACT's pairs of ``bw`` (:class:`BandReference`), shared by the policies
            of one workload; computed here when None.

    Returns:
        A :class:`~shedding.model.RunResult`: outputs, EXACT, ArM and the schedule followed.

    Raises:
        ShedError: A bad ``memory``, ``memory_split``, ``estimator``, ``bins``, ``seed`` or
            ``policy`` (one that does not run on a band join), or a replaying policy without
            a ``schedule``.
    """
    budget = Memory.of(memory, memory_split)
    wl = bw.workload
    ref = reference or BandReference.of(bw)
    name = policy.strip().lower()
    if estimator is None:
        estimator = default_estimator(wl)
    if estimator not in ESTIMATORS:
        raise ShedError(f"unknown {{param}} {estimator!r} for a band join; choose static or online", param="estimator")
    params = {"window": wl.window, "warmup": wl.warmup, "workload": wl.name, "estimator": estimator,
              "predicate": "band", "eps": eps_texts(bw), "attrs": list(bw.attrs)}
    started = _time.perf_counter()
    if name == "exact":
        res = RunResult("exact", ref.exact, ref.exact, 0, exact_memory(wl).fixed, None, None, params=params)
        res.pairs = ref.pairs if pairs else None
        res.seconds = _time.perf_counter() - started
        return res
    pol = require(get_policy(name), BAND)  # before the histogram is counted
    if pol.kind == K.SCHEDULE and schedule is None:
        raise ShedError(f"policy {pol.name} needs a schedule to replay")
    online = estimator == "online"
    histogram = (BandHistogram.layout if online else BandHistogram.of)(bw, bins)
    op = BandJoinOperator(wl.window, budget, pol, bw.eps, histogram=histogram, online=online, warmup=wl.warmup, seed=seed, pairs=pairs,
                          schedule_left=None if schedule is None else schedule.left)
    fed = op.feed(wl.side, wl.time, bw.values)
    dep = np.concatenate([fed.departures, op.finish()])
    left, admitted = wl.time.copy(), np.zeros(len(wl), dtype=bool)
    left[dep[:, 0]], admitted[dep[:, 0]] = dep[:, 1], dep[:, 2].astype(bool)
    run_schedule = Schedule(admitted, left)
    outputs = fed.outputs
    split_r, split_s = (None, None) if pol.variable else budget.split
    return RunResult(
        pol.name, int(outputs), ref.exact, archive_metric(bw, run_schedule, ref.pairs), budget.total, split_r, split_s,
        schedule=run_schedule, pairs=fed.pairs if pairs else None,
        seconds=_time.perf_counter() - started,
        params=params | ({"seed": seed} if pol.seed else {}),
    )
