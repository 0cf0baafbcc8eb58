"""The library misused through its public entry points: each mistake is one ShedError naming the
parameter (``param``), never a silently wrong run (a split truncated, a flag taken as 1, an
option ignored) and never an AttributeError from inside a run."""

from __future__ import annotations

import numpy as np
import pytest

from shedding import (ShedError, Workload, exact_count, exact_pairs, load_two_streams, load_workload, run_policy,
                      simulate, zipf_workload)
from shedding.offline import bound_opt, solve_opt


@pytest.fixture(scope="module")
def wl():
    return zipf_workload(1.0, 20, 300, 0, "independent", 20)


CASES = [
    ("memory_split", lambda wl: simulate(wl, "prob", 11, memory_split=(5.5, 5.5))),  # was truncated to 5,5
    ("memory_split", lambda wl: simulate(wl, "prob", 10, memory_split=(True, 9))),  # was taken as (1, 9)
    ("memory_split", lambda wl: simulate(wl, "prob", 10, memory_split=(10,))),
    ("memory_split", lambda wl: run_policy(wl, "opt", 10, memory_split=(5.0, 5))),
    ("tuning", lambda wl: simulate(wl, "prob", 10, tuning="ratio=2")),  # was ignored
    ("tuning", lambda wl: run_policy(wl, "exact", 10, tuning="ratio=2")),
    ("tuning", lambda wl: run_policy(wl, "opt", 10, tuning="ratio=2")),
    ("samples", lambda wl: simulate(wl, "prob", 10, samples=-1)),  # was accepted
    ("samples", lambda wl: run_policy(wl, "prob", 10, samples=0)),
    ("samples", lambda wl: simulate(wl, "prob", 10, samples=2.5)),
    ("window", lambda wl: Workload([0], [0], [1], window=True)),  # was a window of 1
    ("wl", lambda wl: simulate([1, 2], "prob", 10)),  # the AttributeErrors
    ("wl", lambda wl: run_policy("wl", "prob", 10)),
    ("wl", lambda wl: solve_opt({"a": 1}, 10)),
    ("wl", lambda wl: exact_count([1])),
    ("wl", lambda wl: exact_pairs("x")),
    ("policy", lambda wl: simulate(wl, 3, 10)),
    ("policy", lambda wl: run_policy(wl, None, 10)),
    ("estimator", lambda wl: simulate(wl, "prob", 10, estimator=3)),
    ("path", lambda wl: load_workload(3, 10)),
    ("r_path", lambda wl: load_two_streams(3, "s.csv", 10)),
    ("wl", lambda wl: bound_opt("wl", 10)),
    ("reference", lambda wl: simulate(wl, "prob", 10, reference="x")),
    ("schedule", lambda wl: simulate(wl, "opt-schedule", 10, schedule="x")),
]


@pytest.mark.parametrize("param, call", CASES, ids=[f"{p}-{i}" for i, (p, _) in enumerate(CASES)])
def test_a_misuse_is_one_error_naming_the_parameter(wl, param, call):
    with pytest.raises(ShedError) as info:
        call(wl)
    assert info.value.param == param and param in str(info.value) and "\n" not in str(info.value)


def test_what_is_right_still_runs(wl):
    assert simulate(wl, "prob", 10, memory_split=(np.int64(4), 6)).outputs > 0
    assert run_policy(wl, "hazard", 10, tuning="ratio=2").outputs > 0


class _Frame:
    """Enough of a DataFrame to reach the argument checks (which run before Spark is used)."""

    sparkSession = None


@pytest.mark.parametrize("kwargs, param", [({"shedding": None}, "shedding"), ({"shedding": 3}, "shedding")])
def test_the_streaming_join_refuses_a_shedding_that_is_not_a_name(kwargs, param):
    from shedding.streaming import semantic_window_join

    with pytest.raises(ShedError) as info:  # None read as "none" ran the exact join
        semantic_window_join(_Frame(), _Frame(), window=5, memory=4, **kwargs)
    assert info.value.param == param


def test_the_streaming_join_refuses_what_is_not_a_dataframe():
    from shedding.streaming import semantic_window_join

    with pytest.raises(ShedError) as info:
        semantic_window_join([1], _Frame(), window=5, memory=4)
    assert info.value.param == "r"


def test_run_policy_is_exported():
    import shedding
    from shedding.run import run_policy as defined

    assert shedding.run_policy is defined and "run_policy" in shedding.__all__
