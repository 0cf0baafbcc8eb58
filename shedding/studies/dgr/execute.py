"""One DGR run, from its parameters to its results row: what a Spark task of ``shed compare`` does.

Each run regenerates its workload from its seed inside the task (Zipf data is cheap to make and
deterministic), runs the policy through the same library calls a user would make
(:func:`shedding.run.run_policy`, or OPT/OPTV by min-cost flow, Das, Gehrke, Riedewald 2003,
§3.2) and returns one row, so the numbers do not depend on how runs are partitioned. Weather runs
read streams the driver prepared once on Spark (:func:`prepare_files`) and broadcast.

Two kinds of evidence for the findings' likely causes ride along: an OPT run on the paper's i.i.d.
Zipf streams records the online bound (:func:`shedding.online.bound.online_bound`, the most any
online policy can expect at its point), and the LIFE readings of
:data:`shedding.studies.dgr.spec.LIFE_READINGS` run LIFE's engine with another probability table.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from shedding.model import RunResult, Workload
from shedding.datasets.generators import GENERATORS
from shedding.studies.dgr.spec import LIFE_READINGS, SHARED_PARAMS, RunSpec, generator_params

if TYPE_CHECKING:
    from shedding.offline.opt import OptResult

SHARE_SAMPLES = 400


def workload_of(s: RunSpec, streams: dict | None = None) -> Workload:
    """The run's workload: a generated one (Zipf, or any of the registry's generators, from its
    seed), the bundled SYNOP sample, or (dataset ``files``) the streams the driver prepared on
    Spark, per cell size."""
    if s.dataset in GENERATORS:
        source = GENERATORS[s.dataset]
        drawn = {"length": s.length, "seed": s.seed} if source.drawn else {}
        params = generator_params(s.dataset, {k: getattr(s, k) for k in SHARED_PARAMS})
        return source.generator()(window=s.window, warmup=s.warmup, **drawn, **params)
    if s.dataset == "synop-sample":
        from shedding.datasets.weather import synop_sample_workload

        return synop_sample_workload(s.cell_size, s.window, s.warmup)
    assert streams is not None  # dataset "files": the driver prepared the streams (prepare_files)
    side, time_, key, name = streams[s.cell_size]
    return Workload(side, time_, key, s.window, s.warmup, name)


def solve_or_bound(wl: Workload, memory: int, policy: str, max_graph_bytes: int | None = None
                   ) -> tuple[OptResult | None, dict]:
    """OPT or OPTV (``policy``) solved exactly (paper §3.2) when its network's size estimate is
    within ``max_graph_bytes`` (default 4 GiB; :func:`~shedding.offline.opt.check_size`, decided
    before anything is built), else bounded (:func:`~shedding.offline.opt.bound_opt`, docs/bounds.md). Returns
    (the exact result or None, the row's OPT columns: ``opt_kind`` "exact" or "bounds",
    ``opt_lower`` <= OPT <= ``opt_upper`` (equal when exact), and ``exact``, EXACT's count)."""
    from shedding.offline.opt import DEFAULT_MAX_GRAPH_BYTES, GraphTooLarge, bound_opt, solve_opt

    max_graph_bytes = DEFAULT_MAX_GRAPH_BYTES if max_graph_bytes is None else max_graph_bytes
    allocation = "variable" if policy == "optv" else "fixed"
    try:  # solve_opt refuses (GraphTooLarge) before it builds anything
        opt = solve_opt(wl, memory, allocation=allocation, max_graph_bytes=max_graph_bytes)
    except GraphTooLarge:  # too large to solve exactly within the limit: bound it instead
        b = bound_opt(wl, memory, allocation=allocation)
        return None, {"opt_kind": "bounds", "opt_lower": float(b.lower), "opt_upper": float(b.upper), "exact": b.exact}
    return opt, {"opt_kind": "exact", "opt_lower": float(opt.outputs), "opt_upper": float(opt.outputs),
                 "exact": opt.exact}


def life_reading(wl: Workload, policy: str, memory: int) -> int:
    """The output of LIFE's engine (§3.3.2) on ``wl`` with one of :data:`LIFE_READINGS`' tables in
    place of the partner stream's whole-stream frequencies: ``life-own`` weighs each tuple by its
    own stream's frequency of its key, ``life-flat`` gives every key the same weight (so only the
    remaining lifetime ranks tuples)."""
    from shedding.online import JoinOperator, StaticEstimator

    keys, counts_r, counts_s = wl.key_counts()
    table = (StaticEstimator(keys, counts_s, counts_r) if policy == "life-own"
             else StaticEstimator(keys, np.ones_like(counts_r), np.ones_like(counts_s)))
    op = JoinOperator(wl.window, memory, "life", warmup=wl.warmup, estimator=table)
    return int(op.feed(wl.side, wl.time, wl.key).outputs)


def bound_of(s: RunSpec, wl: Workload) -> float:
    """The online bound at an OPT run's point on the paper's i.i.d. Zipf streams (the most any
    online policy can expect there); NaN for other runs and data."""
    if s.policy != "opt" or s.dataset not in GENERATORS or GENERATORS[s.dataset].bound != "iid":
        return math.nan
    from shedding.online.bound import online_bound

    return float(online_bound(wl, s.memory))


def _count(value: float) -> int | float:
    """A count as an int, NaN (unknown: OPT's output and ArM where OPT is only bounded) as NaN."""
    return value if isinstance(value, float) and math.isnan(value) else int(value)


def execute(spec: dict, streams: dict | None = None, max_graph_bytes: int | None = None) -> dict:
    """One run, from its parameters to its results row (runs inside a Spark task). Weather runs
    record their real shape: ``domain`` is the number of distinct grid cells and ``length`` the
    reports per stream (the grid leaves both to the data). An OPT/OPTV run whose exact network
    would exceed ``max_graph_bytes`` records OPT's bounds (:func:`solve_or_bound`) with
    ``outputs``, ``ratio`` and ``arm`` unknown (NaN): ``outputs`` is OPT's output only when
    ``opt_kind`` is "exact"."""
    from shedding.online import simulate
    from shedding.run import run_policy

    s = RunSpec(**spec)
    wl = workload_of(s, streams)
    started = time.perf_counter()
    share = None
    bounds: dict = {"opt_kind": "", "opt_lower": math.nan, "opt_upper": math.nan}  # as solve_or_bound's
    if s.policy in ("opt", "optv"):
        opt, bounds = solve_or_bound(wl, s.memory, s.policy, max_graph_bytes)
        exact = bounds.pop("exact")
        outputs, arm = (math.nan, math.nan) if opt is None else (opt.outputs, opt.arm)
        if s.share and opt is not None:
            replay = simulate(wl, f"{s.policy}-schedule", s.memory, schedule=opt.schedule, samples=SHARE_SAMPLES)
            share = replay.share_time, replay.share_r, replay.share_s
    elif s.policy in LIFE_READINGS:
        from shedding.exact import exact_count

        outputs, exact, arm = life_reading(wl, s.policy, s.memory), exact_count(wl), math.nan
    else:
        res = run_policy(wl, s.policy, s.memory, seed=s.seed, estimator=s.estimator, samples=SHARE_SAMPLES)
        assert isinstance(res, RunResult) and res.arm is not None  # an online policy's run, which measures ArM
        outputs, exact, arm = res.outputs, res.exact, res.arm
        if s.share and res.share_time is not None:
            share = res.share_time, res.share_r, res.share_s
    shape = {} if s.dataset == "zipf" else {"domain": int(len(np.unique(wl.key))),
                                             "length": int(np.bincount(wl.side, minlength=2).max(initial=0))}
    return {
        **spec,
        **shape,
        "run_id": s.run_id,
        "outputs": _count(outputs),
        "exact": int(exact),
        "ratio": outputs / exact if exact else 1.0,
        "arm": _count(arm),
        **bounds,
        "seconds": time.perf_counter() - started,
        "online_bound": bound_of(s, wl),
        "share_t": json.dumps(share[0].tolist()) if share else "",
        "share_r": json.dumps(share[1].tolist()) if share else "",
        "share_s": json.dumps(share[2].tolist()) if share else "",
    }


def prepare_files(spark, specs: list[RunSpec], files: tuple[Path, Path, str], stations: Path | None) -> dict:
    """Read and grid the report files once per cell size on Spark, for broadcasting."""
    from shedding.datasets.weather import weather_workload

    streams = {}
    for cell in sorted({s.cell_size for s in specs if s.dataset == "files"}):
        wl = weather_workload(files[0], files[1], files[2], 1, 0, cell_size=cell, spark=spark, stations=stations)
        streams[cell] = (wl.side, wl.time, wl.key, wl.name)
    return streams


def task(spec: dict, shared: tuple[dict | None, int | None]) -> list[dict]:
    """A run as the study runner executes it: ``shared`` is (the prepared streams, the OPT size
    limit)."""
    streams, max_graph_bytes = shared
    return [execute(spec, streams, max_graph_bytes)]
