"""The join operator's snapshot (JoinOperator.snapshot / restore): plain data only, read by name,
and an operator restored from it mid-stream continues exactly as the one never stopped."""

from __future__ import annotations

import io

import numpy as np
import pytest

from helpers import assert_one_line_error, assert_same_state, unpickling_refused
from shedding.datasets import zipf_workload
from shedding.datasets.age import age_workload
from shedding.errors import ShedError
from shedding.online import POLICIES, JoinOperator, OnlineEstimator, StaticEstimator
from shedding.online.aged import AgedArrays
from shedding.online.layout import JoinState
from shedding.online.tuning import HazardTuning

#: every policy that chooses (OPT's replay takes a schedule, and is covered by the same code)
CHOOSING = [name for name, p in POLICIES.items() if not p.replay]
#: refit often, so that the learner's state is well under way at the cut
EAGER = HazardTuning(first=2, ratio=1.5, shadow=8, refit_first=4, refit_every=64, test=False)


def through_npz(snap: dict) -> dict:
    """The snapshot stored and read back as an npz file without pickles, as a checkpoint is."""
    out = io.BytesIO()
    np.savez(out, **snap)
    with np.load(io.BytesIO(out.getvalue()), allow_pickle=False) as npz:
        return {name: npz[name] for name in npz.files}


def operator(wl, policy: str, static: bool = False, **kw) -> JoinOperator:
    est = StaticEstimator.from_workload(wl, ages=True) if static else OnlineEstimator(0.999)
    return JoinOperator(wl.window, 24, POLICIES[policy], warmup=wl.warmup, estimator=est, pairs=True, record=True,
                        seed=7, tuning=EAGER if POLICIES[policy].tunable else None, **kw)


def cut_run(wl, policy: str, cut: bool, group: np.ndarray | None = None, static: bool = False) -> list:
    """Everything the operator reports, fed in three pieces; with ``cut`` it is snapshotted,
    stored as npz and restored between them."""
    op = operator(wl, policy, static)
    steps = np.flatnonzero(np.r_[True, wl.time[1:] != wl.time[:-1]])
    bounds = [0, steps[len(steps) // 3], steps[2 * len(steps) // 3], len(wl)]
    out = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        if cut and lo:
            snap = through_npz(op.snapshot())
            with unpickling_refused():
                restored = JoinOperator.restore(snap)
            assert_same_state(op, restored, "op")
            op = restored
        fed = op.feed(wl.side[lo:hi], wl.time[lo:hi], wl.key[lo:hi], None if group is None else group[lo:hi])
        out.append((fed.outputs, fed.pairs.tolist(), fed.departures.tolist(), fed.share.tolist()))
        if hi == bounds[1] and policy not in ("prob", "probv"):  # the budget changes mid-stream too
            out.append(op.set_memory(18, (9, 9)).tolist())
    out.append(op.finish().tolist())
    return out


@pytest.mark.parametrize("policy", CHOOSING)
def test_a_restored_operator_continues_as_the_uninterrupted_one(policy):
    wl = zipf_workload(1.0, 40, 1200, seed=2, window=60, warmup=10)
    assert cut_run(wl, policy, cut=True) == cut_run(wl, policy, cut=False)


@pytest.mark.parametrize("policy", ["hazard", "hazardv"])
def test_hazard_with_groups_and_an_online_estimator(policy):
    aged = age_workload(length=1500, window=80, lag_mean=25, lag_spread=5)
    group = np.minimum(np.arange(len(aged)) // 300, 4)  # groups first seen after the cut too
    assert cut_run(aged, policy, cut=True, group=group) == cut_run(aged, policy, cut=False, group=group)


@pytest.mark.parametrize("policy", ["age", "agev"])
def test_age_with_a_known_curve(policy):
    aged = age_workload(length=1200, window=80, lag_mean=25, lag_spread=5)
    assert operator(aged, policy, static=True)._aged._plan is not None  # the plan is in the snapshot
    assert cut_run(aged, policy, cut=True, static=True) == cut_run(aged, policy, cut=False, static=True)


def test_a_snapshot_is_plain_data_read_by_name():
    wl = zipf_workload(1.0, 20, 300, seed=1, window=30)
    op = operator(wl, "hazard")
    op.feed(wl.side, wl.time, wl.key)
    snap = op.snapshot()
    for name, value in snap.items():
        assert isinstance(value, (int, float, str, bool, np.ndarray)), name
        assert not isinstance(value, np.ndarray) or value.dtype.kind in "biufU", name
    assert {f"state.{f}" for f in JoinState._fields} | {f"aged.{f}" for f in AgedArrays._fields} <= set(snap)
    assert snap["policy.name"] == "hazard" and snap["estimator.decay"] == 0.999
    assert snap["rng.state"].dtype == np.uint64 and snap["rng.bit_generator"] == "PCG64"
    assert not np.shares_memory(snap["state.node"], op._node)  # a copy: feeding on leaves it as it was


def test_restore_refuses_objects_and_unknown_or_missing_entries():
    wl = zipf_workload(1.0, 20, 300, seed=1, window=30)
    op = operator(wl, "prob")
    op.feed(wl.side, wl.time, wl.key)
    snap = op.snapshot()
    JoinOperator.restore(snap)
    with pytest.raises(ShedError) as exc:
        JoinOperator.restore(snap | {"keys": np.array([1, "a"], dtype=object)})
    assert_one_line_error(exc, "'keys'", "object", "no Python objects")
    with pytest.raises(ShedError) as exc:
        JoinOperator.restore(snap | {"state.extra": np.zeros(3)})
    assert_one_line_error(exc, "state.extra", "another version")
    with pytest.raises(ShedError) as exc:
        JoinOperator.restore({k: v for k, v in snap.items() if k != "aged.hsc"})
    assert_one_line_error(exc, "aged.hsc", "this version")
