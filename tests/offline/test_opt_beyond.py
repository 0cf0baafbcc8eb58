"""OPT and OPTV (Das, Gehrke, Riedewald 2003, §3.2) assume nothing about how the streams arise: on
small workloads of the age-based model (Srivastava and Widom 2004), drifting and bursty streams
they equal the exhaustive search over every admit/evict schedule, and every online policy stays
below them."""

from __future__ import annotations

import pytest

from shedding.datasets.age import age_workload
from shedding.datasets.bursts import burst_workload
from shedding.datasets.drift import drift_workload
from shedding.offline import solve_opt
from shedding.run import run_policy

from oracles import brute_force, split_of

CASES = [("age", seed) for seed in range(6)] + [("drift", seed) for seed in range(2)] + \
    [("bursts", seed) for seed in range(2)]


def tiny(kind: str, seed: int):
    if kind == "age":
        return age_workload(length=6, window=4, lag_mean=2, lag_spread=1, background=0.3, rate=0.8, skew=0.5,
                            domain=3, seed=seed, warmup=0)
    if kind == "drift":
        return drift_workload(skew=1.0, domain=3, length=6, period=2, shift=1, window=3, seed=seed, warmup=0)
    return burst_workload(domain=3, length=6, rate_low=0.5, rate_high=1.5, quiet=2, burst=2, window=3, seed=seed,
                          warmup=0)


@pytest.mark.parametrize("kind, seed", CASES)
@pytest.mark.parametrize("memory", [1, 2, 3])
@pytest.mark.parametrize("allocation", ["fixed", "variable"])
def test_opt_equals_brute_force(kind, seed, memory, allocation):
    wl = tiny(kind, seed)
    assert len(wl) <= 18  # small enough for the exhaustive search
    opt = solve_opt(wl, memory, allocation=allocation).outputs
    assert opt == brute_force(wl, memory, split_of(memory, allocation))
    v = "v" if allocation == "variable" else ""
    for policy in ("prob", "age", "hazard"):
        for estimator in ("static", "online"):
            assert run_policy(wl, policy + v, memory, estimator=estimator).outputs <= opt
