"""Static k-truncation (paper §3.1.1): DP and fast algorithm against exhaustive search."""

from __future__ import annotations

import itertools
import json
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from shedding.errors import ShedError
from shedding.offline.static import (
    Components,
    best_drop_ab_dp,
    best_keep_dp,
    best_keep_fast,
    best_split,
    component_output,
    components_from_keys,
    parse_components,
    static_truncation,
)

SHAPES = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=4)


def brute_force(comps, keep=None, kept_a=None, kept_b=None) -> int:
    """Best total a*b over every per-component choice of kept (a, b), deliberately naive."""
    best = -1
    for choice in itertools.product(*[itertools.product(range(m + 1), range(n + 1)) for m, n in comps]):
        a, b = sum(x for x, _ in choice), sum(y for _, y in choice)
        if (keep is None or a + b == keep) and (kept_a is None or a == kept_a) and (kept_b is None or b == kept_b):
            best = max(best, sum(x * y for x, y in choice))
    return best


def check_valid(result, comps) -> None:
    m, n = np.array(comps).reshape(-1, 2).T
    assert np.all((0 <= result.kept_a) & (result.kept_a <= m))
    assert np.all((0 <= result.kept_b) & (result.kept_b <= n))
    assert result.output == int(np.dot(result.kept_a, result.kept_b))


@settings(max_examples=150, deadline=None)
@given(SHAPES, st.data())
def test_keep_matches_brute_force(comps, data):
    keep = data.draw(st.integers(0, sum(m + n for m, n in comps)))
    best = brute_force(comps, keep=keep)
    for solve in (best_keep_dp, best_keep_fast):
        result = solve(comps, keep)
        check_valid(result, comps)
        assert result.kept == keep
        assert result.output == best


@settings(max_examples=150, deadline=None)
@given(SHAPES, st.data())
def test_drop_ab_matches_brute_force(comps, data):
    total_a, total_b = sum(m for m, _ in comps), sum(n for _, n in comps)
    drop_a, drop_b = data.draw(st.integers(0, total_a)), data.draw(st.integers(0, total_b))
    result = best_drop_ab_dp(comps, drop_a, drop_b)
    check_valid(result, comps)
    assert (int(result.kept_a.sum()), int(result.kept_b.sum())) == (total_a - drop_a, total_b - drop_b)
    assert result.output == brute_force(comps, kept_a=total_a - drop_a, kept_b=total_b - drop_b)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 12), st.integers(0, 12)), min_size=1, max_size=40), st.data())
def test_fast_equals_dp_on_larger_instances(comps, data):
    keep = data.draw(st.integers(0, sum(m + n for m, n in comps)))
    dp, fast = best_keep_dp(comps, keep), best_keep_fast(comps, keep)
    check_valid(fast, comps)
    assert fast.kept == dp.kept == keep
    assert fast.output == dp.output


def test_fast_equals_dp_with_repeated_shapes():
    rng = np.random.default_rng(3)
    comps = [(int(m), int(n)) for m, n in rng.integers(1, 4, size=(60, 2))]  # many copies per shape
    for keep in (0, 1, 7, 50, 123, 200, sum(m + n for m, n in comps)):
        assert best_keep_fast(comps, keep).output == best_keep_dp(comps, keep).output


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 8), st.integers(0, 8), st.data())
def test_component_output_is_the_best_split(m, n, data):
    p = data.draw(st.integers(0, m + n))
    best = max(a * (p - a) for a in range(max(0, p - n), min(m, p) + 1))
    a, b = best_split(m, n, p)
    assert a + b == p and a <= m and b <= n and a * b == best == component_output(m, n, p)


def test_component_output_is_convex():
    for m, n in itertools.product(range(7), repeat=2):
        c = component_output(m, n, np.arange(m + n + 1))
        assert np.all(np.diff(c, 2) >= 0)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-3, 6)), st.lists(st.integers(-3, 6)))
def test_components_from_keys_matches_naive_count(keys_a, keys_b):
    comps = components_from_keys(np.array(keys_a, dtype=np.int64), np.array(keys_b, dtype=np.int64))
    ca, cb = Counter(keys_a), Counter(keys_b)
    assert {key: (m, n) for m, n, key in comps} == {k: (ca[k], cb[k]) for k in set(keys_a) | set(keys_b)}
    assert comps.output == sum(ca[k] * cb[k] for k in ca)


def test_components_from_text_keys_and_one_sided_keys_are_free():
    comps = components_from_keys(["x", "x", "y", "z"], ["x", "z", "z", "w"])
    assert list(comps) == [(0, 1, "w"), (2, 1, "x"), (1, 0, "y"), (1, 2, "z")]
    # dropping the two one-sided tuples costs nothing
    assert static_truncation(comps, drop=2).output == comps.output
    assert static_truncation(comps, drop_a=1, drop_b=1).output == comps.output


def test_parse_components():
    comps = parse_components(" 3x2, 4X4 ,0x5")
    assert list(comps) == [(3, 2, 0), (4, 4, 1), (0, 5, 2)]


def test_paper_example_keep():
    # K(3,2) + K(4,4): keeping 8 nodes, the whole K(4,4) (16) beats splitting.
    result = static_truncation("3x2,4x4", keep=8)
    assert result.output == 16
    assert [(r["kept_a"], r["kept_b"]) for r in result.rows()] == [(0, 0), (4, 4)]


def test_drop_orientation_and_methods_agree():
    comps = [(3, 2), (2, 2), (4, 1), (0, 3)]
    total = sum(m + n for m, n in comps)
    for drop in range(total + 1):
        fast = static_truncation(comps, drop=drop)
        dp = static_truncation(comps, drop=drop, method="dp")
        assert fast.output == dp.output == brute_force(comps, keep=total - drop)
        assert fast.method == "fast" and dp.method == "dp"


def test_result_is_json_ready():
    result = static_truncation([(3, 2, "k1"), (4, 4, np.int64(9))], keep=5)
    data = json.loads(json.dumps(result.as_dict()))
    assert data["output"] == result.output and len(data["rows"]) == 2
    assert data["rows"][1]["key"] == 9
    ab = json.loads(json.dumps(static_truncation("3x2,4x4", drop_a=1).as_dict()))
    assert ab["method"] == "dp" and ab["problem"] == "drop_ab" and ab["dropped_a"] == 1 and ab["dropped_b"] == 0


@pytest.mark.parametrize(
    "call, fragment",
    [
        (lambda: static_truncation("3x2", keep=-1), "keep must be >= 0"),
        (lambda: static_truncation("3x2", keep=6), "keep 6 exceeds the 5 tuples in the components; use keep <= 5"),
        (lambda: static_truncation("3x2", drop=9), "drop 9 exceeds"),
        (lambda: static_truncation("3x2", keep=1, drop=1), "got keep and drop"),
        (lambda: static_truncation("3x2"), "got nothing"),
        (lambda: static_truncation("3x2", keep=1, drop_a=1), "got keep and drop_a/drop_b"),
        (lambda: static_truncation("3x2", drop_a=4), "drop_a 4 exceeds the 3 tuples of A"),
        (lambda: static_truncation("3x2", drop_b=-2), "drop_b must be >= 0"),
        (lambda: static_truncation("3x2", keep=2.5), "keep must be a whole number"),
        (lambda: static_truncation("3x2", keep=True), "keep must be a whole number"),
        (lambda: static_truncation("3x2", keep=1, method="greedy"), "unknown method"),
        (lambda: static_truncation("3x2,4", keep=1), "bad component '4'"),
        (lambda: static_truncation("3x-2", keep=1), "bad component"),
        (lambda: static_truncation("", keep=0), "no components given"),
        (lambda: static_truncation([(3, -1)], keep=0), "component size n must be >= 0"),
        (lambda: static_truncation([(3,)], keep=0), "(m, n) pair"),
        (lambda: static_truncation(5, keep=0), "components must be"),
        (lambda: components_from_keys([1, 2], ["a"]), "numbers and others text"),
        (lambda: components_from_keys([1.0, np.nan], [1.0]), "missing or infinite"),
        (lambda: components_from_keys([[1, 2]], [1]), "one-dimensional"),
        (lambda: Components([2**31], [2**31], [0]), "exceeds 2^60"),
        (lambda: static_truncation("99999999999999999999x2", keep=1), "does not fit in 64-bit integers"),
    ],
)
def test_bad_input_raises_one_line_shed_error(call, fragment):
    with pytest.raises(ShedError) as err:
        call()
    message = str(err.value)
    assert fragment in message and "\n" not in message


def test_table_size_guard():
    with pytest.raises(ShedError, match="table cells"):
        best_drop_ab_dp([(20000, 20000)] * 3, 20000, 20000)


def test_errors_name_the_parameter_and_take_the_flag():
    """The library names its parameter; the command layer renders the same error with its flag."""
    with pytest.raises(ShedError) as err:
        static_truncation("3x2", keep=6)
    assert err.value.param == "keep"
    assert err.value.naming("--keep") == "--keep 6 exceeds the 5 tuples in the components; use --keep <= 5"
