"""How much of PROB's gap to OPT can a policy close on the age-based model with colliding keys if it
knows the model itself?  A probe, not a policy of the package.

On the age-based model (shedding.datasets.age: each R tuple's partner follows after a lag from a
known distribution, S also carries background traffic, keys Zipf(0.5) over 1,000 values) the
adaptive HAZARD closes 1-25% of PROB's gap to OPT against the issue's goal of two thirds. This
probe asks whether any policy we can describe does much better. KEYAGE knows the generator: the
lag distribution, the key probabilities, the rates. It tracks, per key, the R tuples whose partner
has not come yet (an S arrival of the key is taken as the partner of the waiting R tuple for which
that lag is most likely), and ranks

* an S tuple of key k by the R arrivals of k to come, ``rate`` P_R(k) per step (R is i.i.d.);
* an R tuple of key k by the best mean rate, over horizons up to the end of its window, of the S
  arrivals of k to come: background ``rate_bg`` P_bg(k) per step plus, for each waiting R tuple
  of k (itself included), its partner's lag distribution conditioned on the lag not having
  passed. Unlike HAZARD, it sees that the partners of *other* R tuples of the same key are due.

PROB and HAZARD run with the online estimator, as in the study. KEYAGE runs in the test suite's
reference join (tests/reference.py, written from the join semantics,
with its per-step ``valuer`` hook), whose PROB equals the compiled kernel's tuple for tuple.

    python benchmarks/probe_age_keys.py --seeds 0,1
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from reference import reference_run  # noqa: E402

from shedding.datasets.age import age_workload  # noqa: E402
from shedding.datasets.zipf import s_value_map, zipf_probabilities  # noqa: E402
from shedding.offline.opt import solve_opt  # noqa: E402
from shedding.run import run_policy  # noqa: E402


def keyage_valuer(wl):
    """The reference join's valuer for KEYAGE on the age workload ``wl`` (module docstring)."""
    meta, w = wl.meta, wl.window
    pmf = np.asarray(meta["lag_pmf"], dtype=np.float64)
    cdf = np.cumsum(pmf)
    domain = int(meta["domain"])
    probs = zipf_probabilities(meta["skew"], domain)
    p_bg = np.zeros(domain)
    p_bg[s_value_map(domain, meta["correlation"], int(meta["seed"]))] = probs
    rate = float(meta["rate"])
    rate_bg = rate * float(meta["partner"]) * float(meta["background"]) / (1.0 - float(meta["background"]))
    side, time, key = wl.side, wl.time, wl.key
    waiting: dict[int, list[int]] = defaultdict(list)  # key -> arrival times of R tuples still waiting

    def valuer(t, batch, counts, totals):
        for x in batch:
            if side[x] == 0:
                waiting[int(key[x])].append(t)
        for x in batch:
            lst = waiting.get(int(key[x]))
            if side[x] == 1 and lst:
                ages = t - np.array(lst)
                like = np.where((ages >= 1) & (ages < w), pmf[np.clip(ages, 0, w - 1)], 0.0)
                if like.max() > 0:
                    lst.pop(int(np.argmax(like)))
        rates: dict[int, np.ndarray] = {}

        def s_rate(k: int) -> np.ndarray:  # cumulative expected S arrivals of k at t+1 .. t+w-1
            if k not in rates:
                lam = np.full(w - 1, rate_bg * p_bg[k])
                for tr in waiting.get(k, ()):
                    age = t - tr
                    alive = 1.0 - cdf[age] if age < w - 1 else 0.0
                    if alive > 1e-12:
                        lags = np.arange(age + 1, min(age + w, w))
                        lam[: len(lags)] += pmf[lags] / alive
                rates[k] = np.cumsum(lam)
            return rates[k]

        def value(x):
            if side[x] == 1:
                return rate * probs[key[x]]
            life = int(time[x]) + w - 1 - t  # steps it can still join
            if life <= 0:
                return 0.0
            return float(np.max(s_rate(int(key[x]))[:life] / np.arange(1, life + 1)))

        return value

    return valuer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=lambda s: [int(x) for x in s.split(",")], default=[0, 1])
    parser.add_argument("--memory", type=int, default=100)
    args = parser.parse_args()
    m = args.memory
    print("seed spread background   OPT   PROB HAZARD KEYAGE  closed: HAZARD KEYAGE  KEYAGE/OPT", flush=True)
    for seed in args.seeds:
        for spread in (5, 20, 50):
            for background in (0.0, 0.25, 0.5):
                wl = age_workload(length=3000, lag_spread=spread, background=background, skew=0.5, domain=1000,
                                  seed=seed)
                opt = solve_opt(wl, m).outputs
                prob = run_policy(wl, "prob", m, estimator="online").outputs
                hazard = run_policy(wl, "hazard", m, estimator="online").outputs
                keyage = reference_run(wl.side, wl.time, wl.key, wl.window, m // 2, m - m // 2, wl.warmup, "prob",
                                       False, estimator="online", valuer=keyage_valuer(wl))[0]
                gap = opt - prob
                print(f"{seed:4d} {spread:6d} {background:10.2f} {opt:5d} {prob:6d} {hazard:6d} {keyage:6d}"
                      f"  {(hazard - prob) / gap:14.2f} {(keyage - prob) / gap:6.2f}  {keyage / opt:10.3f}", flush=True)


if __name__ == "__main__":
    main()
