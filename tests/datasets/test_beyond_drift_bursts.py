"""Drifting and bursty Zipf streams (shedding.datasets.drift, shedding.datasets.bursts)."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import assert_one_line_error
from shedding.datasets import zipf_workload
from shedding.datasets.bursts import burst_workload
from shedding.datasets.drift import drift_workload
from shedding.errors import ShedError
from shedding.model import R, S


def test_drift_without_shift_is_the_papers_stream():
    a = drift_workload(shift=0, length=1000, seed=4)
    b = zipf_workload(length=1000, seed=4, window=400)
    assert np.array_equal(a.key, b.key) and np.array_equal(a.time, b.time) and np.array_equal(a.side, b.side)


def test_drift_rotates_the_hot_value_every_period():
    wl = drift_workload(skew=2.0, domain=20, length=4000, period=1000, shift=3, seed=1)
    r_time, r_key = wl.stream(R)
    hot = [int(np.argmax(np.bincount(r_key[(r_time // 1000) == e], minlength=20))) for e in range(4)]
    assert hot == [0, 3, 6, 9]
    s_time, s_key = wl.stream(S)
    s_hot = [int(np.argmax(np.bincount(s_key[(s_time // 1000) == e], minlength=20))) for e in range(4)]
    assert len(set(s_hot)) == 4
    assert wl.meta["generator"] == "drift" and wl.meta["period"] == 1000


def test_drift_deterministic_per_seed():
    assert np.array_equal(drift_workload(length=300, seed=2).key, drift_workload(length=300, seed=2).key)


def test_bursts_switch_rates_and_keys():
    wl = burst_workload(length=20000, rate_low=0.5, rate_high=4.0, quiet=500, burst=100, seed=2)
    phase = wl.meta["phase"]
    busy = phase % 2 == 1
    assert 0.1 < busy.mean() < 0.25
    r_time, r_key = wl.stream(R)
    per_step = np.bincount(r_time, minlength=20000)
    assert per_step[busy].mean() == pytest.approx(4.0, rel=0.1)
    assert per_step[~busy].mean() == pytest.approx(0.5, rel=0.1)
    # each burst has hot keys of its own: the most frequent key differs between bursts
    bursts = np.unique(phase[busy])
    hot = {int(np.argmax(np.bincount(r_key[phase[r_time] == b], minlength=50))) for b in bursts}
    assert len(hot) > 1
    quiet_keys = r_key[phase[r_time] % 2 == 0]
    assert int(np.argmax(np.bincount(quiet_keys, minlength=50))) == 0


def test_bursts_without_rotation_keep_the_keys():
    wl = burst_workload(length=5000, rotate=False, skew=2.0, seed=1)
    assert int(np.argmax(np.bincount(wl.stream(R)[1], minlength=50))) == 0


def test_bursts_deterministic_per_seed():
    a, b = burst_workload(length=800, seed=9), burst_workload(length=800, seed=9)
    assert np.array_equal(a.time, b.time) and np.array_equal(a.key, b.key)


@pytest.mark.parametrize("make, kwargs, param", [
    (drift_workload, {"period": 0}, "period"),
    (drift_workload, {"shift": -1}, "shift"),
    (drift_workload, {"skew": -1}, "skew"),
    (burst_workload, {"rate_high": -2}, "rate_high"),
    (burst_workload, {"rate_high": 1e300}, "rate_high"),  # was numpy's "lam value too large"
    (burst_workload, {"quiet": 0.5}, "quiet"),
    (burst_workload, {"rotate": "yes"}, "rotate"),
    (burst_workload, {"correlation": "x"}, "correlation"),
])
def test_bad_parameters_name_themselves(make, kwargs, param):
    with pytest.raises(ShedError) as exc:
        make(length=10, **kwargs)
    assert_one_line_error(exc, param)
    assert exc.value.param == param
