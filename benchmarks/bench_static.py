"""Static k-truncation: the fast exact algorithm against the paper's DP (Das et al. 2003, §3.1.1).

c random components K(m, n) with m and n drawn independently from a Zipf law (default exponent
1.6, capped at 2000), retain k tuples. Both methods run several times in this process; the medians,
their ratio and the agreement of the two optima are printed.

    .venv/bin/python benchmarks/bench_static.py [--components 2000] [--keep 20000] [--reps 5] [--exponent 1.6]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shedding.offline.static import Components, best_keep_dp, best_keep_fast  # noqa: E402
from timing import median_seconds  # noqa: E402


def zipf_components(count: int, exponent: float, cap: int, seed: int) -> Components:
    """Component shapes whose sides follow a Zipf law (many small, a few very large)."""
    rng = np.random.default_rng(seed)
    m = np.minimum(rng.zipf(exponent, count), cap)
    n = np.minimum(rng.zipf(exponent, count), cap)
    return Components(m, n, np.arange(count))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--components", type=int, default=2000)
    parser.add_argument("--keep", type=int, default=20_000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--exponent", type=float, default=1.6, help="Zipf exponent of m and n (> 1)")
    args = parser.parse_args()

    comps = zipf_components(args.components, args.exponent, 2000, args.seed)
    shapes = len({(min(a, b), max(a, b)) for a, b, _ in comps})
    print(f"c = {len(comps)} components ({shapes} distinct shapes), {comps.nodes} tuples, "
          f"join output {comps.output}, keep k = {args.keep}")
    fast_s, fast = median_seconds(lambda: best_keep_fast(comps, args.keep), args.reps)
    dp_s, dp = median_seconds(lambda: best_keep_dp(comps, args.keep), args.reps)
    print(f"fast (shape knapsack): median {fast_s:8.3f} s over {args.reps} runs")
    print(f"paper DP (O(c k^2)):   median {dp_s:8.3f} s over {args.reps} runs")
    print(f"speed-up DP / fast:    {dp_s / fast_s:8.1f} x")
    print(f"optimum: fast {fast.output}, DP {dp.output}, "
          f"retained {fast.output / comps.output:.4%} of the join -> {'AGREE' if fast.output == dp.output else 'DISAGREE'}")
    if fast.output != dp.output or fast.kept != dp.kept:
        raise SystemExit("fast and DP disagree")


if __name__ == "__main__":
    main()
