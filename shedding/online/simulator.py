"""Run a policy over a whole workload: the batch simulator of the paper's experiments (§4).

The simulator feeds the workload through one :class:`~shedding.online.engine.JoinOperator` and
adds what needs the whole stream: EXACT, the Archive-metric of §2.2 and the R share of memory
over time (Figure 8).
"""

from __future__ import annotations

import time as _time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from shedding.errors import ShedError
from shedding.exact import KeyedStreams, PartnerProfile, exact_count, exact_memory, exact_pairs, partner_profile
from shedding.metrics import archive_metric
from shedding.model import Memory, RunResult, Schedule, Workload, check_workload
from shedding.online.engine import JoinOperator
from shedding.online.estimators import default_estimator, make_estimator
from shedding.online.groups import candidate_names, payload_groups
from shedding.online.kinds import AGE
from shedding.online.params import OperatorParams, RunParams
from shedding.online.policies import EQUI, POLICIES, get_policy, require
from shedding.online.tuning import HazardTuning


@dataclass
class Reference:
    """What every policy on one workload is compared with, computed once."""

    exact: int
    profile: PartnerProfile
    ks: KeyedStreams

    @classmethod
    def of(cls, wl: Workload) -> "Reference":
        ks = KeyedStreams.of(wl)
        return cls(exact_count(wl, ks), partner_profile(wl, ks), ks)


def simulate(
    wl: Workload,
    policy: str,
    memory: int | Memory,
    *,
    memory_split: tuple[int, int] | None = None,
    estimator: str | None = None,
    decay: float = 1.0,
    seed: int = 0,
    pairs: bool = False,
    schedule: Schedule | None = None,
    samples: int = 2000,
    reference: Reference | None = None,
    group: str | Sequence[str] | None = None,
    tuning: HazardTuning | str | None = None,
) -> RunResult:
    """Run ``policy`` with ``memory`` tuples on ``wl``: the online policies of Das, Gehrke,
    Riedewald (§3.3, §4) and the project's own, run by the one join operator
    (:class:`~shedding.online.engine.JoinOperator`).

    AGE with the static estimator knows the workload's age curves
    (:func:`~shedding.online.ageing.known_curves`).

    Args:
        wl: The workload (:class:`~shedding.model.Workload`).
        policy: ``exact``, a policy of the registry (:data:`~shedding.online.policies.POLICIES`,
            any case), or ``opt-schedule`` / ``optv-schedule``, which replay ``schedule``.
        memory: M, the tuples the join may hold at once (an integer >= 0), or a
            :class:`~shedding.model.Memory` checked already.
        memory_split: (M_R, M_S), summing to ``memory``, for the fixed-split policies; default
            (M // 2, M - M // 2).
        estimator: ``static`` (the whole workload's key frequencies) or ``online`` (the counts
            so far, decayed by ``decay``); None for the workload's default
            (:func:`~shedding.online.estimators.default_estimator`: static on the paper's Zipf
            streams and weather data, online on files, the flights and the beyond-i.i.d.
            generators). ``RunResult.params["estimator"]`` says which ran.
        decay: The weight an online estimate's arrival keeps per time step, in (0, 1]; 1
            counts everything. Refused with the static estimator unless 1.
        seed: The seed of RAND's draws.
        pairs: Also return the joined pairs (``RunResult.pairs``: workload indices of R, S).
        schedule: The :class:`~shedding.model.Schedule` a replaying policy follows (OPT's).
        samples: About how often, over the run, the R share of memory is sampled (>= 1).
        reference: EXACT's precomputed :class:`Reference` for ``wl``, shared by the policies of
            one workload; computed here when None.
        group: The payload column(s) of the workload (``wl.meta["payload"]``: a file's own
            columns, the flights' ``dest``, ...) whose values are HAZARD's groups, one age curve
            each: a name, a comma list or a list of names (:mod:`~shedding.online.groups`);
            refused for any other policy. None: HAZARD's default (``auto-history`` under a
            one-sided time range, else none); ``none`` for none.
        tuning: HAZARD's learner (:class:`~shedding.online.tuning.HazardTuning` or its
            ``field=value,...`` text, its defaults without); only for the learning policies.

    Returns:
        A :class:`~shedding.model.RunResult`: outputs, EXACT, their ratio, ArM, the schedule
        the policy followed (per tuple: admitted, left) and the R share of memory sampled about
        ``samples`` times.

    Raises:
        ShedError: A bad argument, naming it in ``param``: ``wl``, ``policy``, ``memory``,
            ``memory_split``, ``estimator``, ``decay``, ``tuning``, ``samples``,
            ``reference``, ``schedule`` or ``group``; also a replaying policy without a
            ``schedule``.
    """
    check_workload(wl)
    params = RunParams.of(policy, memory, memory_split=memory_split, estimator=default_estimator(wl) if estimator is None else estimator, decay=decay, seed=seed,
                          group=group, tuning=tuning, samples=samples, bounds=wl.bounds)
    return run_online(wl, params, reference=reference, pairs=pairs, schedule=schedule)


def run_online(wl: Workload, params: RunParams, *, reference: Reference | None = None, pairs: bool = False,
               schedule: Schedule | None = None) -> RunResult:
    """:func:`simulate` with its parameters checked already: the run of ``params`` (built by
    :meth:`~shedding.online.params.RunParams.of`, where every check runs once) on ``wl``.

    Args:
        wl: The workload (a checked :class:`~shedding.model.Workload`).
        params: The run's checked parameters.
        reference: EXACT's precomputed :class:`Reference` for ``wl``; computed here when None.
        pairs: Also return the joined pairs.
        schedule: The :class:`~shedding.model.Schedule` a replaying policy follows.

    Returns:
        The :class:`~shedding.model.RunResult`, as :func:`simulate` gives it.

    Raises:
        ShedError: ``reference`` or ``schedule`` of the wrong type, a policy the equi-join does not
            run, a replaying policy without a ``schedule``, a ``group`` the workload lacks.
    """
    for value, kind, what in ((reference, Reference, "reference"), (schedule, Schedule, "schedule")):
        if value is not None and not isinstance(value, kind):
            raise ShedError(f"{{param}} must be a {kind.__name__} or None, got {type(value).__name__}", param=what)
    name, budget, estimator = params.policy, Memory.of(params.memory, None, wl.bounds), params.estimator
    pol = None if name == "exact" else require(POLICIES[name] if name in POLICIES else get_policy(name), EQUI)
    ref = reference or Reference.of(wl)
    run = {"window": wl.window, "warmup": wl.warmup, "workload": wl.name, "estimator": estimator}
    if wl.range is not None:
        run["range"] = list(wl.range)
    columns = params.group
    started = _time.perf_counter()
    if pol is None:
        res = RunResult("exact", ref.exact, ref.exact, 0, exact_memory(wl).fixed, None, None, params=run)
        if pairs:
            res.pairs = exact_pairs(wl, ref.ks)
        res.seconds = _time.perf_counter() - started
        return res
    groups = payload_groups(wl, params.group)
    if pol.replay and schedule is None:
        raise ShedError(f"policy {pol.name} needs a schedule to replay")
    n_steps = int(np.count_nonzero(np.diff(wl.time))) + 1 if len(wl) else 0  # time is sorted
    op = JoinOperator.of(
        OperatorParams(window=wl.window, memory=budget, policy=pol, warmup=wl.warmup, seed=params.seed,
                       share_every=max(1, n_steps // params.samples), tuning=params.tuning or HazardTuning(),
                       range=wl.range),
        estimator=make_estimator(estimator, wl, params.decay, ages=pol.kind == AGE), pairs=pairs, record=True,
        schedule_left=None if schedule is None else schedule.left,
    )
    fed = op.feed(wl.side, wl.time, wl.key, groups)
    dep = np.concatenate([fed.departures, op.finish()])
    admitted = np.zeros(len(wl), dtype=bool)
    left = wl.time.copy()
    admitted[dep[:, 0]] = dep[:, 2].astype(bool)
    left[dep[:, 0]] = dep[:, 1]
    followed = Schedule(admitted, left)
    arm = archive_metric(wl, followed, ref.profile, ref.ks)
    split_r, split_s = (None, None) if pol.variable else budget.split
    picks = op.group_picks
    choice = None if picks is None else {side: dict(zip(["none", *candidate_names(wl, params.group)], map(int, counts)))
                                         for side, counts in zip("RS", picks)}
    return RunResult(
        pol.name, fed.outputs, ref.exact, arm, budget.total, split_r, split_s,
        share_time=fed.share[:, 0], share_r=fed.share[:, 1], share_s=fed.share[:, 2],
        schedule=followed,
        pairs=fed.pairs if pairs else None,
        seconds=_time.perf_counter() - started,
        params=run | ({"seed": params.seed} if pol.seed else {})
        | ({"group": ",".join(columns)} if columns is not None else {}),
        guard=op.guard_choice if choice is None else f"{op.guard_choice} {picked(choice)}",
        group_choice=choice,
    )


def picked(choice: dict) -> str:
    """``group="auto"``'s choice in a few words: per side the grouping ranked by at most refits
    (``by R dest 15/19 S none 19/19``)."""
    words = []
    for side, counts in choice.items():
        name = max(counts, key=counts.__getitem__)
        words.append(f"{side} {name} {counts[name]}/{sum(counts.values())}")
    return "by " + " ".join(words)
