"""Bestmatch-join benchmark (figures in README, "Bestmatch joins"): MatWin, MatWin over the
eps-grid and nested loops on the paper's Figure 11 setting at a larger size: 2 x 100,000 tuples,
2 dimensions, uniform in [0, 1] (6 decimal places), eps_i = 0.1, the constrained left-outer BMJ.

Nested loops cost |R| x |S| tests whatever the data, and every r's result depends on r and S only,
so with ``--sample K`` it runs on K random rows of R against all of S and its time is scaled by
|R| / K (an estimate, printed as such); its pairs must equal MatWin's pairs of those rows, which
checks both. ``--sample 0`` runs nested loops on all of R. All algorithms run in one process, one
after the other, so the ratios are measured under the same load (the load average is printed).

Usage: .venv/bin/python benchmarks/bench_bestmatch.py [--n 100000] [--dims 2] [--eps 0.1] [--sample 2000]
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from shedding.bestmatch import bestmatch
from shedding.bestmatch.generator import synthetic_input
from shedding.bestmatch.values import BestmatchInput


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--dims", type=int, default=2)
    ap.add_argument("--eps", type=float, default=0.1)
    ap.add_argument("--dist", default="uniform")
    ap.add_argument("--sample", type=int, default=2000, help="rows of R for nested loops; 0 = all")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    data = synthetic_input(args.n, args.n, args.dims, args.dist, args.eps, 6, args.seed)
    tiny = synthetic_input(50, 50, args.dims, args.dist, args.eps, 6, args.seed)
    for algorithm in ("nested", "matwin", "matwin-ego"):  # compile (or load the cache) outside the timings
        bestmatch(tiny, "constrained", algorithm)
    rows = {}
    print(json.dumps({"load_average_before": os.getloadavg(), "n": args.n, "dims": args.dims, "eps": args.eps}))
    for algorithm in ("matwin", "matwin-ego"):
        res = bestmatch(data, "constrained", algorithm)
        rows[algorithm] = res
        print(json.dumps({"algorithm": algorithm, "seconds": round(res.seconds, 2), "pairs": len(res.pairs),
                          "tested": res.tested, "peak_window_tuples": res.stats.peak_memory,
                          "load_average": os.getloadavg()}), flush=True)
    assert np.array_equal(rows["matwin"].pairs, rows["matwin-ego"].pairs), "MatWin and MatWin/EGO differ"
    sample = np.arange(args.n) if args.sample <= 0 or args.sample >= args.n else \
        np.sort(np.random.default_rng(args.seed).choice(args.n, args.sample, replace=False))
    part = BestmatchInput(data.r[sample], data.s, data.eps, data.scale, data.attrs)
    started = time.perf_counter()
    nested = bestmatch(part, "constrained", "nested")
    seconds = time.perf_counter() - started
    estimate = seconds * args.n / len(sample)
    mine = rows["matwin"].pairs[np.isin(rows["matwin"].pairs[:, 0], sample)]
    assert np.array_equal(np.column_stack([sample[nested.pairs[:, 0]], nested.pairs[:, 1]]), mine), \
        "nested loops and MatWin differ on the sampled rows"
    print(json.dumps({"algorithm": "nested", "sampled_rows": int(len(sample)), "seconds_measured": round(seconds, 2),
                      "seconds" + ("" if len(sample) == args.n else "_estimated"): round(estimate, 1),
                      "tested": nested.tested, "load_average": os.getloadavg()}))
    print(json.dumps({"nested_over_matwin": round(estimate / rows["matwin"].seconds, 2),
                      "nested_over_matwin_ego": round(estimate / rows["matwin-ego"].seconds, 2),
                      "matwin_over_matwin_ego": round(rows["matwin"].seconds / rows["matwin-ego"].seconds, 2)}))


if __name__ == "__main__":
    main()
