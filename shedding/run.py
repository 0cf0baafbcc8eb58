"""Run any policy by name: EXACT, an online policy of the registry, or OPT / OPTV.

One dispatch for every caller (``shed simulate``, the study runners, ``shed explain``, the
streaming join's report), so that a policy name means the same run everywhere:

* ``exact``: the full window join (Das, Gehrke, Riedewald 2003, §2.1), the ceiling;
* the online policies of :data:`shedding.online.policies.POLICIES` (PROB, LIFE, RAND, §3.3 and
  §4, their variable-split forms and the project's own), run by the one join operator;
* ``opt`` / ``optv``: the offline optimum with a fixed or variable split, by min-cost flow (§3.2).

A workload with a band predicate (:class:`~shedding.band.predicate.BandWorkload`) runs on the
band join's operator and network instead; the names are the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from shedding.errors import ShedError
from shedding.online.policies import OFFLINE, POLICIES

if TYPE_CHECKING:
    from shedding.band.predicate import BandWorkload
    from shedding.model import Memory, RunResult, Workload
    from shedding.offline.opt import OptResult
    from shedding.online.params import RunParams
    from shedding.online.tuning import HazardTuning

#: Every policy a user can name, in the order they are listed: EXACT, the online policies of the
#: registry, then the offline optimum.
POLICY_NAMES: tuple[str, ...] = ("exact", *(name for name, p in POLICIES.items() if not p.replay), *OFFLINE)


def variable_split(name: str) -> bool:
    """Whether policy ``name`` (one of :data:`POLICY_NAMES`) splits memory freely between R and S:
    OPTV and the registry's variable forms (EXACT holds everything)."""
    return OFFLINE.get(name) == "variable" or (name in POLICIES and POLICIES[name].variable)


def fixed_form(name: str) -> str:
    """The fixed-split policy of ``name`` (``probv`` -> ``prob``, ``optv`` -> ``opt``; any other name
    as given)."""
    if OFFLINE.get(name) == "variable":
        return next(n for n, split in OFFLINE.items() if split == "fixed")
    return POLICIES[name].family if name in POLICIES else name


def check_policies(names: str | list[str], param: str = "policy") -> list[str]:
    """Policy names from a comma list (any case), each one of :data:`POLICY_NAMES`; ``param``
    names the parameter in the error."""
    items = names.split(",") if isinstance(names, str) else list(names) if isinstance(names, (list, tuple)) else [names]
    if not all(isinstance(n, str) for n in items):
        raise ShedError(f"{{param}} must be policy names (text), got {names!r}", param=param)
    chosen = [n.strip().lower() for n in items if n.strip()]
    if not chosen:
        raise ShedError(f"{{param}} is empty; give one or more of {', '.join(POLICY_NAMES)}", param=param)
    for name in chosen:
        if name not in POLICY_NAMES:
            raise ShedError(f"unknown policy {name!r}; choose from {', '.join(POLICY_NAMES)}", param=param)
    return chosen


def run_policy(
    wl: Workload | BandWorkload,
    policy: str,
    memory: int | Memory,
    *,
    memory_split: tuple[int, int] | None = None,
    estimator: str | None = None,
    decay: float = 1.0,
    seed: int = 0,
    reference: Any = None,
    max_graph_bytes: int | None = None,
    samples: int = 2000,
    bins: int = 1024,
    group: str | Sequence[str] | None = None,
    tuning: HazardTuning | str | None = None,
) -> RunResult | OptResult:
    """Run ``policy`` with ``memory`` tuples on ``wl`` and return its result (``as_dict()`` gives
    the JSON row).

    The one dispatch of every policy name: EXACT (§2.1), the online policies (§3.3, §4) by
    :func:`~shedding.online.simulator.simulate`, OPT / OPTV (§3.2) by
    :func:`~shedding.offline.opt.solve_opt`; a band join's workload by the band join's simulator
    and network. An unknown ``estimator`` is refused for every policy, and a ``group`` for every
    policy but HAZARD on an equi-join.

    Args:
        wl: The workload: a :class:`~shedding.model.Workload`, or a band join's
            :class:`~shedding.band.predicate.BandWorkload`.
        policy: One of :data:`POLICY_NAMES` (any case): ``exact``, an online policy, ``opt`` or
            ``optv``.
        memory: M, the tuples the join may hold at once (an integer >= 0), or a
            :class:`~shedding.model.Memory` checked already (:meth:`~shedding.model.Memory.of`),
            as a caller running several policies on one memory passes it.
        memory_split: (M_R, M_S), summing to ``memory``, for the fixed-split policies and OPT;
            default (M // 2, M - M // 2). Refused for OPTV.
        estimator: ``static`` (the whole workload's key frequencies) or ``online`` (the counts
            so far), for the online policies; None for the workload's default
            (:func:`~shedding.online.estimators.default_estimator`: online but on the paper's
            Zipf streams and weather data).
        decay: The online estimator's weight an arrival keeps per time step, in (0, 1]; 1
            counts everything. Refused with the static estimator unless 1.
        seed: The seed of RAND's draws.
        reference: EXACT's precomputed reference for ``wl``
            (:class:`~shedding.online.simulator.Reference`, or the band join's), shared by the
            policies of one workload; computed here when None.
        max_graph_bytes: The limit on OPT's estimated network size in bytes; None for the
            default, 4 GiB.
        samples: About how often, over the run, the R share of memory is sampled (>= 1).
        bins: The band join's histogram bins (band workloads only).
        group: The payload column(s) whose values are HAZARD's groups (a file's own columns,
            the flights workload's ``dest``; a comma list or a list combines them,
            :mod:`~shedding.online.groups`; ``history``, ``auto``, ``auto-history``); None for
            HAZARD's default (``auto-history`` under a one-sided time range, else none), ``none``
            for none.
        tuning: HAZARD's learner: a :class:`~shedding.online.tuning.HazardTuning` or its
            ``field=value,...`` text; None for its defaults. Only for the learning policies.

    Returns:
        The online policies' and EXACT's :class:`~shedding.model.RunResult`, or OPT's
        :class:`~shedding.offline.opt.OptResult`.

    Raises:
        ShedError: A bad argument, naming it in ``param``: ``wl`` (not a workload), ``policy``
            (unknown), ``memory`` / ``memory_split``, ``estimator`` / ``decay``, ``group``,
            ``tuning``, ``samples``, or ``max_graph_bytes``
            (:class:`~shedding.offline.opt.GraphTooLarge`, OPT's network over the limit).
    """
    from shedding.band.predicate import BandWorkload
    from shedding.online.estimators import default_estimator  # numpy: not at import (shed --help)

    from shedding.model import Workload
    from shedding.online.params import RunParams  # numpy: not at import, where `shed --help` reads this

    if not isinstance(wl, (Workload, BandWorkload)):
        raise ShedError(f"{{param}} must be a Workload (or a band join's BandWorkload), got {type(wl).__name__}",
                        param="wl")
    if not isinstance(policy, str):
        check_policies([policy])  # the one message for a policy that is not text
    if estimator is None:
        estimator = default_estimator(wl.workload if isinstance(wl, BandWorkload) else wl)
    params = RunParams.of(policy, memory, memory_split=memory_split, estimator=estimator, decay=decay, seed=seed,
                          group=group, tuning=tuning, samples=samples, band=isinstance(wl, BandWorkload),
                          bounds=None if isinstance(wl, BandWorkload) else wl.bounds)
    return run_params(wl, params, reference=reference, max_graph_bytes=max_graph_bytes, bins=bins)


def run_params(wl: Workload | BandWorkload, params: RunParams, *, reference: Any = None,
               max_graph_bytes: int | None = None, bins: int = 1024) -> RunResult | OptResult:
    """:func:`run_policy` with its parameters checked already
    (:meth:`~shedding.online.params.RunParams.of`, where every check runs once): the caller that
    runs several policies on one memory checks the memory once
    (:meth:`~shedding.model.Memory.of`) and builds one :class:`~shedding.online.params.RunParams`
    per policy.

    Args:
        wl: The workload, as :func:`run_policy` takes it.
        params: The run's checked parameters; ``params.policy`` one of :data:`POLICY_NAMES`.
        reference: EXACT's precomputed reference for ``wl``; computed here when None.
        max_graph_bytes: OPT's limit on its network's size in bytes; None for 4 GiB.
        bins: The band join's histogram bins (band workloads only).

    Returns:
        As :func:`run_policy`.

    Raises:
        ShedError: An unknown policy (``policy``), OPT's network over the limit, or what the run
            refuses (a policy the join family does not run).
    """
    from shedding.band.predicate import BandWorkload

    name = params.policy
    if name not in POLICY_NAMES:
        raise ShedError(f"unknown policy {name!r}; choose from {', '.join(POLICY_NAMES)}", param="policy")
    if isinstance(wl, BandWorkload):  # narrows wl for the type checker
        return _run_band(wl, params, reference, bins)
    if name in OFFLINE:
        from shedding.offline.opt import DEFAULT_MAX_GRAPH_BYTES, solve_opt

        return solve_opt(wl, params.memory, None, allocation=OFFLINE[name],
                         max_graph_bytes=DEFAULT_MAX_GRAPH_BYTES if max_graph_bytes is None else max_graph_bytes)
    from shedding.online.simulator import run_online

    return run_online(wl, params, reference=reference)


def _run_band(bw: BandWorkload, params: RunParams, reference: Any, bins: int) -> RunResult | OptResult:
    """The band join's counterpart of :func:`run_params` (no decay: band histograms count every
    arrival equally)."""
    name = params.policy
    if name in OFFLINE:
        from shedding.band.opt import solve_opt

        return solve_opt(bw, params.memory, None, allocation=OFFLINE[name], reference=reference)
    from shedding.band.simulate import simulate_band

    return simulate_band(bw, name, params.memory, seed=params.seed, bins=bins, estimator=params.estimator,
                         reference=reference)
