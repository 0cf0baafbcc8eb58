"""W-join (Hammad, Aref, Elmagarmid 2002): NLW, HW, MW and the exact count against the definition."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import assert_one_line_error, feed
from shedding import ShedError, Workload, exact_count as dgr_exact_count
from shedding.wjoin import (
    ALGORITHMS, OPERATORS, Streams, WindowSpec, brute_results, exact_count, make_operator, parse_key_predicate,
    parse_windows, run,
)
from shedding.wjoin.operator import APPROACHES
from strategies import interleaved_streams, windows_for


@st.composite
def instances(draw, max_n: int = 4, max_len: int = 5):
    streams, order = draw(interleaved_streams(max_n, max_len))
    return streams, draw(windows_for(streams.n)), order


@settings(max_examples=300, deadline=None)
@given(case=instances())
def test_every_algorithm_equals_the_definition_in_any_interleaving(case):
    streams, windows, order = case
    expected = brute_results(streams, windows)
    for name in OPERATORS:
        for approach in APPROACHES:
            got = feed(make_operator(name, windows, approach=approach), streams, order)
            assert len(got) == len(set(got)), (name, approach, "duplicates")
            assert sorted(got) == [tuple(r) for r in expected.tolist()], (name, approach, windows.given)


@settings(max_examples=200, deadline=None)
@given(case=instances(), band=st.integers(1, 2))
def test_a_key_band_equals_the_definition_for_nlw_and_both_mws(case, band):
    """The non-equi predicate: every pair of keys within the band, for NLW, MW and the paper's MW."""
    streams, windows, order = case
    expected = [tuple(r) for r in brute_results(streams, windows, key_band=band).tolist()]
    for name in ("nlw", "mw", "mw-paper"):
        for approach in APPROACHES:
            got = feed(make_operator(name, windows, approach=approach, key_band=band), streams, order)
            assert sorted(got) == expected and len(got) == len(set(got)), (name, approach)
    assert exact_count(streams, windows, key_band=band) == len(expected)


def test_hw_refuses_a_key_band_and_the_text_form_is_exact():
    with pytest.raises(ShedError) as exc:
        make_operator("hw", WindowSpec.uniform(2, 1), key_band=1)
    assert_one_line_error(exc, "hash join", "key_band must be 0")
    assert exc.value.naming("--predicate").startswith("HW is a hash join, for equal keys only: --predicate")
    assert parse_key_predicate("eq") == 0 and parse_key_predicate(" band:3 ") == 3 and parse_key_predicate("band:0") == 0
    for bad in ("band", "band:-1", "band:1.5", "lt", "eq:2"):
        with pytest.raises(ShedError) as exc:
            parse_key_predicate(bad)
        assert_one_line_error(exc, "eq or band:EPS")
    with pytest.raises(ShedError):
        exact_count(Streams.of([[1], [1]], [[1], [2]]), WindowSpec.uniform(2, 1), "product", key_band=1)
    streams = Streams.of([[0, 1], [0, 5]], [[1, 4], [2, 4]])
    assert exact_count(streams, WindowSpec.uniform(2, 1), key_band=1) == 1  # (0, 0): keys 1 and 2, times 0 and 0
    for name in ("nlw", "mw", "mw-paper"):
        assert run(make_operator(name, WindowSpec.uniform(2, 1), key_band=1), streams).tolist() == [[0, 0]]


@settings(max_examples=300, deadline=None)
@given(case=instances(max_n=5, max_len=6))
def test_exact_count_equals_the_definition(case):
    streams, windows, _ = case
    n = len(brute_results(streams, windows))
    assert exact_count(streams, windows) == n
    assert exact_count(streams, windows, "sweep") == n
    if windows.uniform_bound is not None:
        assert exact_count(streams, windows, "product") == n


@settings(max_examples=100, deadline=None)
@given(case=instances(max_n=4))
def test_user_predicate_filters_results(case):
    streams, windows, order = case

    def even(members: tuple[int, ...]) -> bool:
        return sum(members) % 2 == 0

    expected = brute_results(streams, windows, even)
    assert all(sum(r) % 2 == 0 for r in expected.tolist())
    for name in OPERATORS:
        assert sorted(feed(make_operator(name, windows, predicate=even), streams, order)) == \
            [tuple(r) for r in expected.tolist()]


def test_closure_is_the_shortest_path_and_forms_are_named():
    # paper Figure 11: A-D missing, bound MIN(w1 + w2 + w3, w1 + w4)
    spec = WindowSpec.from_pairs("ABCD", {("A", "B"): 2, ("B", "C"): 3, ("C", "D"): 4, ("B", "D"): 9})
    assert spec.bounds[0, 3] == min(2 + 3 + 4, 2 + 9) and spec.bounds[0, 2] == 5
    assert spec.form == 3 and spec.uniform_bound is None and spec.widest == 9
    assert WindowSpec.uniform(4, 5).form == 1 and WindowSpec.uniform(4, 5).uniform_bound == 5
    two = WindowSpec.from_pairs(3, {(0, 1): 1, (1, 2): 1, (0, 2): 7})
    assert two.form == 2 and two.bounds[0, 2] == 2  # an implied bound tighter than the given one
    assert parse_windows("A-B:2, C-B:3, C-D:4, D-B:9", "ABCD").bounds.tolist() == spec.bounds.tolist()


def test_path_wjoin_is_a_chain():
    """§5.2.1: A-B-C-D along a path; the end-to-end bound is the sum."""
    spec = WindowSpec.from_pairs("ABCD", {("A", "B"): 1, ("B", "C"): 2, ("C", "D"): 3})
    assert spec.bounds[0, 3] == 6
    streams = Streams.of([[0, 7], [1], [3], [6]], [[1, 1], [1], [1], [1]], "ABCD")
    assert brute_results(streams, spec).tolist() == [[0, 0, 0, 0]]
    for name in ALGORITHMS:
        assert run(make_operator(name, spec), streams).tolist() == [[0, 0, 0, 0]]


# Figure 2 (NLW/HW iterations) with reconstructed timestamps, w = 10; key 1 = black, 0 = white.
FIG2 = {
    "A": [(3, 1), (20, 1), (40, 1)],                     # a1, a2, a3
    "B": [(12, 0), (15, 1), (18, 1), (22, 1), (35, 1)],  # b1 (white), b2, b3, b4, b5
    "C": [(14, 1), (17, 0), (24, 1), (38, 1)],           # c1, c2 (white), c3, c4
    "D": [(5, 1), (19, 1)],                              # d1, d2
    "E": [(9, 1), (23, 1)],                              # e1, e2
}


@pytest.mark.parametrize("algorithm", ["nlw", "hw"])
def test_figure2_iteration_of_a2(algorithm):
    names = list(FIG2)
    op = make_operator(algorithm, WindowSpec.uniform(names, 10))
    # the state of Figure 2(i): B up to b4, C up to c3, D, E and a1 processed; then a2
    for stream, upto in (("B", 4), ("C", 3), ("D", 2), ("E", 2), ("A", 1)):
        i = names.index(stream)
        for t, k in FIG2[stream][:upto]:
            assert op.push(i, t, k) == []
    got = op.push(0, *FIG2["A"][1])
    # <a2,b2,c1,d2,e2>, <a2,b2,c3,d2,e2>, <a2,b3,c1,...>, <a2,b3,c3,...>, <a2,b4,c1,...>, <a2,b4,c3,...>
    assert sorted(got) == [(1, b, c, 1, 1) for b in (1, 2, 3) for c in (0, 2)]
    assert [t for t, _, _ in op.buffers[3]] == [19]  # d1 removed: more than w from every last tuple
    assert [t for t, _, _ in op.buffers[4]] == [9, 23]  # e1 kept: it is within w of d2
    assert op.push(1, *FIG2["B"][4]) == []  # Figure 2(ii): b5 completes nothing
    streams = Streams.of([[t for t, _ in v] for v in FIG2.values()], [[k for _, k in v] for v in FIG2.values()], names)
    assert not any(r[4] == 0 and r[0] == 1 for r in brute_results(streams, WindowSpec.uniform(names, 10)).tolist())


def test_figure6_merge_join():
    """Figure 6 (MW): Mode 1 drops d1, e1, a1, b1, finds <a2,b2,c1,d2,e2>; Mode 2 adds b3."""
    fig6 = {"A": [10, 20, 30], "B": [12, 21, 24, 31], "C": [18, 29], "D": [5, 25, 33], "E": [7, 22, 34]}
    names = list(fig6)
    spec = WindowSpec.uniform(names, 10)
    streams = Streams.of(list(fig6.values()), [[1] * len(v) for v in fig6.values()], names)
    op = make_operator("mw", spec)
    got = feed(op, streams, streams.arrival_order()[0].tolist())
    assert sorted(got) == [tuple(r) for r in brute_results(streams, spec).tolist()]
    with_c1 = sorted(r for r in got if r[2] == 0)
    assert with_c1 == [(1, 1, 0, 1, 1), (1, 2, 0, 1, 1)]  # the output of the first Mode 2
    assert got[:2] == [(1, 1, 0, 1, 1), (1, 2, 0, 1, 1)]
    assert not any(r[0] == 0 or r[1] == 0 or r[3] == 0 or r[4] == 0 for r in got)  # a1, b1, d1, e1 join nothing


def test_figure6_modes_of_the_paper_mw():
    """Figure 6 with the paper's MW: Mode 1 drops d1, e1, a1 and b1 and stops at the starting
    N-tuple <a2,b2,c1,d2,e2>; Mode 2 admits b3 and outputs the two N-tuples with c1; then c1 is
    dropped and Mode 1 restarts."""
    fig6 = {"A": [10, 20, 30], "B": [12, 21, 24, 31], "C": [18, 29], "D": [5, 25, 33], "E": [7, 22, 34]}
    names = list(fig6)
    streams = Streams.of(list(fig6.values()), [[1] * len(v) for v in fig6.values()], names)
    op = make_operator("mw-paper", WindowSpec.uniform(names, 10))
    order = [i for i, v in enumerate(fig6.values()) for _ in v]  # every stream is there, as in the example
    got = feed(op, streams, order)
    assert got[:2] == [(1, 1, 0, 1, 1), (1, 2, 0, 1, 1)]  # the output of the first Mode 2
    assert sorted(got) == [tuple(r) for r in brute_results(streams, WindowSpec.uniform(names, 10)).tolist()]
    assert op.buffered == 0  # finish() leaves nothing behind


def test_the_paper_mw_drops_only_dead_tuples_while_a_stream_is_silent():
    op = make_operator("mw-paper", WindowSpec.uniform(3, 5))
    for t in range(100):
        op.push(0, t, 1)
        op.push(1, t, 1)
    assert op.buffered == 200  # stream 2's first tuple may join any of them
    op.advance(2, 99)
    assert op.buffered == 2 * 6  # only tuples within 5 of stream 2's clock remain
    assert len(op.push(2, 99, 1) + op.push(2, 99, 1) + op.finish()) == 6 * 6 * 2


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_two_streams_equal_dgr_exact_with_w_plus_one(data):
    """N = 2, Form 1: the W-join with window w counts DGR's EXACT with window w + 1, warmup 0."""
    k1, k2 = data.draw(st.integers(0, 25)), data.draw(st.integers(0, 25))
    t1 = sorted(data.draw(st.lists(st.integers(0, 30), min_size=k1, max_size=k1)))
    t2 = sorted(data.draw(st.lists(st.integers(0, 30), min_size=k2, max_size=k2)))
    key1 = data.draw(st.lists(st.integers(0, 3), min_size=k1, max_size=k1))
    key2 = data.draw(st.lists(st.integers(0, 3), min_size=k2, max_size=k2))
    w = data.draw(st.integers(0, 10))
    wl = Workload.from_streams(t1, key1, t2, key2, window=w + 1, warmup=0)
    streams = Streams.of([t1, t2], [key1, key2])
    spec = WindowSpec.uniform(2, w)
    assert exact_count(streams, spec) == dgr_exact_count(wl)
    assert len(run(make_operator("hw", spec), streams)) == dgr_exact_count(wl)


def random_streams(n: int, length: int, domain: int, seed: int, rates=None) -> Streams:
    rng = np.random.default_rng(seed)
    rates = rates or [1.0] * n
    times = [np.floor(np.cumsum(rng.exponential(1 / r, length))).astype(np.int64) for r in rates]
    return Streams.of(times, [rng.integers(0, domain, length) for _ in range(n)])


@pytest.mark.parametrize("n,windows", [
    (3, WindowSpec.uniform(3, 6)),
    (4, WindowSpec.uniform(4, 4)),
    (4, WindowSpec.from_pairs(4, {(0, 1): 3, (1, 2): 5, (2, 3): 2, (0, 3): 9})),
])
def test_algorithms_agree_with_the_count_on_larger_streams(n, windows):
    streams = random_streams(n, 1500, 6, seed=n, rates=[1.0, 0.5, 2.0, 0.3][:n])
    rows = {name: run(make_operator(name, windows), streams) for name in OPERATORS}
    count = exact_count(streams, windows)
    assert count > 100
    for name, r in rows.items():
        assert len(r) == count and np.array_equal(r, rows["hw"]), name
        assert len(np.unique(r, axis=0)) == len(r)


def test_buffers_are_purged_and_a_silent_stream_keeps_them():
    spec = WindowSpec.uniform(3, 5)
    for name in ALGORITHMS:
        op = make_operator(name, spec)
        for t in range(100):
            op.push(0, t, 1)
            op.push(1, t, 1)
        assert op.buffered == 200, name  # stream 2 has sent nothing: its first tuple may join any of them
        op.advance(2, 99)
        assert op.buffered <= 2 * 7, name  # now only the last window is kept (MW processed the queues)


@pytest.mark.parametrize("make,words", [
    (lambda: Streams.of([[1, 2]], [[1, 1]]), ("at least 2 streams",)),
    (lambda: Streams.of([[2, 1], [1]], [[1, 1], [1]]), ("backwards", "stream A")),
    (lambda: Streams.of([[1], [1]], [[1.5], [1]]), ("integers",)),
    (lambda: WindowSpec.uniform(3, -1), ("window", ">= 0")),
    (lambda: WindowSpec.from_pairs("ABC", {("A", "B"): 1}), ("disconnected", "A,B | C")),
    (lambda: WindowSpec.from_pairs("ABC", {("A", "X"): 1}), ("unknown stream 'X'",)),
    (lambda: parse_windows("a-b:1,b-a:2", "ab"), ("twice",)),
    (lambda: parse_windows("a-b:1,a-b:2", "ab"), ("twice",)),
    (lambda: parse_windows("a-b", "ab"), ("NAME-NAME:W",)),
    (lambda: parse_windows("a-b:x", "ab"), ("integer",)),
    (lambda: parse_windows("a-b:-3", "ab"), (">= 0",)),
    (lambda: make_operator("xw", WindowSpec.uniform(2, 1)), ("unknown algorithm",)),
    (lambda: exact_count(Streams.of([[1], [1]], [[1], [1]]), WindowSpec.uniform(3, 1)), ("3 streams",)),
    (lambda: exact_count(Streams.of([[0, 2**61], [0]], [[1, 2], [1]]), WindowSpec.uniform(2, 1)), ("64-bit",)),
])
def test_bad_input_is_a_one_line_error(make, words):
    with pytest.raises(ShedError) as exc:
        make()
    assert_one_line_error(exc, *words)


def test_an_interleaving_must_name_every_tuple_once():
    streams = Streams.of([[1, 2], [1]], [[1, 1], [1]])
    for order in ([0, 1], [0, 0, 1, 1], [0, 1, 1]):
        with pytest.raises(ShedError) as exc:
            run(make_operator("hw", WindowSpec.uniform(2, 1)), streams, order)
        assert_one_line_error(exc, "exactly once")
    assert run(make_operator("hw", WindowSpec.uniform(2, 1)), streams, [1, 0, 0]).tolist() == [[0, 0], [1, 0]]


def test_time_going_backwards_in_the_operator():
    op = make_operator("nlw", WindowSpec.uniform(2, 1))
    op.push(0, 5, 1)
    with pytest.raises(ShedError) as exc:
        op.push(0, 4, 1)
    assert_one_line_error(exc, "backwards")


def test_two_large_streams_equal_dgr_exact():
    """N = 2 on 2 x 50,000 asynchronous tuples: the product count and the sweep against EXACT (w + 1)."""
    streams = random_streams(2, 50_000, 30, seed=11, rates=[1.0, 0.4])
    wl = Workload.from_streams(streams.times[0], streams.keys[0], streams.times[1], streams.keys[1],
                               window=26, warmup=0)
    spec = WindowSpec.uniform(2, 25)
    assert exact_count(streams, spec) == exact_count(streams, spec, "sweep") == dgr_exact_count(wl) > 10_000
