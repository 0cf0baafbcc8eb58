"""The one pass criterion (:mod:`shedding.studies.page.criterion`): the mean over seeds and the
share of seeds that may miss, the seed-range escape on both sides of its line, and a timed value
decided only where its spread does not straddle the criterion."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from shedding.studies.page.criterion import MISS_SHARE, Criterion, judge
from shedding.studies.page.verdicts import checked, verdict_word

ABOVE_ONE = Criterion(low=1.0)


def seeds(*values: float, point: object = "x") -> pd.Series:
    """One point's values, one per seed."""
    return pd.Series(values, index=pd.MultiIndex.from_tuples([(point, s) for s in range(len(values))]))


@pytest.mark.parametrize("values, ok, inside", [
    ((2.0, 2.0, 2.0), True, False),
    ((2.0, 2.0, 0.9), True, False),  # mean meets, one seed of three misses: a third may
    ((3.0, 0.9, 0.9), False, False),  # mean meets, two of three miss: more than half, outside the seed range
    ((1.05, 1.05, 0.5), False, True),  # mean misses, one of three misses: inside the seed range
    ((0.5, 0.5, 0.5), False, False),
    ((1.5, 0.9), False, True),  # two seeds: none may miss; one of two is at most half, inside
    ((0.9,), False, False),  # one seed is never inside a range
    ((1.2,), True, False),
])
def test_the_pass_criterion_and_the_seed_range_on_both_sides(values, ok, inside):
    j = judge(seeds(*values), ABOVE_ONE)
    assert (j.ok, j.inside) == (ok, inside)
    assert j.failing == (() if ok else ("x",))
    assert j.met["x"] == (sum(v >= 1 for v in values), len(values))


def test_the_share_that_may_miss_is_a_third_rounded_down():
    assert MISS_SHARE == pytest.approx(1 / 3)
    six = [2.0] * 4 + [0.9] * 2  # two of six miss: a third
    assert judge(seeds(*six), ABOVE_ONE).ok is True
    assert judge(seeds(*([2.0] * 3 + [0.9] * 3)), ABOVE_ONE).ok is False  # half


def test_a_check_passes_only_where_every_point_passes_and_inside_only_where_every_failure_is():
    values = pd.concat([seeds(2.0, 2.0, 2.0, point=2), seeds(1.05, 1.05, 0.5, point=3)])
    j = judge(values, ABOVE_ONE)
    assert (j.ok, j.inside, j.failing) == (False, True, (3,))
    values = pd.concat([values, seeds(0.5, 0.5, 0.5, point=4)])
    assert judge(values, ABOVE_ONE).inside is False


def test_a_timed_value_is_decided_only_where_its_spread_lies_on_one_side():
    values = seeds(1.1, 1.2, 1.15)
    clear = judge(values, ABOVE_ONE, values - 0.05, values + 0.05)
    assert clear.ok is True and not clear.undecided
    straddles = judge(values, ABOVE_ONE, values - 0.2, values + 0.2)
    assert straddles.ok is None and straddles.undecided == ("x",)
    below = seeds(0.7, 0.8, 0.75)
    assert judge(below, ABOVE_ONE, below - 0.1, below + 0.1).ok is False  # fails at both ends


def test_a_band_criterion_is_undecided_when_a_spread_reaches_past_either_end():
    band = Criterion(1 / 1.5, 1.5)
    values = seeds(1.0, 1.1, 0.9)
    assert judge(values, band, values - 0.1, values + 0.1).ok is True
    assert judge(values, band, values - 0.5, values + 0.1).ok is None


def test_an_undecided_check_makes_the_claim_not_decidable_unless_it_cannot_matter():
    values = seeds(1.1, 1.2, 1.15)
    undecided = checked(judge(values, ABOVE_ONE, values - 0.2, values + 0.2), "timed", "a cause")
    passed = checked(judge(values, ABOVE_ONE), "exact")
    failed = checked(judge(seeds(0.5, 0.5, 0.5), ABOVE_ONE), "exact", "a cause")
    assert undecided.undecided and undecided.cause == "" and failed.cause == "a cause" and passed.cause == ""
    assert verdict_word([passed, undecided]) == "not decidable at this scale"
    assert verdict_word([failed, failed, undecided]) == "disagrees"


def test_one_point_without_a_point_level():
    j = judge(pd.Series([2.0, 2.0, 0.5]), ABOVE_ONE)
    assert j.ok is True and j.met[None] == (2, 3)
    assert math.isinf(Criterion().low) and judge(pd.Series([np.nan, 2.0]), ABOVE_ONE).ok is True
