"""The JSON rows of ``shed simulate`` and ``shed opt`` (docs/shed-output.schema.json), and the
warm-up that keeps the engine's one-time compile out of every row's ``seconds``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from shedding.online.policies import OFFLINE

if TYPE_CHECKING:
    from shedding.model import Workload

#: The keys of every JSON row of simulate and opt, in order (docs/shed-output.schema.json).
ROW_FIELDS = ("policy", "outputs", "exact", "ratio", "arm", "memory", "memory_r", "memory_s", "seconds",
              "window", "warmup", "workload", "dataset", "skew", "skew_s", "domain", "length", "seed", "correlation",
              "estimator", "decay", "policy_seed", "group", "tuning", "allocation", "graph", "solver", "nodes", "arcs",
              "build_seconds", "solve_seconds")
#: The keys of every JSON row of ``shed opt --bounds``, in order (docs/shed-output.schema.json).
BOUNDS_FIELDS = ("policy", "lower", "upper", "gap", "lower_policy", "exact", "allocation", "iterations", "seconds",
                 "memory", "window", "warmup", "workload", "dataset", "skew", "skew_s", "domain", "length", "seed",
                 "correlation")
#: The keys of every online-bound row of ``shed simulate --bound``, in order.
ONLINE_BOUND_FIELDS = ("policy", "expected_outputs", "exact", "ratio", "relaxation", "memory", "memory_r", "memory_s",
                       "seconds", "window", "warmup", "workload", "dataset", "skew", "skew_s", "domain", "length", "seed",
                       "correlation")
#: The measured fields a row takes from a policy's result (the rest come from the workload and
#: the flags).
MEASURED = ("outputs", "exact", "ratio", "arm", "memory_r", "memory_s", "seconds", "allocation", "graph", "solver",
            "nodes", "arcs", "build_seconds", "solve_seconds")
#: The policies that take no online options (estimator, decay, RAND's seed): EXACT and the offline optimum.
REFERENCES = ("exact", *OFFLINE)


def workload_params(wl: Workload) -> dict:
    """The workload's fields of a row: the generator's parameters for Zipf; for the other
    generators their name, skew and seed where they have them; for files their format (and for
    timestamps the time step and the instant of step 0); and the distinct keys and the longer
    stream's length."""
    meta = wl.meta
    if meta.get("generator") == "zipf":
        params = {key: meta[key] for key in ("skew", "skew_s", "domain", "length", "seed", "correlation")} | {
            "dataset": "zipf"}
    elif meta.get("generator"):  # the generators beyond i.i.d. streams (age, drift, bursts, flights)
        params = {"dataset": meta["generator"], "domain": len(wl.key_counts()[0]), "length": max(wl.n_r, wl.n_s)}
        params |= {key: meta[key] for key in ("skew", "seed") if meta.get(key) is not None}
    else:
        fmt = meta.get("format")
        params = {"dataset": "+".join(dict.fromkeys(fmt)) if isinstance(fmt, (tuple, list)) else fmt,
                  "domain": len(wl.key_counts()[0]), "length": max(wl.n_r, wl.n_s)}
    ranged = {} if wl.range is None else {"range": list(wl.range)}  # a key of its own, only when given
    timed = {key: meta[key] for key in ("time_step", "time_origin") if key in meta}  # files of timestamps only
    return {"window": wl.window, "warmup": wl.warmup, "workload": wl.name, **params, **ranged, **timed}


def online_options(name: str, estimator: str, decay: float | None, seed: int) -> dict:
    """The options a row records for policy ``name``: none for EXACT and OPT; the estimator, its
    decay (``None`` where it does not apply) and the seed of a policy that draws (RAND) for the
    online policies."""
    from shedding.online.policies import seeded

    if name in REFERENCES:
        return {}
    return {"estimator": estimator, "decay": decay, "policy_seed": seed if seeded(name) else None}


def row(wl: Workload, memory: int, result: dict, **options: Any) -> dict:
    """One row: every key of ROW_FIELDS, null where it does not apply; ``memory`` is the M
    given (EXACT needs no limit)."""
    out = dict.fromkeys(ROW_FIELDS)
    out.update({key: result[key] for key in MEASURED if key in result})
    out.update(workload_params(wl), policy=result["policy"], memory=memory, **options)
    if "group_choice" in result:  # a key of its own, only with the grouping auto or auto-history
        out["group_choice"] = result["group_choice"]
    return out


def bounds_row(wl: Workload, memory: int, bounds: dict) -> dict:
    """The row of ``shed opt --bounds``: every key of BOUNDS_FIELDS, null where it does not apply
    (``bounds``: :meth:`shedding.offline.bounds.Bounds.as_dict`)."""
    return {**dict.fromkeys(BOUNDS_FIELDS), **bounds, **workload_params(wl), "memory": memory}


def online_bound_row(wl: Workload, memory: int, bound: dict) -> dict:
    """The row of one online bound of ``shed simulate --bound``: every key of
    ONLINE_BOUND_FIELDS (``bound``: the measured ones)."""
    params = {k: v for k, v in workload_params(wl).items() if k in ONLINE_BOUND_FIELDS}
    return {**dict.fromkeys(ONLINE_BOUND_FIELDS), **bound, **params, "memory": memory}


def warm_up(names: list[str]) -> None:
    """Run the join engine (and OPT's solver) once on a tiny workload, so that no policy's
    ``seconds`` includes loading their compiled code: the engine of the age-aware kinds (compiled
    apart, :func:`shedding.online.kernel.process`) only when one of them is chosen, the others'
    only when one of those is."""
    from shedding.model import Workload
    from shedding.online.policies import POLICIES
    from shedding.run import run_policy

    tiny = Workload.synchronous([0, 0], [0, 0], window=2, warmup=0)
    chosen = [POLICIES[n] for n in names if n in POLICIES]
    if any(not p.age_aware for p in chosen):
        run_policy(tiny, "prob", 1)
    if any(p.age_aware for p in chosen):
        run_policy(tiny, "hazard", 1)
    if {"opt", "optv"} & set(names):
        run_policy(tiny, "opt", 2)
