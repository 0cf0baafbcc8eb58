"""The path W-join with directed windows (DWINDOW, Hammad et al. 2002, §5.2.1): the union of the
forward and the reverse path, by the pipeline NLW, LCA and GCA, against the definition."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import assert_one_line_error, feed
from shedding import ShedError
from shedding.wjoin import (
    PathSpec, Streams, brute_results, parse_path, path_brute_results, path_exact_count, path_operator, run,
)
from shedding.wjoin.path import PATH_ALGORITHMS
from strategies import interleaved_streams


@st.composite
def path_instances(draw, max_n: int = 4, max_len: int = 5):
    streams, order = draw(interleaved_streams(max_n, max_len))
    n = streams.n
    path = PathSpec.of(n, draw(st.permutations(range(n))), draw(st.lists(st.integers(0, 5), min_size=n - 1,
                                                                           max_size=n - 1)))
    return streams, path, order


@settings(max_examples=300, deadline=None)
@given(case=path_instances())
def test_every_path_algorithm_equals_the_definition(case):
    streams, path, order = case
    expected = [tuple(r) for r in path_brute_results(streams, path).tolist()]
    for name in PATH_ALGORITHMS:
        got = feed(path_operator(name, path), streams, order)
        assert len(got) == len(set(got)), (name, "duplicates")
        assert sorted(got) == expected, (name, path)
    assert path_exact_count(streams, path) == len(expected)
    # the directed path is inside the undirected one (the conservative filter)
    relaxed = {tuple(r) for r in brute_results(streams, path.relaxed()).tolist()}
    assert set(expected) <= relaxed


def test_the_union_of_abcd_and_dcba():
    """Figure 12: an object seen at A, B, C, D in that order, or in the reverse order; a mixed
    order is neither, and a 4-tuple of equal times is on both paths and counts once."""
    path = PathSpec.of("ABCD", "ABCD", [5, 5, 5])
    streams = Streams.of([[0, 20, 40], [2, 18, 40], [4, 16, 40], [6, 14, 40]], [[1, 2, 3]] * 4, "ABCD")
    # forward 0,2,4,6 (key 1); reverse 20,18,16,14 (key 2); all at 40 (key 3)
    assert path_brute_results(streams, path).tolist() == [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2]]
    mixed = Streams.of([[0], [4], [2], [6]], [[1]] * 4, "ABCD")  # B after C
    assert path_brute_results(mixed, path).tolist() == []
    assert len(brute_results(mixed, path.relaxed())) == 1  # the undirected windows would take it
    for name in PATH_ALGORITHMS:
        assert run(path_operator(name, path), streams).tolist() == [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2]]
        assert run(path_operator(name, path), mixed).tolist() == []
    assert path_exact_count(streams, path) == 3 and path_exact_count(mixed, path) == 0


def test_directed_bounds_are_the_shortest_paths():
    path = PathSpec.of("ABC", "CAB", [2, 3])  # C then A within 2, then B within 3
    lower, upper = path.difference_bounds(forward=True)
    a, b, c = 0, 1, 2
    assert upper[c, b] == 5 and lower[c, b] == 0 and upper[b, c] == 0 and lower[a, c] == -2
    assert np.array_equal(lower, -upper.T)
    assert path.describe() == "C>A:2, A>B:3"
    assert parse_path("c>a:2, a>b:3", "abc").order == (2, 0, 1)


@pytest.mark.parametrize("make,words", [
    (lambda: PathSpec.of("ABC", "AB", [1]), ("every one of the 3 streams",)),
    (lambda: PathSpec.of("ABC", "AAB", [1, 1]), ("exactly once",)),
    (lambda: PathSpec.of("ABC", "ABX", [1, 1]), ("unknown stream 'X'",)),
    (lambda: PathSpec.of("ABC", "ABC", [1]), ("one window per step",)),
    (lambda: PathSpec.of("ABC", "ABC", [1, -1]), ("window B->C", ">= 0")),
    (lambda: parse_path("a>b:1,c>b:2", "abc"), ("does not start where",)),
    (lambda: parse_path("a-b:1", "ab"), ("NAME>NAME:W",)),
    (lambda: parse_path("a>b:x", "ab"), ("integer",)),
    (lambda: parse_path(" ", "ab"), ("path is empty",)),
    (lambda: path_operator("hw", PathSpec.of(2, None, 1)), ("unknown algorithm 'hw'", "pipeline, lca, gca")),
])
def test_bad_paths_are_one_line_errors(make, words):
    with pytest.raises(ShedError) as exc:
        make()
    assert_one_line_error(exc, *words)
