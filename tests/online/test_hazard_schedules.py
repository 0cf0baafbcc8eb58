"""HAZARD's schedules are a fixed function of its definition: on random age-shaped streams with
payload groups, time ranges, forgetting, both splits, feeds in pieces and snapshots, every departure (tuple,
time, admitted) and output count must equal those recorded from the per-cell index of
shedding.online.hazard before its priorities were computed a row at a time (and its memo kept
across refits by a stamp). The first ``FIT_AT_EVERY_REFIT`` cases fit HAZARD's model at every
refit (``group_fit_every = refit_every``, as every refit did before the fits by groups had their
own schedule) and were recorded before that schedule existed; the others, recorded with it, fit
by groups at most four refits' arrivals apart. A change of HAZARD's speed must leave them bit for bit; only
a change of its results, made on purpose, records them again with
``python tests/online/test_hazard_schedules.py --record``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from shedding.online import JoinOperator, OnlineEstimator
from shedding.online.tuning import HazardTuning

EXPECTED = Path(__file__).parent / "hazard_schedules.json"
CASES, FIT_AT_EVERY_REFIT = 32, 24


def stream(rng: np.random.Generator, window: int, groups: int) -> tuple[np.ndarray, ...]:
    """R tuples whose S partners come at a lag that depends on their payload group (an age shape
    per group), plus i.i.d. noise on both sides: (side, time, key, group) in time order."""
    n = int(rng.integers(600, 1500))
    steps = int(rng.integers(n // 4, n))
    keys = int(rng.integers(5, 120))
    rt = rng.integers(0, steps, n)
    rk = rng.integers(0, keys, n)
    rg = rng.integers(0, groups, n)
    base = int(rng.integers(1, max(window // 2, 2)))
    lag = np.minimum(base + (rg % 5) * max(window // 10, 1) + rng.integers(0, 3, n), window - 1)
    hit = rng.random(n) < 0.6
    st, sk, sg = rt[hit] + lag[hit], rk[hit], rg[hit]
    noise = int(rng.integers(0, n // 2))
    side = np.concatenate([np.zeros(n, np.int64), np.ones(hit.sum(), np.int64), rng.integers(0, 2, noise)])
    time = np.concatenate([rt, st, rng.integers(0, steps, noise)])
    key = np.concatenate([rk, sk, rng.integers(0, keys, noise)])
    group = np.concatenate([rg, sg, rng.integers(0, groups, noise)])
    order = np.lexsort((side, time))
    return side[order], time[order], key[order], group[order]


def case(seed: int) -> dict:
    """One random setting, its schedule's digest and output count."""
    rng = np.random.default_rng(seed)
    window = int(rng.integers(8, 200))
    grouped = bool(rng.random() < 0.75)
    side, time, key, group = stream(rng, window, int(rng.integers(1, 40)))
    lo = int(rng.integers(-window + 1, 1))
    ranged = (lo, int(rng.integers(max(lo, 0), window))) if rng.random() < 0.3 else None
    tuning = HazardTuning(first=int(rng.integers(1, 9)), ratio=float(rng.choice([1.2, 1.3, 1.6])),
                          shadow=int(rng.choice([16, 64, 256])), refit_first=int(rng.choice([4, 16, 64])),
                          refit_every=int(rng.choice([64, 256, 4096])), test=bool(rng.random() < 0.4),
                          guard=bool(rng.random() < 0.5), forget=float(rng.choice([0.0, 0.0, 0.5])))
    tuning = dataclasses.replace(tuning, group_fit_every=tuning.refit_every * (1 if seed < FIT_AT_EVERY_REFIT else 4))
    policy = str(rng.choice(["hazard", "hazardv"]))
    memory = int(rng.integers(2, 80))
    op = JoinOperator(window, memory, policy, estimator=OnlineEstimator(), record=True, tuning=tuning, range=ranged)
    cuts = np.unique(np.concatenate([[0, len(time)], np.searchsorted(time, rng.integers(0, time[-1] + 1, 3))]))
    outputs, dep = 0, []
    for a, b in zip(cuts[:-1], cuts[1:]):
        if a and rng.random() < 0.5:  # a snapshot carries the state on, memo included
            op = JoinOperator.restore(op.snapshot())
        fed = op.feed(side[a:b], time[a:b], key[a:b], group[a:b] if grouped else None)
        outputs += fed.outputs
        dep.append(fed.departures)
    dep.append(op.finish())
    rows = np.concatenate(dep).astype(np.int64)
    rows = rows[np.lexsort(rows.T[::-1])]
    return {"setting": f"{policy} w={window} M={memory} range={ranged} grouped={grouped} {tuning.spec}",
            "outputs": int(outputs), "departures": len(rows), "guard": op.guard_choice,
            "digest": hashlib.sha256(rows.tobytes()).hexdigest()[:16]}


@pytest.mark.parametrize("seed", range(CASES))
def test_the_schedule_is_unchanged(seed):
    assert case(seed) == json.loads(EXPECTED.read_text())[str(seed)]


@pytest.mark.parametrize("seed", [3, 10])
def test_group_values_beyond_a_table_rank_as_codes(seed):
    """Payload codes (small non-negative integers) are looked up in a table, other values by a
    binary search (shedding.online.aged): both give the groups the same ids, so the same schedule,
    fed whole or in pieces."""
    rng = np.random.default_rng(seed)
    side, time, key, group = stream(rng, 60, 12)
    runs = set()
    for values in (group, group * 1_000_003 - 7, group + 2**40):
        for cuts in ([0, len(time)], [0, int(np.searchsorted(time, time[len(time) // 3])), len(time)]):
            op = JoinOperator(60, 20, "hazard", record=True, tuning=HazardTuning(refit_first=4, test=False))
            dep = [op.feed(side[a:b], time[a:b], key[a:b], values[a:b]).departures for a, b in zip(cuts, cuts[1:])]
            runs.add(np.concatenate([*dep, op.finish()]).tobytes())
    assert len(runs) == 1


def test_the_cases_rank_by_age():
    """The recorded cases reach HAZARD's shaped priorities (not only PROB's order)."""
    chose = [c["guard"].split()[1:4:2] for c in json.loads(EXPECTED.read_text()).values()]
    shaped = [r for r, s in chose if not r.startswith("0/") or not s.startswith("0/")]
    assert len(shaped) >= CASES // 2


if __name__ == "__main__" and "--record" in sys.argv:
    from shedding.atomic import write_json

    write_json(EXPECTED, {str(seed): case(seed) for seed in range(CASES)}, indent=1)
    print(f"recorded {CASES} cases in {EXPECTED}")
