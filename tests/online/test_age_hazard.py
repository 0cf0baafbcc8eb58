"""AGE (Srivastava and Widom, VLDB 2004) and HAZARD as kinds of the one join kernel: the shared
invariants with the learner refitting at every step (the registry-wide invariant tests of
tests/online/test_engine.py see only their first steps), never above OPT / OPTV (Das, Gehrke,
Riedewald 2003, §3.2), PROB's order on i.i.d. streams, and what they gain on age-based ones."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shedding.datasets import zipf_workload
from shedding.datasets.age import age_workload
from shedding.errors import ShedError
from shedding.exact import exact_count, exact_pairs
from shedding.offline import solve_opt
from shedding.online import POLICIES, JoinOperator, OnlineEstimator, StaticEstimator
from shedding.online.ageing import hold_age, pair_age_curves
from shedding.online.agedlayout import H_HOLD0
from shedding.online.hazard import MAX_BUCKETS, age_buckets
from shedding.online.tuning import HazardTuning
from shedding.run import run_policy
from strategies import workloads

AGED = ["age", "agev", "hazard", "hazardv"]
#: refit at every step and always take the shaped model, so that tiny workloads exercise the
#: per-tuple priorities, the crossings and the matches
EAGER = HazardTuning(first=1, ratio=1.5, shadow=4, refit_first=1, refit_every=2, test=False)
#: the same with HAZARD's fit that forgets (shedding.online.forgetting), chosen at every refit
FORGETFUL = HazardTuning(first=1, ratio=1.5, shadow=4, refit_first=1, refit_every=2, test=False, forget=0.5)


def run(wl, memory, policy, bounds=None, static=False, grouped=False, tuning=EAGER):
    """(outputs, sorted pairs, departures) of ``policy`` fed in the pieces ``bounds``."""
    est = StaticEstimator.from_workload(wl, ages=True) if static else OnlineEstimator()
    op = JoinOperator(wl.window, memory, POLICIES[policy], warmup=wl.warmup, estimator=est, pairs=True,
                      record=True, tuning=tuning)
    group = np.minimum(np.arange(len(wl)) // 4, 3)  # groups first seen in later pieces too
    outs, pairs, dep = 0, [], []
    bounds = bounds or [0, len(wl)]
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        fed = op.feed(wl.side[lo:hi], wl.time[lo:hi], wl.key[lo:hi], group[lo:hi] if grouped else None)
        outs += fed.outputs
        pairs += list(map(tuple, fed.pairs.tolist()))
        dep += list(map(tuple, fed.departures.tolist()))
    dep += list(map(tuple, op.finish().tolist()))
    return outs, sorted(pairs), sorted(dep)


def test_registered_in_the_one_kernel():
    assert [POLICIES[p].variable for p in AGED] == [False, True, False, True]
    assert POLICIES["age"].kind == POLICIES["agev"].kind != POLICIES["hazard"].kind == POLICIES["hazardv"].kind


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wl=workloads(max_n=40), memory=st.integers(0, 8), policy=st.sampled_from(AGED), static=st.booleans(),
       grouped=st.booleans(), tuning=st.sampled_from([EAGER, FORGETFUL]))
def test_outputs_are_a_subset_of_exact_and_never_above_opt(wl, memory, policy, static, grouped, tuning):
    outs, pairs, _ = run(wl, memory, policy, static=static, grouped=grouped, tuning=tuning)
    assert len(pairs) == outs and set(pairs) <= set(map(tuple, exact_pairs(wl).tolist()))
    opt = solve_opt(wl, memory, allocation="variable" if POLICIES[policy].variable else "fixed")
    assert outs <= opt.outputs


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wl=workloads(max_n=40), memory=st.integers(0, 8), policy=st.sampled_from(AGED),
       cuts=st.lists(st.integers(0, 14), max_size=4), static=st.booleans(), grouped=st.booleans(),
       tuning=st.sampled_from([EAGER, FORGETFUL]))
def test_feeding_in_pieces_changes_nothing_and_runs_repeat(wl, memory, policy, cuts, static, grouped, tuning):
    bounds = sorted({0, len(wl)} | {int(np.searchsorted(wl.time, c)) for c in cuts})
    whole = run(wl, memory, policy, static=static, grouped=grouped, tuning=tuning)
    assert run(wl, memory, policy, bounds, static=static, grouped=grouped, tuning=tuning) == whole
    assert run(wl, memory, policy, static=static, grouped=grouped, tuning=tuning) == whole


@pytest.mark.parametrize("policy", AGED)
@pytest.mark.parametrize("static", [False, True])
@pytest.mark.parametrize("tuning", [EAGER, FORGETFUL])
def test_2w_minus_2_is_exact(policy, static, tuning):
    wl = zipf_workload(1.0, 20, 600, seed=5, window=40)
    assert run(wl, 2 * wl.window - 2, policy, static=static, tuning=tuning)[0] == exact_count(wl)
    assert run_policy(wl, policy, 2 * wl.window - 2, estimator="static" if static else "online").outputs \
        == exact_count(wl)


@pytest.mark.parametrize("skew, seed, memory", [(0.5, 2, 100), (1.0, 0, 300), (2.0, 2, 100)])
@pytest.mark.parametrize("variable", [False, True])
@pytest.mark.parametrize("estimator", ["static", "online"])
def test_hazard_is_prob_on_iid_streams(skew, seed, memory, variable, estimator):
    """Within 0.5% of OPT of PROB on the paper's i.i.d. streams: the model test finds no age shape."""
    wl = zipf_workload(skew, 50, 2000, seed=seed, window=200)
    suffix = "v" if variable else ""
    opt = solve_opt(wl, memory, allocation="variable" if variable else "fixed").outputs
    prob = run_policy(wl, "prob" + suffix, memory, estimator=estimator).outputs
    hazard = run_policy(wl, "hazard" + suffix, memory, estimator=estimator).outputs
    assert abs(hazard - prob) <= 0.005 * opt


@pytest.mark.parametrize("skew, seed", [(0.0, 3), (0.0, 4), (0.0, 5), (1.0, 3), (1.0, 4)])
def test_the_model_test_stays_flat_on_iid_streams(skew, seed):
    """The paper's Figure 3 setting (w = M = 400, keys over 50 values, uniform or Zipf(1)): a
    tuple's rate depends neither on its age nor on whether it has met a partner, so HAZARDV keeps
    PROBV's order throughout and gives its pairs."""
    wl = zipf_workload(skew, 50, seed=seed)
    pairs = [run(wl, 400, policy, tuning=HazardTuning())[1] for policy in ("probv", "hazardv")]
    assert pairs[0] == pairs[1]


def test_the_model_test_finds_the_age_shape():
    """Keys that collide (Zipf(0.5) over 1,000 values) on the age-based model: the model test
    finds the age curve and HAZARD takes its own order (about 14% above PROB here)."""
    wl = age_workload(length=3000, lag_spread=20, background=0.0, skew=0.5, domain=1000, seed=2)
    prob, hazard = (run(wl, 100, policy, tuning=HazardTuning())[0] for policy in ("prob", "hazard"))
    assert hazard > 1.1 * prob


def test_hazard_and_age_close_the_gap_on_the_age_model():
    """Unique keys, partners at lag ~ Normal(60, 5): PROB sees no frequency to go by; AGE with the
    known curve and HAZARD learning it keep tuples until their partner's age. (HAZARD starts as PROB
    until its guard has seen the shape keep more, so the stream is long enough for that start.)"""
    wl = age_workload(length=12000, window=200, lag_mean=60, lag_spread=5, background=0.0, skew=0.0,
                      domain=10**6, seed=2)
    opt = solve_opt(wl, 40).outputs
    prob = run_policy(wl, "prob", 40, estimator="online").outputs
    age = run_policy(wl, "age", 40, estimator="static").outputs
    hazard = run_policy(wl, "hazard", 40, estimator="online").outputs
    assert prob < 0.2 * opt and age > 0.7 * opt and hazard > 0.75 * opt


def test_run_policy_passes_the_tuning_to_the_operator():
    """``run_policy(..., tuning=...)`` runs the operator with that learner (here one that refits at
    every step and learns the short lag early, so that it keeps more than the defaults do)."""
    wl = age_workload(length=600, window=100, lag_mean=30, lag_spread=5, background=0.0, skew=0.0, domain=10**6,
                      seed=1)
    eager = run_policy(wl, "hazard", 20, estimator="online", tuning=EAGER).outputs
    assert eager == run(wl, 20, "hazard")[0] != run_policy(wl, "hazard", 20, estimator="online").outputs
    assert run_policy(wl, "hazard", 20, estimator="online", tuning=EAGER.spec).outputs == eager  # its text


def test_the_operator_reads_a_tuning_text_and_refuses_other_types():
    wl = zipf_workload(1.0, 20, 200, seed=1, window=20)
    assert run(wl, 8, "hazard", tuning=EAGER.spec) == run(wl, 8, "hazard")
    for value in (5, {"ratio": 2}):
        with pytest.raises(ShedError, match="^tuning must be a HazardTuning or its text field=value"):
            JoinOperator(10, 8, "hazard", tuning=value)
    with pytest.raises(ShedError, match="^ratio must be a number >= 1"):
        JoinOperator(10, 8, "hazard", tuning="ratio=0.5")


def test_hazard_ranks_by_a_payload_group():
    import pandas as pd

    from shedding.online.groups import MAX_GROUPS

    wl = zipf_workload(1.0, 20, 600, seed=1, window=40)
    wl.meta["payload"] = pd.DataFrame({"dest": pd.Categorical(np.arange(len(wl)) % 4),
                                       "air_time": np.arange(len(wl)) % 300, "flight_row": np.arange(len(wl))})
    res = run_policy(wl, "hazard", 20, estimator="online", group="dest")
    assert res.params["group"] == "dest" and res.outputs <= exact_count(wl)
    with pytest.raises(ShedError, match="^unknown group column 'gate'; the workload's payload columns are dest, "
                       "air_time, flight_row$"):
        run_policy(wl, "hazard", 20, group="gate")
    # integers are groups as text is (a file's endpoint ids); a number per tuple is more groups than the
    # learner has sample for, refused by the bound
    assert run_policy(wl, "hazard", 20, estimator="online", group="air_time").params["group"] == "air_time"
    assert len(wl) > MAX_GROUPS
    with pytest.raises(ShedError, match=f"^group flight_row has {len(wl):,} distinct values, more than the "
                       f"{MAX_GROUPS:,} HAZARD learns"):
        run_policy(wl, "hazard", 20, group="flight_row")
    with pytest.raises(ShedError, match="^group needs payload columns per tuple"):
        run_policy(zipf_workload(1.0, 20, 100, window=10), "hazard", 5, group="dest")


@pytest.mark.parametrize("tuning", [None, EAGER])
def test_group_numbers_do_not_matter(tuning):
    """A tuple admitted while HAZARD ranks as PROB keeps its group for when a refit ranks it by
    age: the same groups under other numbers give the same output."""
    wl = age_workload(length=120, window=30, lag_mean=10, lag_spread=3, background=0.0, skew=0.0, domain=10**6,
                      seed=1, warmup=5)
    g = np.random.default_rng(len(wl)).integers(0, 3, len(wl))
    outs = {JoinOperator(wl.window, 9, "hazard", tuning=tuning).feed(wl.side, wl.time, wl.key, np.array(r)[g]).outputs
            for r in ([0, 1, 2], [1, 0, 2], [2, 1, 0])}
    assert len(outs) == 1


@pytest.mark.parametrize("policy", ["hazard", "hazardv"])
def test_a_group_first_seen_in_a_later_feed_ranks_as_in_one_feed(policy):
    """A new group starts from the pooled curve, as the last fit would have given it."""
    wl = age_workload(length=150, window=30, lag_mean=10, lag_spread=3, background=0.0, skew=0.0, domain=10**6,
                      seed=1, warmup=0)
    n = len(wl)
    half = int(np.searchsorted(wl.time, wl.time[n // 2]))
    g = np.where(np.arange(n) < half, np.arange(n) % 2, 2 + np.arange(n) % 2)

    def fed(bounds):
        op = JoinOperator(wl.window, 10, policy)
        return sum(op.feed(wl.side[a:b], wl.time[a:b], wl.key[a:b], g[a:b]).outputs for a, b in zip(bounds, bounds[1:]))

    assert fed([0, half, n]) == fed([0, n]) > 0


@pytest.mark.parametrize("policy", ["age", "agev"])
def test_age_with_a_known_curve_plans_for_a_new_budget(policy):
    """Srivastava and Widom's hold ages depend on M: set_memory plans them anew."""
    wl = age_workload(length=600, window=100, lag_mean=30, lag_spread=5, background=0.0, skew=0.0, domain=10**6,
                      seed=1, warmup=0)

    def op(memory):
        return JoinOperator(100, memory, policy, estimator=StaticEstimator.from_workload(wl, ages=True))

    lowered = op(80)
    lowered.set_memory(10)
    assert lowered.feed(wl.side, wl.time, wl.key).outputs == op(10).feed(wl.side, wl.time, wl.key).outputs
    mid = op(80)
    h = int(np.searchsorted(wl.time, 300))
    mid.feed(wl.side[:h], wl.time[:h], wl.key[:h])
    mid.set_memory(10)
    fresh = op(10)._aged
    hold = slice(H_HOLD0, H_HOLD0 + 2)
    assert np.array_equal(mid._aged.hsc[hold], fresh.hsc[hold]) and np.array_equal(mid._aged.segedge, fresh.segedge)
    assert not np.array_equal(op(80)._aged.hsc[hold], fresh.hsc[hold])  # the budget matters here


def test_the_first_feed_decides_on_groups():
    wl = zipf_workload(1.0, 20, 100, seed=1, window=10)
    op = JoinOperator(10, 8, "hazard", estimator=OnlineEstimator())
    op.feed(wl.side[:10], wl.time[:10], wl.key[:10])
    with pytest.raises(ShedError, match="first feed decided"):
        op.feed(wl.side[10:20], wl.time[10:20], wl.key[10:20], np.zeros(10))


def test_hold_age_keeps_tuples_to_their_partner():
    knots = np.arange(100)
    cum = np.cumsum(np.where(knots == 40, 1.0, 0.0))  # every partner at age 40
    assert hold_age(knots, cum, 1.0, 80.0) == (40, 1.0)  # room for all: hold each to 40
    assert hold_age(knots, cum, 1.0, 20.0) == (40, 0.5)  # room for half: hold half of them to 40
    decreasing = np.cumsum(np.r_[0.0, np.linspace(1.0, 0.0, 99)])
    assert hold_age(knots, decreasing, 1.0, 30.0)[0] == 30  # decreasing curve: keep the newest


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_the_hold_age_is_srivastava_and_widoms_best_age(seed):
    """Srivastava and Widom's plan for the age-based model: a dropped tuple never returns, so each
    admitted tuple is held from age 0 to some N, at N slots each; with r arrivals per step and M
    slots, min(r, M/N) tuples per step fit and catch F(N) partners each. hold_age must give the N
    of the largest gain against every N tried by brute force, on curves of any shape given at
    uneven knots (linear in between, as the online estimate's buckets give them)."""
    from shedding.online.ageing import SPLITS, age_plan

    rng = np.random.default_rng(seed)
    last = int(rng.integers(2, 300))
    knots = np.unique(np.r_[0, rng.integers(1, last, int(rng.integers(0, 12))), last]).astype(np.int64)
    cum = np.r_[0.0, np.cumsum(rng.exponential(1.0, len(knots) - 1) * (rng.random(len(knots) - 1) < 0.7))]
    rate, slots = float(rng.uniform(0.05, 3.0)), float(rng.integers(0, 400))

    def gain(n, r=rate, m=slots, c=cum):
        return min(r, m / n) * float(np.interp(n, knots, c))

    n, g = hold_age(knots, cum, rate, slots)
    best = max(gain(k) for k in range(1, last + 1))
    assert 1 <= n <= last and g == pytest.approx(gain(n)) and g == pytest.approx(best, rel=1e-9, abs=1e-12)
    # the variable split: the best of its SPLITS splits of M between the sides, by brute force too
    cums, rates = np.stack([cum, cum[::-1].max() - cum[::-1]]), np.array([rate, float(rng.uniform(0.05, 3.0))])
    cums[1] = np.maximum.accumulate(cums[1])
    m = int(slots)
    hold, density = np.zeros(2, np.int64), np.zeros(2)
    age_plan(knots, cums, rates, np.array([m, 0]), True, hold, density)
    splits = [int(round(m * i / (SPLITS - 1))) for i in range(SPLITS)]
    best = max(sum(max(gain(k, rates[s], (a, m - a)[s], cums[s]) for k in range(1, last + 1)) for s in (0, 1))
               for a in splits)
    got = max(sum(gain(int(hold[s]), rates[s], (a, m - a)[s], cums[s]) for s in (0, 1)) for a in splits)
    assert got == pytest.approx(best, rel=1e-9, abs=1e-12)


def test_pair_age_curves_count_partners_per_age():
    wl = age_workload(length=2000, window=50, lag="uniform", lag_mean=10, lag_spread=0, background=0.0,
                      domain=10**6, skew=0.0, seed=2)
    f = pair_age_curves(wl)
    assert f[0, 10] == pytest.approx(1.0, abs=0.01) and f[0].sum() == pytest.approx(1.0, abs=0.01)
    assert f[1].sum() < 0.01


def test_age_buckets_cover_the_window():
    for w in (1, 2, 7, 400, 720):
        edges = age_buckets(w)
        assert edges[0] == 0 and edges[-1] == max(w - 1, 1) and np.all(np.diff(edges) >= 1)
    assert age_buckets(2**62, 1, 1e6).tolist()[:3] == [0, 1, 1_000_001]  # the widest ratio: no overflow
    assert len(age_buckets(MAX_BUCKETS + 1, 1, 1.0)) == MAX_BUCKETS + 1


def test_too_many_age_buckets_are_refused():
    """first=1, ratio=1 over a window of a million steps took 3 GB for a stream of 6,000 tuples."""
    with pytest.raises(ShedError, match=f"^tuning first=1, ratio=1 cut the window of 1000000 steps into more than "
                                        f"{MAX_BUCKETS:,} age buckets; raise first or ratio$"):
        JoinOperator(10**6, 8, "hazard", tuning=HazardTuning(first=1, ratio=1.0))


@pytest.mark.parametrize("kwargs, match", [
    ({"first": 0}, "first must be an integer >= 1"),
    ({"ratio": 0.5}, "ratio must be a number >= 1"),
    ({"kappa": -1.0}, "kappa must be a number >= 0"),
    ({"ratio": 1e308}, "ratio must be a number >= 1 and <= 1e\\+06, got 1e\\+308"),  # was an OverflowError
    ({"ratio": float("nan")}, "ratio must be a number >= 1"),
    ({"ratio": 10**400}, "ratio must be a number of a float's range"),
    ({"kappa": 1e300}, "kappa must be a number >= 0 and <= 1e\\+12"),
    ({"evidence": float("inf")}, "evidence must be a finite number >= 0"),
    ({"forget": 1.0}, "forget must be a number >= 0 and < 1"),
    ({"forget": -0.5}, "forget must be a number >= 0 and < 1"),
    ({"forget": float("nan")}, "forget must be a number >= 0 and < 1"),
    ({"hysteresis": 1.5}, "hysteresis must be a number >= 0 and <= 1"),
    # the wrong types (were accepted, or failed later in the compiled code)
    ({"ratio": "2"}, "ratio must be a number, got '2'"),
    ({"ratio": True}, "ratio must be a number, got True"),
    ({"first": 2.0}, "first must be an integer, got 2.0"),
    ({"shadow": np.True_}, "shadow must be an integer"),
    ({"test": "no"}, "test must be True or False, got 'no'"),
    ({"test": 1}, "test must be True or False, got 1"),
])
def test_bad_tuning(kwargs, match):
    with pytest.raises(ShedError, match=match) as exc:
        HazardTuning(**kwargs)
    assert exc.value.param == next(iter(kwargs))


def test_tuning_values_are_made_canonical():
    tuning = HazardTuning(first=np.int64(4), ratio=2, kappa=np.float32(50.0), test=np.False_)
    assert [type(tuning.first), type(tuning.ratio), type(tuning.kappa), type(tuning.test)] == [int, float, float, bool]
    assert tuning.spec == "first=4,ratio=2.0,kappa=50.0,test=False" and HazardTuning.parse(tuning.spec) == tuning


def test_tuning_of_a_value():
    assert HazardTuning.of(None) == HazardTuning() and HazardTuning.of(EAGER) is EAGER
    assert HazardTuning.of("ratio=2") == HazardTuning(ratio=2.0)
    with pytest.raises(ShedError, match="^tuning must be a HazardTuning or its text"):
        HazardTuning.of(2.0)


def test_tuning_reads_its_spec_back():
    tuning = HazardTuning.parse(" ratio=2, shadow=128,test=false ")
    assert tuning == HazardTuning(ratio=2.0, shadow=128, test=False)
    assert HazardTuning.parse(tuning.spec) == tuning
    assert HazardTuning.parse("") == HazardTuning() and HazardTuning().spec == ""


@pytest.mark.parametrize("text, match", [
    ("foo=1", "'foo=1' is not field=value with a field of first, ratio"),
    ("first", "'first' is not field=value"),
    ("first=1.5", "first='1.5' is not an integer; e.g. first=8"),
    ("test=maybe", "test='maybe' is not true or false"),
    ("first=3,first=4", "first is given twice"),
    ("ratio=0.5", "ratio must be a number >= 1 and <= 1e\\+06, got 0.5"),
    ("ratio=1e308", "ratio must be a number >= 1 and <= 1e\\+06, got 1e\\+308"),
    ("kappa=nan", "kappa must be a number >= 0"),
    ("shadow=100000", "shadow is at most 65,536 entries per side"),
    ("iters=20000", "iters is at most 10,000 EM steps"),
    ("refit_every=99999999999999999999", "refit_every must be an integer >= 1 \\(and at most 2\\^62\\)"),
    ("group_fit_every=0", "group_fit_every must be an integer >= 1 \\(and at most 2\\^62\\), got 0"),
])
def test_bad_tuning_text(text, match):
    with pytest.raises(ShedError, match=match):
        HazardTuning.parse(text)


def test_tuning_text_must_be_a_text():
    for value in (None, 2, HazardTuning()):
        with pytest.raises(ShedError, match="^tuning must be a text field=value,... such as 'ratio=2'"):
            HazardTuning.parse(value)


def test_the_band_join_refuses_them():
    from shedding.band.operator import BandJoinOperator

    with pytest.raises(ShedError, match="^policy hazard runs on the equi-join and the streaming join, not on the band join; choose from rand, "):
        BandJoinOperator(10, 4, "hazard", np.array([1]))


def test_hazard_back_and_forth_between_its_model_and_prob():
    """The model test switches HAZARD to PROB's order and back (here at steps 122, 318 and 583):
    the classes of tuples that left memory meanwhile are forgotten, not reused (this run hung)."""
    wl = age_workload(length=3000, lag_spread=50, background=0.0, skew=0.5, domain=1000, seed=2)
    res = run_policy(wl, "hazard", 100, estimator="online")
    assert 0 < res.outputs <= exact_count(wl)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wl=workloads(max_n=40), memory=st.integers(1, 8), lower=st.integers(0, 8), policy=st.sampled_from(AGED),
       cut=st.integers(0, 14))
def test_set_memory_evicts_by_the_kinds_own_victim(wl, memory, lower, policy, cut):
    """A budget lowered between feeds holds at once; every tuple still leaves once, and the
    output stays a subset of EXACT's pairs."""
    op = JoinOperator(wl.window, memory, POLICIES[policy], warmup=wl.warmup, estimator=OnlineEstimator(),
                      pairs=True, record=True, tuning=EAGER)
    mid = int(np.searchsorted(wl.time, cut))
    first = op.feed(wl.side[:mid], wl.time[:mid], wl.key[:mid])
    gone = op.set_memory(lower)
    n_r, n_s = op.in_memory
    m_r, m_s = lower // 2, lower - lower // 2
    assert (n_r + n_s <= lower) if POLICIES[policy].variable else (n_r <= m_r and n_s <= m_s)
    rest = op.feed(wl.side[mid:], wl.time[mid:], wl.key[mid:])
    dep = np.concatenate([first.departures, gone, rest.departures, op.finish()])
    assert sorted(dep[:, 0].tolist()) == list(range(len(wl)))
    pairs = set(map(tuple, np.concatenate([first.pairs, rest.pairs]).tolist()))
    assert pairs <= set(map(tuple, exact_pairs(wl).tolist()))
