"""The W-join's synthetic streams (paper §4.2): exponential inter-arrivals per stream, Zipf keys."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import assert_one_line_error
from shedding import ShedError
from shedding.datasets.zipf import zipf_probabilities
from shedding.wjoin.generator import synthetic_streams


def test_rates_keys_and_determinism():
    s = synthetic_streams(3, 20_000, rates=[2.0, 0.5, 0.05], skew=1.0, domain=8, seed=4)
    assert s.names == ("A", "B", "C") and s.lengths() == [20_000] * 3
    for times, rate in zip(s.times, [2.0, 0.5, 0.05]):
        assert np.all(np.diff(times) >= 0)
        assert times[-1] / len(times) == pytest.approx(1 / rate, rel=0.05)
    freq = np.bincount(np.concatenate(s.keys), minlength=8) / 60_000
    assert np.abs(freq - zipf_probabilities(1.0, 8)).max() < 0.01
    again = synthetic_streams(3, 20_000, rates=[2.0, 0.5, 0.05], skew=1.0, domain=8, seed=4)
    other = synthetic_streams(3, 20_000, rates=[2.0, 0.5, 0.05], skew=1.0, domain=8, seed=5)
    assert all(np.array_equal(a, b) for a, b in zip(s.times + s.keys, again.times + again.keys))
    assert not np.array_equal(s.keys[0], other.keys[0])


def test_a_stream_switching_rates_every_100_tuples():
    """Figure 9(c): stream D alternates between 10 and 1000 tuples/s (time unit: 1 ms)."""
    s = synthetic_streams(4, 40_000, rates=[1.0, 1.0, 1.0, (0.01, 1.0)], seed=1)
    gaps = np.diff(np.concatenate([[0], s.times[3]])).reshape(-1, 100).mean(axis=1)
    assert gaps[0::2].mean() == pytest.approx(100, rel=0.05) and gaps[1::2].mean() == pytest.approx(1, rel=0.1)


@pytest.mark.parametrize("kwargs,words", [
    ({"n_streams": 1}, ("n_streams", ">= 2")),
    ({"rates": [1.0, 0.0, 1.0]}, ("rate of stream 1", "> 0")),
    ({"rates": [1.0]}, ("1 rates for 3 streams",)),
    ({"domain": 0}, ("domain",)),
    ({"skew": -1}, ("skew",)),
])
def test_bad_parameters(kwargs, words):
    with pytest.raises(ShedError) as exc:
        synthetic_streams(**kwargs)
    assert_one_line_error(exc, *words)
