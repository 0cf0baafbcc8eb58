"""The generators by name (shedding.datasets.generators): NAME=VALUE parameters typed by the
generator's defaults, and the same workload as calling the generator itself."""

from __future__ import annotations

import numpy as np
import pytest

from shedding.datasets.age import age_workload
from shedding.datasets.bursts import burst_workload
from shedding.datasets.generators import GENERATORS, generate, own_params, parse_params
from shedding.errors import ShedError


def test_parameters_are_typed_by_the_defaults():
    got = parse_params("age", ["lag_spread=5", "lag=gamma", "domain=100", "lag_pmf=0,0.5,0.5"])
    assert got == {"lag_spread": 5.0, "lag": "gamma", "domain": 100, "lag_pmf": [0.0, 0.5, 0.5]}
    assert parse_params("bursts", ["rotate=false"]) == {"rotate": False}
    assert parse_params("flights", ["months=7-12", "key=dest"]) == {"months": (7, 12), "key": "dest"}
    assert "length" not in own_params("age") and "seed" not in own_params("drift")
    assert set(GENERATORS) == {"zipf", "age", "drift", "bursts", "flights"}


def test_generate_is_the_generator():
    a = generate("age", {"lag_spread": 5.0}, window=200, warmup=None, length=500, seed=3)
    b = age_workload(length=500, window=200, lag_spread=5.0, seed=3)
    assert np.array_equal(a.key, b.key) and np.array_equal(a.time, b.time) and a.warmup == b.warmup
    c = generate("bursts", {"rotate": False}, window=50, warmup=0, length=300, seed=1)
    d = burst_workload(length=300, window=50, rotate=False, seed=1, warmup=0)
    assert np.array_equal(c.key, d.key) and np.array_equal(c.side, d.side)


@pytest.mark.parametrize("name, items, match", [
    ("age", ["gate=1"], "'gate' is no parameter of the age generator"),
    ("age", ["lag_spread"], "must read NAME=VALUE"),
    ("age", ["lag_mean=1", "lag_mean=2"], "given twice"),
    ("drift", ["period=x"], "period='x' is not a number"),
    ("flights", ["months=a-b"], "is not a month range"),
    ("flights", ["months=1-"], "months='1-' is not a month range; e.g. months=7-12"),  # was January alone
    ("flights", ["months=-12"], "months='-12' is not a month range"),
    ("nope", [], "unknown generator 'nope'"),
])
def test_bad_parameters(name, items, match):
    with pytest.raises(ShedError, match=match):
        parse_params(name, items)


@pytest.mark.parametrize("name, params, empty", [
    ("age", {"partner": 0.0, "background": 0.0}, "S"),
    ("bursts", {"rate_low": 0.0, "rate_high": 0.0}, "R or S"),
])
def test_a_workload_with_an_empty_stream_is_refused(name, params, empty):
    """A stream with no tuples joins nothing: it was an empty run, every count 0, with no message."""
    with pytest.raises(ShedError, match=f"^the {name} workload drew no tuples in stream {empty} "):
        generate(name, params, window=200, warmup=None, length=100)


def test_a_bad_value_names_the_parameter():
    with pytest.raises(ShedError, match="^params lag_spread must be a number >= 0"):
        generate("age", {"lag_spread": -1.0}, window=200, warmup=None)
