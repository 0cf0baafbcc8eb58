"""Learn DUAL's price from OPT on training seeds (issue 11): the multiple ``alpha`` of the fluid price.

For each training run (Zipf streams of the paper's §4 shape, seeds 1000-1002, never the evaluation
seeds 0-4 of the ``policies`` suite and bench_policies.py) OPT's schedule (Das, Gehrke, Riedewald
2003, §3.2) is read as a threshold policy: the partner probability p above which OPT admits a tuple
(the threshold with the fewest tuples on the wrong side, over the tuples arriving after the warmup).
That is OPT's price of a memory slot. Its ratio to the fluid price FLUID computes online (the p of the
class at which memory runs full, kernel._fluid_price) is one sample of alpha; DUAL uses the median.

    .venv/bin/python benchmarks/train_dual.py [--out benchmarks/train_dual.json]

The printed alphas go into shedding/online/policies.py (DUAL_ALPHA, DUAL_ALPHA_V).
"""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path

import numpy as np

from shedding import JoinOperator, zipf_workload
from shedding.offline import solve_opt
from shedding.online import StaticEstimator
from shedding.online import kernel as K

TRAIN_SEEDS = (1000, 1001, 1002)
GRID = {"skew": (0.5, 1.0, 1.5), "domain": (50, 200), "memory_factor": (0.25, 1.0)}
WINDOW, LENGTH = 400, 5600


def opt_price(p: np.ndarray, admitted: np.ndarray) -> float:
    """The threshold on p that best separates OPT's admitted tuples (above) from the rest (below)."""
    order = np.argsort(p, kind="stable")
    p, admitted = p[order], admitted[order]
    # errors if the threshold sits below position i: admitted below + not admitted at or above
    below = np.concatenate([[0], np.cumsum(admitted)])
    above_not = np.concatenate([np.cumsum((~admitted)[::-1])[::-1], [0]])
    i = int(np.argmin(below + above_not))
    return float(p[i - 1]) if i > 0 else 0.0


def fluid_price(wl, memory: int, variable: bool) -> float:
    """The fluid price FLUID ends the stream with (the kernel's own computation)."""
    op = JoinOperator(wl.window, memory, "fluidv" if variable else "fluid", warmup=wl.warmup,
                      estimator=StaticEstimator.from_workload(wl))
    op.feed(wl.side, wl.time, wl.key)
    return float(np.mean(op._fsc[[K.F_TH0, K.F_TH1]]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path(__file__).with_name("train_dual.json"))
    args = ap.parse_args()
    rows = []
    for (skew, domain, factor), seed in itertools.product(itertools.product(*GRID.values()), TRAIN_SEEDS):
        wl = zipf_workload(skew, domain, LENGTH, seed=seed, window=WINDOW)
        memory = int(round(factor * WINDOW))
        keys, counts_r, counts_s = wl.key_counts()
        k = np.searchsorted(keys, wl.key)
        p = np.where(wl.side == 0, counts_s[k] / counts_s.sum(), counts_r[k] / counts_r.sum())
        late = wl.time >= wl.warmup
        for variable in (False, True):
            opt = solve_opt(wl, memory, allocation="variable" if variable else "fixed")
            theta_opt = opt_price(p[late], opt.schedule.admitted[late])
            theta_fluid = fluid_price(wl, memory, variable)
            alpha = theta_opt / theta_fluid if theta_fluid > 0 else float("nan")
            rows.append({"skew": skew, "domain": domain, "memory": memory, "seed": seed, "variable": variable,
                         "theta_opt": theta_opt, "theta_fluid": theta_fluid, "alpha": alpha})
            print(json.dumps(rows[-1]))
    alphas = {v: float(np.nanmedian([r["alpha"] for r in rows if r["variable"] == v])) for v in (False, True)}
    print(f"DUAL_ALPHA = {alphas[False]:.3f}, DUAL_ALPHA_V = {alphas[True]:.3f} (median over "
          f"{len(rows) // 2} training runs each, seeds {TRAIN_SEEDS})")
    args.out.write_text(json.dumps({"train_seeds": TRAIN_SEEDS, "grid": GRID, "window": WINDOW, "length": LENGTH,
                                    "alpha": alphas[False], "alpha_v": alphas[True], "runs": rows}, indent=1))


if __name__ == "__main__":
    main()
