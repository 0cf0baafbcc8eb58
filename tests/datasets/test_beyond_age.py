"""The age-based model of Srivastava and Widom (shedding.datasets.age)."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import assert_one_line_error
from shedding.datasets.age import LAGS, MAX_SPREAD_WINDOWS, MIN_SPREAD, age_workload, check_age_curve, lag_distribution
from shedding.errors import ShedError
from shedding.exact import exact_pairs
from shedding.model import R, S


@pytest.mark.parametrize("lag", LAGS)
def test_lag_distribution_has_the_mean_and_spread(lag):
    pmf = lag_distribution(lag, 100, 20, 400)
    a = np.arange(400)
    assert pmf[0] == 0 and pmf.sum() == pytest.approx(1.0)
    mean = (pmf * a).sum()
    assert mean == pytest.approx(100, abs=0.5)
    spread = np.sqrt((pmf * (a - mean) ** 2).sum())
    assert spread == pytest.approx({"normal": 20, "gamma": 20, "uniform": np.sqrt((41 ** 2 - 1) / 12)}[lag], rel=0.02)


@pytest.mark.parametrize("lag", LAGS)
@pytest.mark.parametrize("window", [2, 400, 100_000])
def test_the_extreme_spreads_give_distributions(lag, window):
    for mean in (1.0, 1.5, window / 2, window - 1.0):
        for spread in (MIN_SPREAD, MAX_SPREAD_WINDOWS * window):
            pmf = lag_distribution(lag, min(mean, window - 1.0), spread, window)
            assert np.all(np.isfinite(pmf)) and pmf[0] == 0 and pmf.sum() == pytest.approx(1.0)


def test_lag_distribution_is_cut_to_the_window():
    pmf = lag_distribution("normal", 9, 5, 10)
    assert pmf.shape == (10,) and pmf[0] == 0 and pmf.sum() == pytest.approx(1.0)


def test_every_partner_arrives_at_its_fixed_lag():
    wl = age_workload(length=300, window=50, lag_mean=7, lag_spread=0, background=0.0, domain=10**6, skew=0.0)
    r_time, r_key = wl.stream(R)
    s_time, s_key = wl.stream(S)
    # every S tuple is the partner of an R tuple with its key 7 steps earlier
    assert set(zip((s_time - 7).tolist(), s_key.tolist())) <= set(zip(r_time.tolist(), r_key.tolist()))
    assert len(s_time) == np.count_nonzero(r_time + 7 < 300)


def test_background_share_and_rate():
    wl = age_workload(length=20000, background=0.75, rate=0.5, seed=3)
    assert wl.n_r == pytest.approx(10000, rel=0.03)
    partners = np.count_nonzero(wl.stream(R)[0] + 0 < 20000)  # nearly every R tuple has its partner
    assert wl.n_s == pytest.approx(4 * partners, rel=0.05)
    assert wl.meta["generator"] == "age" and wl.meta["background"] == 0.75 and wl.meta["lag_pmf"].sum() == pytest.approx(1)


def test_pair_lags_follow_the_age_curve():
    wl = age_workload(length=4000, window=60, lag="uniform", lag_mean=20, lag_spread=5, background=0.0,
                      domain=10**6, skew=0.0, seed=1, warmup=0)
    pairs = exact_pairs(wl)
    lags = wl.time[pairs[:, 1]] - wl.time[pairs[:, 0]]
    inside = (lags >= 15) & (lags <= 25)
    assert np.count_nonzero(inside) >= wl.n_s and inside.mean() > 0.99  # a few pairs of keys collide
    assert np.bincount(lags[inside] - 15).min() > 0.8 * wl.n_s / 11


def test_deterministic_per_seed_and_seeds_differ():
    a, b, c = age_workload(length=500, seed=5), age_workload(length=500, seed=5), age_workload(length=500, seed=6)
    assert np.array_equal(a.time, b.time) and np.array_equal(a.key, b.key) and np.array_equal(a.side, b.side)
    assert not (len(a) == len(c) and np.array_equal(a.key, c.key))


def test_lag_pmf_given_directly():
    wl = age_workload(length=200, window=10, lag_pmf=[0, 0, 0.5, 0.5], background=0.0, domain=10**6, skew=0.0)
    assert wl.meta["lag_pmf"].tolist() == [0, 0, 0.5, 0.5, 0, 0, 0, 0, 0, 0]
    assert "lag_pmf" in wl.name


@pytest.mark.parametrize("curve, words", [
    ([0, 0.5, 0.4], ["lag_pmf", "sum to 1"]),
    ([0, -0.5, 1.5], ["lag_pmf", ">= 0"]),
    ([0.5, 0.5], ["lag_pmf", "lag 0"]),
    ([0] * 12 + [1.0], ["lag_pmf", "beyond"]),
    ([0, float("nan"), 1], ["lag_pmf", "finite"]),
    ("0,0.5,0.5", ["lag_pmf", "a list of finite probabilities"]),
    ([[0, 1], [0, 0.5, 0.5]], ["lag_pmf", "a list of finite probabilities"]),
])
def test_an_age_curve_that_is_not_a_distribution_is_refused(curve, words):
    with pytest.raises(ShedError) as exc:
        check_age_curve(curve, 10)
    assert_one_line_error(exc, *words)
    assert exc.value.param == "lag_pmf"


@pytest.mark.parametrize("kwargs, param", [
    ({"lag": "poisson"}, "lag"),
    ({"lag_mean": 0}, "lag_mean"),
    ({"lag_mean": 500}, "lag_mean"),
    ({"lag_spread": -1}, "lag_spread"),
    # spreads whose gamma overflowed (an OverflowError); no spread outside the range is of use
    ({"lag": "gamma", "lag_spread": 1e-300}, "lag_spread"),
    ({"lag": "gamma", "lag_spread": 1e300}, "lag_spread"),
    ({"lag_spread": 5e-7}, "lag_spread"),
    ({"lag_spread": 400_001}, "lag_spread"),
    ({"background": 1.0}, "background"),
    ({"partner": 1.5}, "partner"),
    ({"rate": -1}, "rate"),
    ({"rate": 0}, "rate"),  # was an empty workload
    ({"rate": 1e300}, "rate"),  # was numpy's "lam value too large"
    ({"domain": 0}, "domain"),
    ({"seed": -1}, "seed"),
    ({"correlation": "anti"}, "correlation"),
])
def test_bad_parameters_name_themselves(kwargs, param):
    with pytest.raises(ShedError) as exc:
        age_workload(length=10, **kwargs)
    assert_one_line_error(exc, param)
    assert exc.value.param == param
