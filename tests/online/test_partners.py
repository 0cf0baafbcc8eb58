"""The times and ages at which a tuple meets partners under a time range lo <= s.time - r.time <= hi
(docs/semantics.md, "Time range"), held to the join condition itself: the compiled join's
:mod:`shedding.online.partners` and the Python pair form, :func:`shedding.online.bound.ages_within`."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from shedding.online.bound import ages_within
from shedding.online.layout import P_HI, P_LO, SC_FIELDS
from shedding.online.partners import first_partner, last_partner, partner_ages

SPAN = 12  # the ranges drawn lie within -SPAN .. SPAN


def _sc(lo: int, hi: int) -> np.ndarray:
    sc = np.zeros(SC_FIELDS, np.int64)
    sc[P_LO], sc[P_HI] = lo, hi
    return sc


def _pairs(lo: int, hi: int, r: int, s: int) -> bool:
    return lo <= s - r <= hi


@settings(max_examples=60, deadline=None)
@given(st.integers(-SPAN, SPAN), st.integers(0, 2 * SPAN), st.integers(-5, 5))
def test_partner_times_and_ages_follow_the_join_condition(lo, width, time):
    hi = lo + width
    sc = _sc(lo, hi)
    times = range(time - 3 * SPAN, time + 3 * SPAN + 1)
    for side in (0, 1):
        partners = [u for u in times if (_pairs(lo, hi, time, u) if side == 0 else _pairs(lo, hi, u, time))]
        assert (first_partner(sc, side, time), last_partner(sc, side, time)) == (partners[0], partners[-1])
        # a held tuple meets an arrival of a later step, at the age (arrival time - its time)
        ages = [u - time for u in partners if u > time]
        young, end = partner_ages(sc, side)
        assert (young, end) == ages_within((lo, hi), side)
        if ages:
            assert (young, end) == (ages[0], ages[-1])
        else:  # a side that meets no later arrival: never stored, and no age in young .. end
            assert end < 1 and young > end
