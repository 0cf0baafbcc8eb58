"""HAZARD's guard (shedding.online.guard): it judges the shaped order by the outputs a replay keeps
against PROB's, online (no decision reads an arrival after its time), and HAZARD ranks by its age
shape only where the replay says it pays."""

from __future__ import annotations

import numpy as np
import pytest

from shedding.datasets import zipf_workload
from shedding.datasets.age import age_workload
from shedding.model import Workload
from shedding.offline import solve_opt
from shedding.online import JoinOperator, OnlineEstimator
from shedding.online import agedlayout as L
from shedding.online.agedlayout import H_CHOSE0, H_FCHOSE, H_FITSHAPED0, H_OK0, H_REFITS
from shedding.online.forgetting import choose
from shedding.online.tuning import HazardTuning
from shedding.run import run_policy


def feed(wl: Workload, memory: int, policy: str = "hazard", tuning: HazardTuning | None = None):
    """(departures as a set of (arrival, leave time, admitted), the operator) of one feed."""
    op = JoinOperator(wl.window, memory, policy, warmup=wl.warmup, estimator=OnlineEstimator(), record=True,
                      tuning=tuning)
    fed = op.feed(wl.side, wl.time, wl.key)
    dep = np.concatenate([fed.departures, op.finish()])
    return {tuple(row) for row in dep.tolist()}, op


def scrambled(wl: Workload, t0: int, seed: int) -> Workload:
    """``wl`` with every arrival at or after t0 given a random side and key."""
    rng = np.random.default_rng(seed)
    late = wl.time >= t0
    side, key = wl.side.copy(), wl.key.copy()
    side[late] = rng.integers(0, 2, late.sum())
    key[late] = rng.integers(0, int(wl.key.max()) + 1, late.sum())
    return Workload(side=side, time=wl.time.copy(), key=key, window=wl.window, warmup=wl.warmup)


def shifted(seed: int) -> Workload:
    """The age-based model over 2,000 steps with partners 40 steps after their key's first
    arrival, then 2,000 more (new keys) with partners 150 steps after."""
    parts = [age_workload(length=2000, lag_mean=lag, lag_spread=20, background=0.0, skew=0.0, domain=10**6,
                          seed=seed + 10 * i) for i, lag in enumerate((40, 150))]
    off = int(parts[0].time.max()) + 1
    return Workload(side=np.concatenate([p.side for p in parts]),
                    time=np.concatenate([parts[0].time, parts[1].time + off]),
                    key=np.concatenate([parts[0].key, parts[1].key + 10**7]), window=parts[0].window,
                    warmup=parts[0].warmup)


@pytest.mark.parametrize("policy", ["hazard", "hazardv"])
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("forget", [0.0, 0.5])
def test_scrambling_after_t0_changes_no_earlier_decision(policy, seed, forget):
    """Every arrival from t0 on replaced at random: each tuple that left memory (or was refused)
    before t0 left at the same time, and the guard judged and vetoed before t0 (and, with a fit
    that forgets, chose between the two fits before t0), so its choices are among those
    decisions. The age curve changes at t0 (its lag from 40 steps to 150)."""
    wl = shifted(seed)
    tuning = HazardTuning(forget=forget)
    t0 = int(np.median(wl.time))
    head = wl.time < t0
    _, op = feed(Workload(side=wl.side[head], time=wl.time[head], key=wl.key[head], window=wl.window,
                          warmup=wl.warmup), 100, policy, tuning)
    full, _ = feed(wl, 100, policy, tuning)
    other, _ = feed(scrambled(wl, t0, seed), 100, policy, tuning)
    early = {d for d in full if d[1] < t0}
    assert early and early == {d for d in other if d[1] < t0}
    hsc = op._aged.hsc
    assert hsc[H_REFITS] > 3 and hsc[H_CHOSE0] + hsc[H_CHOSE0 + 1] > 0  # the guard chose before t0
    assert (hsc[H_FCHOSE] > 0) == (forget > 0)  # and took the fit that forgets at some refit


def test_the_guard_is_prob_where_the_shape_does_not_pay():
    """Zipf keys, i.i.d.: whatever the model test says, the guard keeps PROB's order (the same
    pairs) on the paper's Figure 3 point."""
    wl = zipf_workload(1.0, 50, seed=3)
    prob, _ = feed(wl, 400, "probv")
    hazard, op = feed(wl, 400, "hazardv")
    assert prob == hazard
    assert op._aged.hsc[H_CHOSE0] == op._aged.hsc[H_CHOSE0 + 1] == 0


def test_the_guard_allows_the_shape_where_it_pays():
    """Unique keys on the age-based model: the shape is all there is to go by, and the guard
    allows it on R's side; HAZARD gets 90% of what it gets without the guard (it starts as PROB
    and takes the shape at the first refit after the replay shows the lead)."""
    wl = age_workload(length=12000, window=200, lag_mean=60, lag_spread=5, background=0.0, skew=0.0,
                      domain=10**6, seed=2)
    opt = solve_opt(wl, 40).outputs
    prob = run_policy(wl, "prob", 40, estimator="online").outputs
    guarded = run_policy(wl, "hazard", 40, estimator="online").outputs
    unguarded = run_policy(wl, "hazard", 40, estimator="online", tuning="guard=false").outputs
    assert guarded - prob > 0.9 * (unguarded - prob) and guarded > 0.7 * opt
    _, op = feed(wl, 40)
    assert op._aged.hsc[H_OK0] == 1


def test_without_the_guard_the_model_test_decides():
    """``guard=false``: HAZARD ranks by its shape wherever the model test finds one (as before the
    guard); the guard's verdicts are then never applied."""
    wl = age_workload(length=3000, lag_spread=20, background=0.0, skew=0.5, domain=1000, seed=2)
    _, op = feed(wl, 100, tuning=HazardTuning(guard=False))
    hsc = op._aged.hsc
    assert hsc[H_FITSHAPED0] == 1 and hsc[H_CHOSE0] > 0 and hsc[H_OK0] == 0


@pytest.mark.parametrize("guard", [True, False])
@pytest.mark.parametrize("forget", [0.25, 0.5])
def test_forgetting_stays_a_subset_of_the_pairs_and_repeats(forget, guard):
    """A learner with a fit that forgets: the same outputs on every run, never above OPT; without
    the guard it fits the decayed statistics at every refit."""
    wl = age_workload(length=3000, lag_spread=20, background=0.5, skew=0.5, domain=1000, seed=1)
    tuning = HazardTuning(forget=forget, guard=guard)
    runs = [run_policy(wl, "hazard", 100, estimator="online", tuning=tuning) for _ in range(2)]
    assert runs[0].outputs == runs[1].outputs <= solve_opt(wl, 100).outputs
    assert runs[0].guard.endswith(" forget 9/9" if not guard else "/9") and " forget " in runs[0].guard


def _chooser(forget: float, guard: int = 1):
    """The arrays :func:`choose` takes, one group and one age bucket: (hsc, hf, ev, ex, evd, exd,
    evl, exl, cf)."""
    hsc, hf = np.zeros(L.H_FIELDS, np.int64), np.zeros(L.HF_FIELDS)
    hsc[L.H_NB], hsc[L.H_NG], hsc[L.H_ITERS], hsc[L.H_GUARD] = 1, 1, 8, guard
    hf[L.HF_FORGET] = forget
    shape = (2, 1, 2, 1, 20)
    cf = np.zeros((2, 2, 2, 2, 1))
    cf[:, 1] = 1.0
    return hsc, hf, np.zeros(shape, np.int64), np.zeros(shape, np.int64), np.zeros(shape), np.zeros(shape), \
        np.zeros(shape, np.int64), np.zeros(shape, np.int64), cf


def test_the_fit_that_forgets_is_taken_when_it_predicts_the_new_events_better():
    """Keys of rate 0 (beta bin 0: the rate is the age curve e alone), unmatched, one bucket: 10
    events in 100 steps, then 100 in 100 at each of two refits. The decayed statistics are the
    counts of each period, the older multiplied by 1 - forget (5 + 100 in 50 + 100 after the
    second); the full fit predicts e = 110/200 for the third period, the decayed one 105/150, whose
    Poisson log-likelihood of 100 events in 100 steps is higher by about 9.1 nats per side: taken.
    A stream whose rate stays leaves the full fit."""
    args = _chooser(0.5)
    hsc, hf, ev, ex, evd, exd, evl, exl, cf = args
    chosen = []
    for events in (10, 100, 100):
        ev[:, 0, 0, 0, 0] += events
        ex[:, 0, 0, 0, 0] += 100
        chosen.append(choose(*args))
    assert chosen == [False, False, True] and hsc[H_FCHOSE] == 1
    assert np.allclose(evd[:, 0, 0, 0, 0], 0.25 * 10 + 0.5 * 100 + 100) and (evl == ev).all()
    assert np.allclose(cf[1, 0, :, 0, 0], (0.25 * 10 + 0.5 * 100 + 100) / 175) and np.allclose(cf[0, 0, :, 0, 0], 210 / 300)
    expected = 2 * (100 * np.log(105 / 150) - 105 / 150 * 100 - 100 * np.log(110 / 200) + 110 / 200 * 100)
    assert hf[L.HF_FGAIN] == pytest.approx(expected)
    steady = _chooser(0.5)
    for _ in range(6):
        steady[2][:, 0, 0, 0, 0] += 30
        steady[3][:, 0, 0, 0, 0] += 100
        assert not choose(*steady)
    unguarded = _chooser(0.5, guard=0)
    assert choose(*unguarded) and not choose(*_chooser(0.0))


@pytest.mark.parametrize("window,first,ratio", [(720, 8, 1.3), (2, 8, 1.3), (1, 8, 1.3), (4090, 1, 1.0), (9000, 4, 1.0), (40, 3, 2.0)])
def test_the_bucket_table_gives_the_bucket_the_edges_give(window: int, first: int, ratio: float) -> None:
    """The table of age buckets the guard and the memory look up (agebuckets.bucket_table, at most
    TABLE_AGES ages) against the binary search of the edges (agebuckets.bucket_of) for every age it
    holds, and bucket_at for ages in it and past it."""
    from shedding.online.agebuckets import TABLE_AGES, bucket_at, bucket_of, bucket_table
    from shedding.online.hazard import age_buckets

    edges = age_buckets(window, first, ratio)
    table = bucket_table(edges)
    assert len(table) == min(int(edges[-1]), TABLE_AGES)
    assert [int(b) for b in table] == [bucket_of(edges, age) for age in range(len(table))]
    for age in (-1, 0, len(table) - 1, len(table), int(edges[-1]), int(edges[-1]) + 5, 10 ** 7):
        assert bucket_at(table, edges, age) == bucket_of(edges, age)
