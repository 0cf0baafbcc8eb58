"""Bestmatch joins (Kemper/Stegmaier 2002): every variant and algorithm against the definitions
(brute force), the paper's Figure 1, MatWin's boundary cases, exact decimals, the time window."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shedding.bestmatch import DOMINANCE, bestmatch, from_arrays, from_frames, time_window_bestmatch
from shedding.bestmatch.brute import brute_bestmatch, brute_time_window
from shedding.bestmatch.join import ALGORITHMS, VARIANTS, order_signs
from shedding.bestmatch.matwin import matwin
from shedding.bestmatch.values import MAX_PLACES
from shedding.errors import ShedError

# Figure 1 of the paper, with coordinates chosen to satisfy its text: (A,a) beats (A,c) on y2 and
# loses on y1, (A,b) is the extreme pair (best on y2, poor on y1), (B,d) ties (A,a) on y1 and is
# worse on y2, and d is B's best partner.
FIG1_R = {"A": (0, 0), "B": (10, 10)}
FIG1_S = {"c": (1, 2), "a": (2, 1), "b": (5, 0), "d": (12, 13)}  # sorted by y1, as MatWin reads


def fig1(variant: str, algorithm: str, eps: list[int] | None) -> set[tuple[str, str]]:
    rn, sn = list(FIG1_R), list(FIG1_S)
    data = from_arrays(np.array(list(FIG1_R.values())), np.array(list(FIG1_S.values())), eps)
    return {(rn[r], sn[s]) for r, s in bestmatch(data, variant, algorithm).as_set()}


def test_figure_1_bmj_and_left_outer():
    assert fig1("bmj", "nested", None) == {("A", "a"), ("A", "c"), ("A", "b")}
    assert fig1("left-outer", "nested", None) == {("A", "a"), ("A", "c"), ("A", "b"), ("B", "d")}


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_figure_1_constrained_drops_the_extreme_pair(algorithm):
    """§2.3: with eps = 3 per dimension the extreme pair (A, b) is no candidate any more."""
    assert fig1("constrained", algorithm, [3, 3]) == {("A", "a"), ("A", "c"), ("B", "d")}
    assert fig1("bmj", algorithm, [3, 3]) == {("A", "a"), ("A", "c")}  # (B,d) is dominated by (A,a)


@st.composite
def inputs(draw, constrained: bool = True):
    d = draw(st.integers(1, 3))
    rows = st.lists(st.tuples(*[st.integers(0, 6)] * d), max_size=9)
    r = sorted(draw(rows), key=lambda t: t[0])
    s = sorted(draw(rows), key=lambda t: t[0])
    eps = draw(st.lists(st.integers(0, 4), min_size=d, max_size=d)) if constrained else None
    signs = draw(st.lists(st.sampled_from([1, -1]), min_size=d, max_size=d))
    return np.array(r, dtype=np.int64).reshape(len(r), d), np.array(s, dtype=np.int64).reshape(len(s), d), eps, signs


def _names(signs: list[int]) -> list[str]:
    return ["minAttrDist" if g == 1 else "maxAttrDist" for g in signs]


@pytest.mark.parametrize("dominance", DOMINANCE)
@settings(max_examples=150, deadline=None)
@given(inputs())
def test_constrained_variants_and_algorithms_equal_brute_force(dominance, case):
    """Every variant and algorithm under both readings of §2.1 against brute force."""
    R, S, eps, signs = case
    data = from_arrays(R, S, eps)
    for variant in VARIANTS:
        want = brute_bestmatch(R.tolist(), S.tolist(), eps, signs, variant, dominance)
        for algorithm in ALGORITHMS:
            got = bestmatch(data, variant, algorithm, _names(signs), dominance)
            assert got.as_set() == want and got.dominance == dominance, (variant, algorithm)


@pytest.mark.parametrize("dominance", DOMINANCE)
@settings(max_examples=100, deadline=None)
@given(inputs(constrained=False))
def test_unconstrained_nested_loops_equal_brute_force(dominance, case):
    R, S, _, signs = case
    data = from_arrays(R, S, None)
    for variant in ("bmj", "left-outer", "right-outer", "full-outer"):
        want = brute_bestmatch(R.tolist(), S.tolist(), None, signs, variant, dominance)
        assert bestmatch(data, variant, "nested", _names(signs), dominance).as_set() == want


def test_ties_fill_a_buffer_slot_beyond_its_first_size():
    """Many pairs with equal distance vectors are incomparable: all stay (the slot grows)."""
    R = np.zeros((1, 2), dtype=np.int64)
    S = np.array([[0, 2]] * 30 + [[1, 1]] * 40, dtype=np.int64)
    for algorithm in ALGORITHMS:
        assert len(bestmatch(from_arrays(R, S, [2, 2]), "constrained", algorithm).pairs) == 70


def _matwin_set(R, S, eps):  # noqa: ANN001, ANN202
    rows, stats = matwin(np.array(R, dtype=np.int64), np.array(S, dtype=np.int64), np.array(eps), np.ones(len(eps),
                         dtype=np.int64), True)
    return set(map(tuple, rows[:, :2].tolist())), stats


def test_matwin_values_exactly_on_the_window_bounds():
    R = [[0, 0], [10, 3], [20, 6], [30, 9]]
    S = [[10, 0], [20, 3], [30, 6], [40, 9]]  # every |r.y1 - s.y1| is 0 or exactly eps_1 = 10
    got, _ = _matwin_set(R, S, [10, 3])
    assert got == brute_bestmatch(R, S, [10, 3], [1, 1], "left-outer") and (0, 0) in got and (3, 3) in got


def test_matwin_window_runs_empty_and_restarts():
    """Gaps wider than eps_1: W_R runs empty (the fourth case) and S tuples below the new window
    are skipped; also an empty S and an empty R."""
    R = [[0, 0], [100, 0], [101, 1], [300, 0]]
    S = [[1, 1], [50, 0], [99, 0], [200, 0], [299, 5], [301, 0]]
    got, stats = _matwin_set(R, S, [2, 5])
    assert got == brute_bestmatch(R, S, [2, 5], [1, 1], "left-outer") == {(0, 0), (1, 2), (2, 2), (3, 5)}
    assert stats.steps >= 3
    assert _matwin_set(R, np.zeros((0, 2)), [2, 5])[0] == set()
    assert _matwin_set(np.zeros((0, 2)), S, [2, 5])[0] == set()


def test_matwin_duplicate_values_in_the_sorted_dimension():
    R = [[5, k] for k in range(6)] + [[6, 0], [6, 9]]
    S = [[5, k] for k in range(0, 9, 2)] + [[6, 1], [6, 1], [7, 8]]
    got, _ = _matwin_set(R, S, [1, 2])
    assert got == brute_bestmatch(R, S, [1, 2], [1, 1], "left-outer")


def test_float_bound_update_would_never_move_but_exact_matwin_ends():
    """The fourth case sets minRS = r.y1 - eps_1 and maxRS = minRS + eps_1 and then reads r. In
    binary floats (0.9 - 0.2) + 0.2 < 0.9, so r stays outside the window, W_R stays empty and the
    same case repeats forever; with exact scaled integers maxRS = r.y1 and r enters."""
    x, e = 0.9, 0.2
    assert (x - e) + e < x  # the trap is real in floats
    r = pd.DataFrame({"y1": ["0.9", "1.5"], "y2": ["0", "0"]})
    s = pd.DataFrame({"y1": ["0.7", "0.9", "1.1"], "y2": ["0", "0.1", "0"]})
    data = from_frames(r, s, ["y1", "y2"], "0.2,0.1")
    want = brute_bestmatch(data.r.tolist(), data.s.tolist(), data.eps.tolist(), [1, 1], "left-outer")
    assert bestmatch(data, "constrained", "matwin").as_set() == want == {(0, 0), (0, 1), (0, 2)}


def test_decimals_are_compared_exactly():
    """|0.3 - 0.4| is 0.10000000000000003 in floats, exactly eps = 0.1 here, so the pair qualifies."""
    assert abs(0.3 - 0.4) > 0.1
    data = from_frames(pd.DataFrame({"y": [0.3]}), pd.DataFrame({"y": [0.4]}), ["y"], "0.1")
    assert bestmatch(data, "constrained", "nested").as_set() == {(0, 0)}
    data = from_frames(pd.DataFrame({"y": ["0.3"]}), pd.DataFrame({"y": ["0.40001"]}), ["y"], "0.1")
    assert bestmatch(data, "constrained", "nested").as_set() == set()


@pytest.mark.parametrize("values, eps, words", [
    (["1", "x"], "0.1", ("S row 2", "'x' is not a number")),
    (["1", None], "0.1", ("S row 2", "NaN")),
    (["1", "2"], "-0.1", ("negative",)),
    (["1", "2"], "abc", ("eps value 1", "not a number")),
    (["1", "2"], "0.1,0.1", ("eps has 2 value(s)", "1 attribute")),
    (["1", "0.1234567890123456789"], "0.1", ("S row 2", "has 19 decimal places", "at most 18")),  # was OverflowError
    (["0.12345678901234567890123"], "0.1", ("S row 1", "has 23 decimal places")),
    (["1", "2"], "0.1234567890123456789", ("eps value 1", "has 19 decimal places")),
])
def test_bad_values_raise_one_line_errors(values, eps, words):
    with pytest.raises(ShedError) as info:
        from_frames(pd.DataFrame({"y": ["1"]}), pd.DataFrame({"y": values}), ["y"], eps)
    assert all(w in str(info.value) for w in words) and "\n" not in str(info.value)


def test_eighteen_decimal_places_are_compared_exactly():
    """18 places is the finest grid a 64-bit integer holds: the pair at exactly eps qualifies, one
    a 10^-18 further does not."""
    assert MAX_PLACES == 18
    eps = "0.000000000000000001"
    for s, want in (("0.100000000000000001", {(0, 0)}), ("0.100000000000000002", set())):
        data = from_frames(pd.DataFrame({"y": ["0.1"]}), pd.DataFrame({"y": [s]}), ["y"], eps)
        assert int(data.scale[0]) == 10**18
        assert bestmatch(data, "constrained", "nested").as_set() == want


def test_matwin_names_the_first_unsorted_row_and_needs_eps():
    data = from_arrays(np.array([[1], [3], [2], [0]]), np.array([[0]]), [1])
    with pytest.raises(ShedError, match="R row 3: y1 = 2 comes after 3"):
        bestmatch(data, "constrained", "matwin")
    with pytest.raises(ShedError, match="needs eps"):
        bestmatch(from_arrays(np.array([[1]]), np.array([[0]]), None), "left-outer", "matwin-ego")
    with pytest.raises(ShedError, match="unknown order"):
        order_signs(["closest"], 1)


@pytest.mark.parametrize("dominance", DOMINANCE)
@settings(max_examples=80, deadline=None)
@given(inputs(), st.lists(st.integers(0, 7), max_size=9), st.lists(st.integers(0, 7), max_size=9),
       st.integers(0, 3))
def test_time_window_reevaluation_equals_brute_force(dominance, case, tr, ts, horizon):
    R, S, eps, _ = case
    tr, ts = sorted(tr)[:len(R)] + [7] * max(0, len(R) - len(tr)), sorted(ts)[:len(S)] + [7] * max(0, len(S) - len(ts))
    got = time_window_bestmatch(from_arrays(R, S, eps), np.array(tr), np.array(ts), horizon, np.ones(len(eps),
                                dtype=np.int64), dominance)
    want = brute_time_window(R.tolist(), S.tolist(), tr, ts, horizon, eps, [1] * len(eps), dominance)
    assert set(map(tuple, got.tolist())) == want


def test_time_window_outputs_a_pair_again_once_its_dominator_expired():
    """§3.5.1: (r', s') dominated by the older (r, s) is output once (r, s) has left the window."""
    R, S = np.array([[0], [0]]), np.array([[0], [1]])
    got = time_window_bestmatch(from_arrays(R, S, [5]), np.array([0, 3]), np.array([0, 3]), 2, np.ones(1, np.int64))
    assert set(map(tuple, got.tolist())) == {(0, 0, 0), (3, 1, 1)}  # at t = 3 only r1, s1 are left


def test_right_and_full_outer_by_hand():
    """§2.2 on one dimension: A = 0, B = 3 in R; a = 1, b = 10 in S. A's and B's best partner is a
    (left-outer); a's best partner is A and b's is B (right-outer); the full-outer BMJ is both."""
    data = from_arrays(np.array([[0], [3]]), np.array([[1], [10]]), [20])
    want = {"bmj": {(0, 0)}, "left-outer": {(0, 0), (1, 0)}, "right-outer": {(0, 0), (1, 1)},
            "full-outer": {(0, 0), (1, 0), (1, 1)}}
    for variant, pairs in want.items():
        for algorithm in ALGORITHMS:
            assert bestmatch(data, variant, algorithm).as_set() == pairs, (variant, algorithm)
    full = bestmatch(data, "full-outer", "matwin")
    assert full.pairs.tolist() == [[0, 0], [1, 0], [1, 1]]  # (A, a) is best for both, and comes once


def test_figure_1_right_and_full_outer():
    """Figure 1's points: a, b and c are best matched by A, d by B, so the right-outer BMJ equals
    the left-outer one there, and so does the full-outer BMJ."""
    left = fig1("left-outer", "nested", None)
    assert fig1("right-outer", "nested", None) == fig1("full-outer", "nested", None) == left


def test_literal_and_pareto_readings_differ_on_ties():
    """r = (0, 0); s0 = (-1, 0) and s1 = (1, 0) are both at distance (1, 0), s2 = (3, 0) at (3, 0).
    Pareto: (r, s0) and (r, s1) are incomparable, both are r's best pairs. Literal ("<= in every
    dimension and the pairs differ"): each dominates the other, so both leave, and (r, s2) is
    dominated by either: r has no best pair at all. Duplicates of one tuple do not differ, so stay."""
    data = from_arrays(np.array([[0, 0]]), np.array([[-1, 0], [1, 0], [3, 0]]), [5, 5])
    for algorithm in ALGORITHMS:
        assert bestmatch(data, "constrained", algorithm).as_set() == {(0, 0), (0, 1)}
        assert bestmatch(data, "constrained", algorithm, dominance="literal").as_set() == set()
    twins = from_arrays(np.array([[0, 0]]), np.array([[1, 0], [1, 0], [3, 0]]), [5, 5])
    assert bestmatch(twins, "constrained", "matwin", dominance="literal").as_set() == {(0, 0), (0, 1)}
    with pytest.raises(ShedError, match="unknown dominance 'strict'; choose from pareto, literal"):
        bestmatch(data, "constrained", "nested", dominance="strict")


def test_the_papers_sql_is_a_third_reading():
    """The SQL of §2.2 asks the dominating pair to differ from the dominated one in every join
    attribute of both tuples. On Figure 1 all three readings give the figure's BMJ; on a tie of
    pairs whose tuples differ everywhere the SQL drops both, as the literal reading does; and it
    never lets a pair be dominated by one sharing a tuple, which neither of the others allows, so
    there it keeps a pair both tied pairs are better than."""
    R, S = list(FIG1_R.values()), list(FIG1_S.values())
    results = {reading: brute_bestmatch(R, S, None, [1, 1], "bmj", reading) for reading in ("pareto", "literal", "sql")}
    assert results["pareto"] == results["literal"] == results["sql"] == {(0, 1), (0, 0), (0, 2)}
    tie_r, tie_s = [[0, 0], [5, 5]], [[1, 1], [6, 6]]  # (r0, s0) and (r1, s1) both at distance (1, 1)
    assert brute_bestmatch(tie_r, tie_s, None, [1, 1], "bmj", "pareto") == {(0, 0), (1, 1)}
    assert brute_bestmatch(tie_r, tie_s, None, [1, 1], "bmj", "literal") == set()
    assert brute_bestmatch(tie_r, tie_s, None, [1, 1], "bmj", "sql") == {(1, 0)}  # (r1, s0) at (4, 4)
    shared = ([[0]], [[1], [5]])  # (r, s0) is better than (r, s1), and they share r
    assert brute_bestmatch(*shared, None, [1], "bmj", "pareto") == {(0, 0)}
    assert brute_bestmatch(*shared, None, [1], "bmj", "sql") == {(0, 0), (0, 1)}


@pytest.mark.parametrize("decimals", [1, 2])
def test_matwin_outer_sides_equal_nested_loops_on_larger_inputs(decimals):
    """Hundreds of tuples with many equal values and windows that run empty: every S slot of the
    right-outer side is reused many times over, and each pass equals nested loops."""
    from shedding.bestmatch.generator import synthetic_input

    data = synthetic_input(300, 250, 2, "normal", 0.1 if decimals == 2 else 0.2, decimals, seed=decimals)
    for variant in ("right-outer", "full-outer"):
        for dominance in ("pareto", "literal"):
            want = bestmatch(data, variant, "nested", dominance=dominance).as_set()
            for algorithm in ("matwin", "matwin-ego"):
                got = bestmatch(data, variant, algorithm, dominance=dominance)
                assert got.as_set() == want
                assert np.median(got.stamps) < len(data.r) + len(data.s)  # pipelined: most pairs leave early
