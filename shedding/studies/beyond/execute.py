"""One run of a beyond suite (:mod:`.spec`): the workload of a grid point and a seed, OPT (OPTV
for the variable-split policies, Das, Gehrke, Riedewald 2003, §3.2) and every policy on it, each as
a fraction of its optimum, with its time per arrival; on the age-based model also the most any
online policy can get in expectation (:mod:`shedding.offline.agebound`). Runs execute here, one
after another, so that the policies' times compare."""

from __future__ import annotations

import json
import math

from shedding.datasets.generators import GENERATORS, generate
from shedding.offline.agebound import age_bound
from shedding.offline.opt import solve_opt
from shedding.online.groups import run_group
from shedding.online.kinds import HAZARD
from shedding.online.policies import get_policy, grouped
from shedding.online.simulator import Reference
from shedding.online.tuning import HazardTuning
from shedding.run import run_policy
from shedding.studies.beyond.spec import BeyondRun


def execute(run: BeyondRun) -> list[dict]:
    """The rows of one run: one per policy, with its experiment and run id first."""
    params = json.loads(run.params)
    wl = generate(run.generator, params, window=run.window, warmup=None, length=run.length, seed=run.seed)
    if run.range:
        lo, hi = (int(part) for part in run.range.split(","))
        wl = wl.with_params(range=(lo, hi))
    ref = Reference.of(wl)
    optimum, bound = {}, {}
    for variable in sorted({get_policy(p).variable for p in run.policies}):
        optimum[variable], bound[variable] = _optimum(wl, run, variable)
    # HAZARD's grouping: the grid's, or (for "") its default on this join (auto-history under a one-sided range)
    grouping = run.group or ",".join(run_group(None, wl.bounds, any(map(grouped, run.policies))) or ())
    label = {"generator": run.generator, "split": run.split, "seed": run.seed, "window": run.window,
             "memory": run.memory, "estimator": run.estimator, "group": grouping, "tuning": run.tuning, "x": run.x,
             "setting": f"{run.generator} {run.params} w={run.window}{' range=' + run.range if run.range else ''} "
                        f"M={run.memory} {run.estimator} {grouping}",
             **{k: v if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v) for k, v in params.items()},
             **({"range": run.range} if run.range else {})}
    learner = HazardTuning.parse(run.tuning) if run.tuning else None
    rows = []
    for policy in run.policies:
        pol = get_policy(policy)
        group = run.group or None if pol.kind == HAZARD else None
        res = run_policy(wl, policy, run.memory, estimator=run.estimator, reference=ref, group=group,
                         tuning=learner if pol.tunable else None)
        opt = optimum[pol.variable]
        rows.append({"experiment": run.experiment, "run_id": run.run_id, **label, "policy": policy,
                     "outputs": int(res.outputs), "exact": int(ref.exact), "opt": int(opt),
                     "fraction": res.outputs / opt if opt else 1.0, "online_bound": bound[pol.variable],
                     "guard": getattr(res, "guard", None) or "",
                     "seconds": res.seconds,
                     "us_per_arrival": 1e6 * res.seconds / max(len(wl), 1), "tuples": len(wl)})
    return rows


#: OPT's outputs and the online bound per workload, memory and split: the runs of one grid point
#: with a ``tuning`` grid (one per setting, and one for the policies that learn nothing) share
#: them, and runs execute one after another in this process
_OPTIMA: dict[tuple, tuple[int, float]] = {}


def _optimum(wl, run: BeyondRun, variable: bool) -> tuple[int, float]:
    """OPT's (OPTV's) outputs on ``wl`` and, on the age-based model, the online bound, solved once
    per workload (generator, parameters, window, length, seed), memory and split."""
    key = (run.generator, run.params, run.window, run.range, run.length, run.seed, run.memory, variable)
    if key not in _OPTIMA:
        opt = solve_opt(wl, run.memory, allocation="variable" if variable else "fixed").outputs
        aged = GENERATORS[run.generator].bound == "age" and not run.range  # the bound is of the window join
        bound = age_bound(wl, run.memory, variable=variable) if aged else math.nan
        if len(_OPTIMA) >= 1024:
            _OPTIMA.clear()
        _OPTIMA[key] = (int(opt), bound)
    return _OPTIMA[key]


def task(spec: dict, shared: None = None) -> list[dict]:
    """A run as the study runner executes it."""
    return execute(BeyondRun(**{**spec, "policies": tuple(spec["policies"])}))
