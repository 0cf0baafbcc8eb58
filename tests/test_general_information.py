"""The prototype index policy of benchmarks/general_information.py keeps the invariants of every
policy (docs/semantics.md): its output is a subset of EXACT's pairs, never above OPT, and equal to
EXACT when memory holds every live tuple (2w - 2 with one tuple per stream per step), for each
state it may use, learned online, fitted on another seed, or told by an oracle."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "benchmarks"))

import general_information as gi  # noqa: E402
from bench_general import auctions, requests  # noqa: E402

from shedding.exact import exact_count, exact_memory, exact_pairs  # noqa: E402
from shedding.model import Workload  # noqa: E402
from shedding.offline.opt import solve_opt  # noqa: E402


def _auctions(seed: int) -> Workload:
    return auctions(steps=300, window=30, seed=seed)


def _requests(seed: int) -> Workload:
    return requests(steps=300, window=40, latency=2.0, timeout=20, seed=seed)


def _durations(wl: Workload, seed: int) -> np.ndarray:
    length = gi.AuctionOracle(seed, steps=300).length
    return np.minimum(np.log2(length[wl.key]).astype(np.int64), gi.DURATIONS - 1)


def _rankers(name: str, seed: int) -> dict[str, gi.Ranker]:
    make = _auctions if name == "auctions" else _requests
    rankers: dict[str, gi.Ranker] = {f"{st}/online": gi.Learned(st) for st in (*gi.LEARNED, *gi.WIDENED)}
    rankers.update({f"{st}@{form}/online": gi.Learned(st, form=form)
                    for st in ("hazard", "clast", "clast4") for form in gi.FORMS})
    rankers["last/known"] = gi.Learned("last", gi.known_tables(make, seed + 1, "last"))
    if name == "auctions":
        rankers.update({f"{st}/online": gi.Learned(st, ng=gi.DURATIONS) for st in gi.GROUPED})
        rankers["oracle"] = gi.AuctionOracle(seed, steps=300)
        rankers["oracle-duration"] = gi.AuctionOracle(seed, steps=300, knows_bids=False)
    else:
        rankers["oracle"] = gi.RequestOracle(40, latency=2.0, timeout=20)
    return rankers


@pytest.mark.parametrize("name", ["auctions", "requests"])
@pytest.mark.parametrize("seed", [0, 1])
def test_a_subset_of_exact_never_above_opt_exact_with_all_memory(name: str, seed: int) -> None:
    wl = (_auctions if name == "auctions" else _requests)(seed)
    exact = {tuple(p) for p in exact_pairs(wl).tolist()}
    need = exact_memory(wl)
    everything = 2 * max(need.r, need.s)
    for memory in (4, 12, everything):
        opt = solve_opt(wl, memory, allocation="fixed").outputs
        for label, ranker in _rankers(name, seed).items():
            group = _durations(wl, seed) if label.startswith(gi.GROUPED) else None
            got = gi.run_index(wl, memory, ranker, group)
            assert len(set(got.pairs)) == len(got.pairs) == got.outputs, label
            assert set(got.pairs) <= exact, label
            assert got.outputs <= opt, (label, memory, got.outputs, opt)
            if memory == everything:
                assert got.outputs == len(exact), label


@pytest.mark.parametrize("state", [*gi.LEARNED, *gi.WIDENED, "clast@chain", "clast@carry", "hazard@rates", "clast@hazard"])
def test_exact_with_2w_minus_2_on_one_tuple_per_stream_and_step(state: str) -> None:
    rng = np.random.default_rng(5)
    w = 8
    wl = Workload.synchronous(rng.integers(0, 4, 120), rng.integers(0, 4, 120), window=w)
    name, _, form = state.partition("@")
    assert gi.run_index(wl, 2 * w - 2, gi.Learned(name, form=form or "table")).outputs == exact_count(wl)
    smaller = gi.run_index(wl, w, gi.Learned(name, form=form or "table"))
    assert smaller.outputs <= solve_opt(wl, w).outputs


def test_the_index_is_the_best_mean_rate_over_a_horizon() -> None:
    assert gi.best_rate(np.array([0.0, 0.0, 3.0])) == pytest.approx(1.0)
    assert gi.best_rate(np.array([2.0, 0.0, 0.0])) == pytest.approx(2.0)
    assert gi.best_rate(np.array([])) == 0.0


def test_the_request_oracle_law_is_a_distribution() -> None:
    oracle = gi.RequestOracle(400)
    assert (oracle.table >= 0).all()
    # the last copy has no retry after it: past its timeout nothing can come
    assert (oracle.table[2, 150:] == 0).all()
    assert (oracle.table[0, 150:300] > 0).all()


def test_the_request_bound_is_above_every_online_policy_on_average_and_near_exact_with_all_memory() -> None:
    """The bound is on the expected output: over ten seeds, the law's oracle index and the learned
    states stay below its mean; with memory for everything it is about EXACT's mean."""
    law = gi.RequestOracle(40, latency=2.0, timeout=20)
    seeds = range(10)
    wls = [_requests(seed) for seed in seeds]
    for memory in (4, 8):
        bound = np.mean([gi.request_bound(wl, memory, law) for wl in wls])
        for ranker in (lambda: gi.RequestOracle(40, latency=2.0, timeout=20), lambda: gi.Learned("retry")):
            got = np.mean([gi.run_index(wl, memory, ranker()).outputs for wl in wls])
            assert got <= bound, (memory, got, bound)
    everything = np.mean([gi.request_bound(wl, 10_000, law) for wl in wls])
    exact = np.mean([exact_count(wl) for wl in wls])
    assert abs(everything - exact) <= 0.05 * exact, (everything, exact)
    assert gi.request_bound(wls[0], 4, law) <= gi.request_bound(wls[0], 8, law) <= gi.request_bound(wls[0], 10_000, law)


def test_the_chain_over_matched_yet_is_hazards_index_with_the_earlier_matched_counted() -> None:
    """With two states (matched yet) every partner leads to state 1, so the chain's index is the
    carried rate index; with the same rate everywhere every index is that rate."""
    rng = np.random.default_rng(3)
    nb = 6
    steps = rng.integers(1, 9, nb).astype(float)
    mean = rng.choice([0.0, 1.0], (2, nb, nb)) * rng.uniform(0, 3, (2, nb, nb))
    assert np.allclose(gi.chain_index(mean, steps, "hazard"), gi.rate_index(mean, steps, "hazard", carry=True))
    flat = np.zeros((1 + nb, nb, nb))
    flat[:, np.arange(nb), np.arange(nb)] = 0.25 * steps
    for index in (gi.chain_index(flat, steps, "clast"), gi.rate_index(flat, steps, "clast", carry=True)):
        assert index == pytest.approx(0.25)
    assert gi.rate_index(flat, steps, "clast", carry=False)[1:] == pytest.approx(0.25)
    # HAZARD's formula counts no partners of a tuple matched in an earlier bucket: an unmatched
    # tuple that meets its first partner early and then many is ranked below the carried index
    early = np.zeros((2, nb, nb))
    early[1, np.arange(nb), np.arange(nb)] = steps
    early[0, 0, 0] = 0.5 * steps[0]
    carried, hazards = gi.rate_index(early, steps, "hazard", True), gi.rate_index(early, steps, "hazard", False)
    assert carried[0, 0] > hazards[0, 0] + 0.05
    assert carried[1] == pytest.approx(hazards[1])


def test_the_exposure_form_counts_every_observed_step_once_and_every_partner_in_the_state_before_it() -> None:
    """HAZARD's way of counting (``@hazard``): per fully observed bucket one bucket of exposure
    split over the states the entry spends it in, and each partner an event of the state before it."""
    edges = np.array([0, 4, 10, 20, 40])
    sh = gi.Shadow(edges, gi.chain("clast"), 1, form="hazard")
    sh.add(0, [2, 3, 12, 30], 0, 0, 25)  # observed through age 25: buckets (0, 4], (4, 10], (10, 20]
    root, clast = sh.n[0][0], sh.n[0][2]
    assert np.diag(root[0]).tolist() == [1.0, 1.0, 1.0, 0.0]
    assert np.diag(sh.ev[0][0][0]).tolist() == [2.0, 0.0, 1.0, 0.0]
    # clast: unmatched (z = 0) for ages 0..2 of bucket 0; after the partner at 2 its state is
    # 1 + bucket(2) = 1 for 2..3, and stays 1 after the one at 3 (the same bucket)
    assert clast[0, 0, 0] == pytest.approx(2 / 4) and clast[1, 0, 0] == pytest.approx(2 / 4)
    assert sh.ev[0][2][0, 0, 0] == 1 and sh.ev[0][2][1, 0, 0] == 1
    assert clast[1, 1, 1] == 1.0 and clast[1, 2, 2] == pytest.approx(2 / 10) and clast[3, 2, 2] == pytest.approx(8 / 10)
    assert sh.ev[0][2][1, 2, 2] == 1
