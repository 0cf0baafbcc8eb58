"""Band EXACT against a quadratic count written from the definition, and the exact predicate
rule of :mod:`shedding.band.predicate`."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import assert_one_line_error
from shedding.band import BandWorkload, archive_metric, exact_pairs, parse_eps
from shedding.band import exact_count as band_exact_count
from shedding.errors import ShedError
from shedding.exact import exact_count
from shedding.model import Schedule, Workload


def quadratic_pairs(wl: Workload, cols: list[list[Fraction]], eps: list[Fraction]) -> list[tuple[int, int]]:
    """Every (R, S) window pair within eps on every attribute, in exact fractions."""
    out = []
    for i in range(len(wl)):
        for j in range(len(wl)):
            if wl.side[i] == 0 and wl.side[j] == 1 and abs(int(wl.time[i]) - int(wl.time[j])) <= wl.window - 1:
                if max(wl.time[i], wl.time[j]) >= wl.warmup and all(
                        abs(c[i] - c[j]) <= e for c, e in zip(cols, eps)):
                    out.append((i, j))
    return sorted(out)


@st.composite
def band_cases(draw):
    n = draw(st.integers(0, 30))
    times = sorted(draw(st.lists(st.integers(0, 15), min_size=n, max_size=n)))
    sides = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    d = draw(st.integers(1, 3))
    # decimals with up to two digits, as text: the exact values the rule promises to compare
    digits = [draw(st.lists(st.integers(-300, 300), min_size=n, max_size=n)) for _ in range(d)]
    eps = [draw(st.integers(0, 120)) for _ in range(d)]
    wl = Workload(sides, times, [0] * n, draw(st.integers(1, 6)), draw(st.integers(0, 6)))
    return wl, digits, eps


@settings(max_examples=150, deadline=None)
@given(band_cases())
def test_band_exact_equals_quadratic_count(case) -> None:
    wl, digits, eps = case
    cols = [np.array(c, dtype=np.int64) / 100 for c in digits]
    eps_text = ",".join(f"{e / 100}" for e in eps)
    bw = BandWorkload.of(wl, cols, eps_text)
    want = quadratic_pairs(wl, [[Fraction(v, 100) for v in c] for c in digits], [Fraction(e, 100) for e in eps])
    assert band_exact_count(bw) == len(want)
    assert [tuple(p) for p in exact_pairs(bw).tolist()] == want


def test_decimal_boundaries_are_exact() -> None:
    """0.3 - 0.1 is 0.2 on paper; in doubles it is 0.19999999999999998, and 0.7 - 0.4 is
    0.29999999999999993 < 0.3, while 0.8 - 0.5 = 0.30000000000000004 > 0.3 would drop the pair."""
    wl = Workload.synchronous([0, 0, 0], [0, 0, 0], 1, warmup=0)
    bw = BandWorkload.of(wl, [np.array([0.8, 0.5, 0.3, 0.0, 0.7, 0.4])], "0.3")
    assert 0.8 - 0.5 > 0.3  # the float trap this rule avoids
    assert band_exact_count(bw) == 3
    assert bw.decimals == (1,) and bw.eps.tolist() == [3]


def test_eps_zero_on_integer_keys_is_the_equi_join() -> None:
    from shedding.datasets import zipf_workload

    wl = zipf_workload(1.0, 20, 600, 3, "independent", 40, None)
    bw = BandWorkload.on_key(wl, 0)
    assert band_exact_count(bw) == exact_count(wl)
    wide = BandWorkload.on_key(wl, 2)
    assert band_exact_count(wide) == len(exact_pairs(wide)) > exact_count(wl)


def test_archive_metric_counts_tuples_of_unproduced_pairs() -> None:
    # r(0)=1.0, s(1)=1.5, r(2)=9: eps 0.5, w 3; dropping r(0) at once loses (r0, s1)
    wl = Workload([0, 1, 0], [0, 1, 2], [0, 0, 0], 3, 0)
    bw = BandWorkload.of(wl, [np.array([1.0, 1.5, 9.0])], "0.5")
    pairs = exact_pairs(bw)
    assert pairs.tolist() == [[0, 1]]
    dropped = Schedule(np.array([False, True, True]), np.array([0, 3, 4]))
    kept = Schedule(np.array([True, True, True]), np.array([2, 3, 4]))
    assert archive_metric(bw, dropped, pairs) == 2
    assert archive_metric(bw, kept, pairs) == 0


@pytest.mark.parametrize("eps, words", [
    ("-1", ["negative"]), ("abc", ["not a number"]), ("0.1,0.2", ["2 value", "1 attribute"]),
    ("", ["not a number"]), ("nan", ["not a number"]),
])
def test_bad_eps_is_one_line(eps: str, words: list[str]) -> None:
    with pytest.raises(ShedError) as exc:
        parse_eps(eps, 1)
    assert_one_line_error(exc, *words)


def test_bad_values_are_one_line() -> None:
    wl = Workload.synchronous([0], [0], 2)
    with pytest.raises(ShedError) as exc:
        BandWorkload.of(wl, [np.array([1.0, np.nan])], "1")
    assert_one_line_error(exc, "missing", "tuple 1")
    with pytest.raises(ShedError) as exc:
        BandWorkload.of(wl, [np.array([0.1 * 3, 1.0])], "1")
    assert_one_line_error(exc, "significant digits")
    with pytest.raises(ShedError) as exc:
        BandWorkload.of(wl, [np.array([1e20, 1.0])], "1")
    assert_one_line_error(exc, "beyond 2^53")
    with pytest.raises(ShedError) as exc:
        BandWorkload.of(wl, [np.array(["a", "b"])], "1")
    assert_one_line_error(exc, "numbers")


def test_a_time_range_is_refused_not_ignored():
    """The band engines hold every tuple for the symmetric window: a workload with a time range is
    refused naming it, not joined as if the range were not there."""
    from shedding import ShedError, Workload
    from shedding.band.predicate import BandWorkload

    wl = Workload([0, 1, 0, 1], [0, 1, 2, 3], [1, 1, 2, 2], 3, 0, range=(0, 2))
    with pytest.raises(ShedError, match="time range .* the band join holds for the window join only") as exc:
        BandWorkload.on_key(wl, 1)
    assert exc.value.param == "wl"
