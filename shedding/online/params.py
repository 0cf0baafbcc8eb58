"""The parameters of one online run, checked once where the run enters the library.

:class:`OperatorParams` is what one :class:`~shedding.online.engine.JoinOperator` needs (the
window, the join memory and its split, the policy, RAND's seed, the learner's tuning);
:class:`RunParams` is what one run of the batch simulator needs (a policy's name, the memory, the
estimator, the seed, HAZARD's group, the tuning). Each is a frozen dataclass built by its ``of``,
which checks and normalises every value (a ShedError naming the parameter); the layers below take
the built object and never check it again (docs/architecture.md, "Errors").

The join is the fast-CPU integrated window join of Das, Gehrke, Riedewald (SIGMOD 2003, §2.1),
shedding by a policy of §3.3 (or ours) within M tuples, split between R and S (§4.3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from shedding.errors import ShedError
from shedding.model import Memory, check_name, check_window
from shedding.timerange import check_range, window_range
from shedding.online.estimators import check_estimator
from shedding.online.groups import is_auto, is_auto_history, run_group
from shedding.online.policies import EQUI, POLICIES, Policy, check_group, get_policy, grouped, require
from shedding.online.tuning import HazardTuning


def check_seed(seed: object) -> int:
    """RAND's seed: an integer >= 0 (not True)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ShedError(f"the policy seed ({{param}}) must be an integer >= 0, got {seed!r}", param="seed")
    return int(seed)


def check_tuning(name: str, tuning: object) -> None:
    """``tuning`` is given only for a policy that learns (HAZARD, AGE and their variable forms,
    :attr:`~shedding.online.policies.Policy.tunable`): for any other it would be ignored."""
    if tuning is not None and not (name in POLICIES and POLICIES[name].tunable):
        learners = ", ".join(n for n, p in POLICIES.items() if p.tunable)
        raise ShedError(f"{{param}} applies to the learning policies only ({learners}), not to {name}; leave it out",
                        param="tuning")


@dataclass(frozen=True, kw_only=True)
class OperatorParams:
    """The checked parameters of one join operator (:class:`~shedding.online.engine.JoinOperator`).

    Build it with :meth:`of`, which checks them; a caller that holds checked values (the batch
    simulator, a streaming shard) builds it directly and they are not checked again.
    """

    window: int
    memory: Memory
    policy: Policy
    warmup: int = 0
    seed: int = 0
    share_every: int = 1
    tuning: HazardTuning = field(default_factory=HazardTuning)
    #: the time range (lo, hi) of the join condition lo <= s.time - r.time <= hi; None for the
    #: symmetric window (-(w-1), w-1)
    range: tuple[int, int] | None = None

    @classmethod
    def of(cls, window: int, memory: int | Memory, policy: str | Policy = "prob", *,
           memory_split: tuple[int, int] | None = None, warmup: int = 0, seed: int = 0, share_every: int = 1,
           tuning: HazardTuning | str | None = None, range: tuple[int, int] | None = None) -> OperatorParams:
        """The operator's parameters, checked.

        Args:
            window: w in time steps (>= 1).
            memory: M (an integer >= 0) or a checked :class:`~shedding.model.Memory`.
            policy: A policy's name from the registry or a
                :class:`~shedding.online.policies.Policy` that runs on the equi-join.
            memory_split: (M_R, M_S), summing to M; None for (M // 2, M - M // 2).
            warmup: The first time step whose pairs are counted (>= 0).
            seed: RAND's seed (an integer >= 0).
            share_every: Steps between the variable split's updates of the shares (>= 1).
            tuning: HAZARD's (and AGE's) learner, a
                :class:`~shedding.online.tuning.HazardTuning` or its text; None for the defaults.
            range: The time range (lo, hi): r and s join iff lo <= s.time - r.time <= hi (any
                integers, lo <= hi); None for the symmetric window (-(w-1), w-1).

        Returns:
            The checked :class:`OperatorParams`.

        Raises:
            ShedError: A value out of range or a policy the equi-join does not run, naming the
                parameter.
        """
        w = check_window(window)
        bounds = None if range is None else check_range(range)
        budget = Memory.of(memory, memory_split, window_range(w) if bounds is None else bounds)
        pol = require(policy if isinstance(policy, Policy) else get_policy(policy), EQUI)
        if int(warmup) < 0:
            raise ShedError(f"{{param}} must be >= 0, got {warmup}", param="warmup")
        if share_every < 1:
            raise ShedError(f"{{param}} must be >= 1, got {share_every}", param="share_every")
        return cls(window=w, memory=budget, policy=pol, warmup=int(warmup), seed=check_seed(seed),
                   share_every=int(share_every), tuning=HazardTuning.of(tuning),
                   range=bounds)


@dataclass(frozen=True, kw_only=True)
class RunParams:
    """The checked parameters of one policy's run on a workload (the batch simulator,
    :func:`~shedding.online.simulator.run_online`, and :func:`shedding.run.run_policy`).

    ``policy`` is the name in lower case (``exact``, a registry name, or a name the caller
    dispatches itself: ``opt``), ``tuning`` None when not given.
    """

    policy: str
    memory: Memory
    estimator: str = "static"
    decay: float = 1.0
    seed: int = 0
    group: tuple[str, ...] | None = None
    tuning: HazardTuning | None = None
    samples: int = 2000

    @classmethod
    def of(cls, policy: str, memory: int | Memory, *, memory_split: tuple[int, int] | None = None,
           estimator: str = "static", decay: float = 1.0, seed: int = 0, group: str | Sequence[str] | None = None,
           tuning: HazardTuning | str | None = None, samples: int = 2000, band: bool = False,
           bounds: tuple[int, int] | None = None) -> RunParams:
        """The run's parameters, checked once.

        Args:
            policy: The policy's name, any case (its membership is the caller's to check:
                :func:`shedding.run.run_policy` knows OPT, the simulator the registry).
            memory: M (an integer >= 0) or a checked :class:`~shedding.model.Memory`.
            memory_split: (M_R, M_S), summing to M; None for (M // 2, M - M // 2).
            estimator: ``static`` or ``online``, any case.
            decay: The online estimator's weight per time step, in (0, 1].
            seed: RAND's seed (an integer >= 0).
            group: HAZARD's payload column(s) on an equi-join (a name, a comma list or a list of
                names, :func:`~shedding.online.groups.group_columns`; ``auto`` to let HAZARD pick
                one, :mod:`~shedding.online.autogroup`; ``history``, ``auto-history``; ``none``
                for none); None for HAZARD's default (:func:`~shedding.online.groups.default_group`:
                ``auto-history`` under a one-sided time range, else none).
            tuning: The learner of the learning policies (HAZARD, AGE); None for the defaults.
            samples: About how often the R share of memory is sampled (>= 1).
            band: The run is on a band join, where no policy takes a group.
            bounds: The workload's time range (``Workload.bounds``), which sets the default split
                and refuses memory on a side it never stores; None when not known yet.

        Returns:
            The checked :class:`RunParams`.

        Raises:
            ShedError: A value out of range, naming the parameter (``policy``, ``memory``,
                ``memory_split``, ``estimator``, ``decay``, ``seed``, ``group``, ``tuning``,
                ``samples``).
        """
        name = check_name(policy, "policy")
        budget = Memory.of(memory, memory_split, bounds)
        est = check_estimator(estimator, decay)  # also for EXACT and OPT, which use no estimator
        check_tuning(name, tuning)  # for EXACT and OPT too, which would ignore it
        learner = None if tuning is None else HazardTuning.of(tuning)  # before EXACT's reference is computed
        if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 1:
            raise ShedError(f"{{param}} must be an integer >= 1 (how often the R share is sampled), got {samples!r}",
                            param="samples")
        check_group(name, group, band)
        columns = run_group(group, bounds, grouped(name) and not band)
        if columns and (is_auto(columns) or is_auto_history(columns)) and learner is not None and learner.forget > 0.0:
            told = "" if group is not None else ", HAZARD's grouping by default under this time range"
            raise ShedError(f"{{param}} {columns[0]}{told}, does not combine with tuning forget > 0 yet (the fit "
                            "that forgets keeps one grouping's statistics); give {param} none, a column, or leave "
                            "forget out", param="group")
        return cls(policy=name, memory=budget, estimator=est, decay=decay, seed=check_seed(seed), group=columns,
                   tuning=learner,
                   samples=int(samples))
