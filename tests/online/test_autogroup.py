"""HAZARD picks its own payload grouping (shedding.online.autogroup, ``group="auto"``): it finds the
column that sets the ages, its choice is online, and its outputs keep the join's invariants."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from shedding.errors import ShedError
from shedding.model import Workload
from shedding.offline import solve_opt
from shedding.online import JoinOperator, OnlineEstimator, simulate
from shedding.online import agedlayout as L
from shedding.online.aged import AgedState
from shedding.online.autogroup import score
from shedding.online.forgetting import MARGIN
from shedding.online.groups import auto_columns, payload_groups
from shedding.online.hazard import Q_PRIO, Q_STATS, Q_STATS_OCTAVE, bin_beta, candidate_group
from shedding.online.kinds import HAZARD
from shedding.online.tuning import HazardTuning

#: partners come this many steps after their tuple, by its category
LAGS = np.array([10, 40, 90, 160])


def lagged(n: int = 3000, seed: int = 0, window: int = 200) -> Workload:
    """R tuples of unique keys, about one per step; each one's partner (S) comes LAGS[category]
    (+-3) steps later; ``category`` sets the age, ``region`` nothing."""
    rng = np.random.default_rng(seed)
    t_r = np.sort(rng.integers(0, n, n))
    category, region = rng.integers(0, len(LAGS), n), rng.integers(0, 5, n)
    t_s = t_r + LAGS[category] + rng.integers(-3, 4, n)
    side = np.r_[np.zeros(n, np.int64), np.ones(n, np.int64)]
    time, key = np.r_[t_r, t_s], np.r_[np.arange(n), np.arange(n)]
    order = np.lexsort((side, time))
    payload = pd.DataFrame({"region": np.r_[region, region][order], "category": np.r_[category, category][order]})
    return Workload(side=side[order], time=time[order], key=key[order], window=window, warmup=0, name="lagged",
                    meta={"payload": payload})


def feed(wl: Workload, memory: int, group: np.ndarray | None, cut: int | None = None):
    """(departures as a set of (arrival, leave time, admitted), the operator) of HAZARD fed ``wl``
    with ``group``, in two pieces at time ``cut`` when given."""
    op = JoinOperator(wl.window, memory, "hazard", estimator=OnlineEstimator(), record=True)
    pieces = [wl.time < cut, wl.time >= cut] if cut is not None else [np.ones(len(wl), bool)]
    dep = [op.feed(wl.side[p], wl.time[p], wl.key[p], None if group is None else group[p]).departures
           for p in pieces]
    return {tuple(row) for row in np.concatenate([*dep, op.finish()]).tolist()}, op


def test_auto_finds_the_column_that_sets_the_ages():
    """Candidates: no group, region, category; the R side ranks by category at most refits, and
    HAZARD keeps as much as by category given (within 2%), far more than without a group."""
    wl = lagged()
    assert auto_columns(wl) == ["region", "category"]
    none = simulate(wl, "hazard", 40, estimator="online")
    given = simulate(wl, "hazard", 40, estimator="online", group="category")
    auto = simulate(wl, "hazard", 40, estimator="online", group="auto")
    r = auto.group_choice["R"]
    assert max(r, key=r.get) == "category" and sum(r.values()) == sum(auto.group_choice["S"].values())
    assert auto.outputs >= 0.98 * given.outputs and auto.outputs > 1.2 * none.outputs
    assert auto.params["group"] == "auto" and " by R category " in auto.guard
    assert auto.as_dict()["group_choice"] == auto.group_choice


def test_auto_leaves_out_the_key_under_other_names():
    """A column with one value per key and one key per value is not a candidate; a column that
    groups many keys (one value per key) and one with several values per key stay."""
    wl = lagged(400)
    payload = wl.meta["payload"].assign(name=[f"k{k}" for k in wl.key], parity=wl.key % 2)
    wl2 = Workload(side=wl.side, time=wl.time, key=wl.key, window=wl.window, warmup=0, name="named",
                   meta={"payload": payload[["name", "parity", "category"]]})
    assert auto_columns(wl2) == ["parity", "category"]
    only = Workload(side=wl.side, time=wl.time, key=wl.key % 50, window=wl.window, warmup=0, name="named",
                    meta={"payload": pd.DataFrame({"name": [f"k{k}" for k in wl.key % 50]})})
    with pytest.raises(ShedError, match="other than the key"):
        auto_columns(only)


@pytest.mark.parametrize("memory", [0, 7, 40])
def test_auto_keeps_a_subset_of_the_pairs_never_above_opt(memory):
    wl = lagged(1500, seed=1)
    exact = {tuple(p) for p in simulate(wl, "exact", 0, pairs=True).pairs.tolist()}
    res = simulate(wl, "hazard", memory, estimator="online", group="auto", pairs=True)
    assert {tuple(p) for p in res.pairs.tolist()} <= exact
    assert res.outputs <= solve_opt(wl, memory).outputs


def test_auto_is_exact_with_memory_for_the_whole_window():
    """With room for every tuple a window holds on either side (2w - 2 on one tuple per step),
    nothing is shed."""
    wl = lagged(800, seed=2, window=60)
    most = max(int(np.max(np.searchsorted(t, t + wl.window - 1, side="right") - np.arange(len(t))))
               for t in (wl.time[wl.side == 0], wl.time[wl.side == 1]))
    res = simulate(wl, "hazard", 2 * most, estimator="online", group="auto")
    assert res.outputs == res.exact and sum(res.group_choice["R"].values()) > 0


def test_auto_fed_in_pieces_decides_as_fed_whole():
    wl = lagged(1500, seed=3)
    groups = payload_groups(wl, "auto")
    whole, op = feed(wl, 30, groups)
    pieces, _ = feed(wl, 30, groups, cut=int(np.median(wl.time)))
    assert whole == pieces and op.group_picks.shape == (2, 3)


def test_scrambling_after_t0_changes_no_earlier_decision_or_choice():
    """Every arrival from t0 on given a random side, key and groups: each tuple that left memory
    (or was refused) before t0 left at the same time; the grouping was chosen before t0 (the
    category, at some refit), so the choice is among those decisions."""
    wl = lagged(4000, seed=4)
    groups = payload_groups(wl, "auto")
    t0 = int(np.median(wl.time))
    rng = np.random.default_rng(0)
    late = wl.time >= t0
    side, key, scrambled = wl.side.copy(), wl.key.copy(), groups.copy()
    side[late] = rng.integers(0, 2, late.sum())
    key[late] = rng.integers(0, int(wl.key.max()) + 1, late.sum())
    for c in range(groups.shape[1]):
        scrambled[late, c] = rng.integers(0, int(groups[:, c].max()) + 1, late.sum())
    other_wl = Workload(side=side, time=wl.time.copy(), key=key, window=wl.window, warmup=0)
    head = ~late
    _, op = feed(Workload(side=wl.side[head], time=wl.time[head], key=wl.key[head], window=wl.window, warmup=0), 40,
                 groups[head])
    full, _ = feed(wl, 40, groups)
    other, _ = feed(other_wl, 40, scrambled)
    early = {d for d in full if d[1] < t0}
    assert early and early == {d for d in other if d[1] < t0}
    assert op.group_picks[0, 2] > 0  # R ranked by the category at some refit before t0


def _arrays(lead: float):
    """A refit's arrays for two candidates of one bucket (no group: 1 group; a column: 2 groups)
    whose new counts the column's curves fit better than no group's by about ``lead`` nats."""
    hsc, hf = np.zeros(L.H_FIELDS, np.int64), np.zeros(L.HF_FIELDS)
    hsc[L.H_NB], hsc[L.H_NCAND], hsc[L.H_NG] = 1, 2, 2
    hsc[L.H_GOFF0:L.H_GOFF0 + 3] = [0, 1, 3]
    ev, ex = np.zeros((2, 3, 2, 1, Q_STATS), np.int64), np.zeros((2, 3, 2, 1, Q_STATS), np.int64)
    # group 0 of the column: 1 event in 10 steps; group 1: n events in 10 steps; no group: both
    n = 1
    while True:
        e_none, e_col = (1 + n) / 20, np.array([0.1, n / 10])
        gain = (1 * math.log(e_col[0]) - 1 + n * math.log(e_col[1]) - n) - ((1 + n) * math.log(e_none) - (1 + n))
        if gain >= lead:
            break
        n += 1
    ev[0, 1, 0, 0, 0], ev[0, 2, 0, 0, 0], ev[0, 0, 0, 0, 0] = 1, n, 1 + n
    ex[0, 1, 0, 0, 0], ex[0, 2, 0, 0, 0], ex[0, 0, 0, 0, 0] = 10, 10, 20
    ac = np.zeros((2, 3, 2, 1))
    ac[0, 0, 0, 0], ac[0, 1:, 0, 0] = e_none, e_col
    th = np.zeros((2, 2, 1))  # theta 0: the rates are the curves alone
    return hsc, hf, ev, ex, np.zeros_like(ev), np.zeros_like(ex), ac, th, gain


def test_the_pick_moves_only_with_a_lead_above_the_margin():
    """The prequential scores: the column leads no group by the log-likelihood of the new counts
    under each one's last curves; the side moves to it only once that lead exceeds MARGIN nats."""
    assert bin_beta(0, Q_STATS_OCTAVE) == 0.0
    for lead in (1.0, MARGIN + 1.0):
        hsc, hf, ev, ex, evl, exl, ac, th, gain = _arrays(lead)
        score(hsc, hf, ev, ex, evl, exl, ac, th)
        at = L.HF_ASCORE0
        assert hf[at + 1] - hf[at] == pytest.approx(gain)
        assert hsc[L.H_PICK0] == (1 if gain > MARGIN else 0) and hsc[L.H_PICK0 + 1] == 0
        assert (evl == ev).all() and (exl == ex).all()  # the next score reads the counts after these


def test_bad_auto_input_names_group(tmp_path):
    wl = lagged(300)
    with pytest.raises(ShedError, match="give auto alone") as info:
        simulate(wl, "hazard", 10, group="auto,category")
    assert info.value.param == "group"
    with pytest.raises(ShedError, match="does not combine with tuning forget") as info:
        simulate(wl, "hazard", 10, group="auto", tuning="forget=0.5")
    assert info.value.param == "group"
    bare = Workload(side=wl.side, time=wl.time, key=wl.key, window=wl.window, warmup=0)
    with pytest.raises(ShedError, match="needs payload columns") as info:
        simulate(bare, "hazard", 10, group="auto")
    assert info.value.param == "group"
    flat = Workload(side=wl.side, time=wl.time, key=wl.key, window=wl.window, warmup=0,
                    meta={"payload": pd.DataFrame({"one": np.zeros(len(wl), np.int64)})})
    with pytest.raises(ShedError, match="found no payload column with 2 to") as info:
        simulate(flat, "hazard", 10, group="auto")
    assert info.value.param == "group"
    from shedding.streaming.spec import JoinSpec

    for batch in ("auto", "AUTO"):
        with pytest.raises(ShedError, match="is for the batch simulator only") as info:
            JoinSpec(30, 20, "hazard", group=batch)
        assert info.value.param == "group"
    assert JoinSpec(30, 20, "hazard", group="dest,History").payload_group == ("dest",)  # each shard keeps history
    op = JoinOperator(wl.window, 10, "hazard", estimator=OnlineEstimator())
    with pytest.raises(ShedError, match="candidate ids must be dense ids"):
        op.feed(wl.side, wl.time, wl.key, np.full((len(wl), 2), 5000))


def test_auto_ids_are_packed_as_given_and_one_column_codes_go_through_the_table(monkeypatch):
    """The table of payload codes (shedding.online.aged) maps one column's raw values to ids; auto's
    candidate ids are dense already and are packed as given, never through it: each candidate's
    group in a packed code is the id it was given, feed after feed. One column of codes (the
    table) and the same column shifted beyond it (the binary search) get the same ids; either way
    the counters keep room to list every memo row of the most groups any candidate has."""
    rng = np.random.default_rng(5)
    ids = np.c_[rng.integers(0, 7, 400), rng.integers(0, 300, 400)]
    auto = AgedState(HAZARD, 50, (10, 10), False, HazardTuning())
    consulted = []
    monkeypatch.setattr(AgedState, "_table", lambda self, raw: consulted.append(raw))
    codes = np.concatenate([auto.group_ids(ids[:150], 150), auto.group_ids(ids[150:], 250)])
    monkeypatch.undo()
    assert not consulted
    assert [candidate_group(c, 0) for c in codes] == [0] * 400  # the first candidate: no group
    for a in (1, 2):
        assert [candidate_group(c, a) for c in codes] == ids[:, a - 1].tolist()
    ng = int(ids[:, 1].max()) + 1
    assert auto.hsc[L.H_NG] == ng and len(auto.hsc) == L.H_FIELDS + 4 * ng * Q_PRIO
    col = ids[:, 1]
    got = {}
    for values in (col, col + 2**40):
        one = AgedState(HAZARD, 50, (10, 10), False, HazardTuning())
        assert (one._table(values) is None) == (values is not col)
        got[values is col] = np.concatenate([one.group_ids(values[:150], 150), one.group_ids(values[150:], 250)])
        assert len(one.hsc) == L.H_FIELDS + 4 * len(np.unique(col)) * Q_PRIO
    assert got[True].tolist() == got[False].tolist()
    assert len(set(zip(col.tolist(), got[True].tolist()))) == len(np.unique(col)) == got[True].max() + 1
