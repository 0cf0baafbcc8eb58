"""How much of PROB's gap to OPT can any online policy close on the age-based model?  The
information-relaxation bound of :mod:`shedding.offline.agebound` against OPT, PROB and HAZARD.

On each setting of the beyond-i.i.d. study's age-based model (w = 400, 3,000 steps, lag normal with
mean 100 and spread 5 / 20 / 50, background share 0 / 0.25 / 0.5; unique or colliding keys) and
each seed, it runs OPT, PROB and HAZARD (online estimator, as the study) and the bound with each
relaxation (G reveals the labels, or the lags), then prints per setting the means over the seeds
and the shares of PROB's gap to OPT that HAZARD closes and that the smaller bound leaves to *any*
online policy, (bound - PROB) / (OPT - PROB): the bounds are on the expected output, so only means
over seeds compare.

    python benchmarks/bound_age.py --seeds 0,1,2,3 --keys colliding
"""

from __future__ import annotations

import argparse
import numpy as np

from shedding.datasets.age import age_workload
from shedding.offline.opt import solve_opt
from shedding.offline.agebound import age_bound
from shedding.run import run_policy

KEYS = {"unique": (0.0, 10**6), "colliding": (0.5, 1000)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=lambda s: [int(x) for x in s.split(",")], default=[0, 1, 2, 3])
    parser.add_argument("--memory", type=int, default=100)
    parser.add_argument("--keys", choices=sorted(KEYS), default="colliding")
    parser.add_argument("--spreads", type=lambda s: [float(x) for x in s.split(",")], default=[5, 20, 50])
    parser.add_argument("--backgrounds", type=lambda s: [float(x) for x in s.split(",")], default=[0.0, 0.25, 0.5])
    args = parser.parse_args()
    skew, domain = KEYS[args.keys]
    m = args.memory
    print(f"age model, {args.keys} keys, M = {m}, seeds {args.seeds}: means over the seeds", flush=True)
    print("spread background      OPT     PROB   HAZARD  bound: labels     lags   HAZARD closes"
          "   any online policy closes at most", flush=True)
    for spread in args.spreads:
        for background in args.backgrounds:
            rows = []
            for seed in args.seeds:
                wl = age_workload(length=3000, lag_spread=spread, background=background, skew=skew, domain=domain,
                                  seed=seed)
                rows.append((solve_opt(wl, m).outputs, run_policy(wl, "prob", m, estimator="online").outputs,
                             run_policy(wl, "hazard", m, estimator="online").outputs,
                             *(age_bound(wl, m, reveal=reveal) for reveal in ("labels", "lags"))))
            opt, prob, hazard, *bounds = np.mean(rows, axis=0)
            gap = opt - prob
            print(f"{spread:6g} {background:10.2f} {opt:8.1f} {prob:8.1f} {hazard:8.1f}"
                  f" {bounds[0]:14.1f} {bounds[1]:8.1f}"
                  f" {(hazard - prob) / gap:15.1%} {(min(bounds) - prob) / gap:34.1%}", flush=True)


if __name__ == "__main__":
    main()
