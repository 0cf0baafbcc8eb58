"""Band-join EXACT benchmark (figures in README, "Band joins").

Two tuple-synchronous streams of ``--length`` tuples each (default 1,000,000), attribute values
uniform with three decimals in [0, 1000), window w, band |r.a - s.a| <= eps. Times, median of
``--repeats`` runs after one compiling run:

1. building the band workload (exact scaling of the values and eps) and the index;
2. EXACT on one attribute (the index of value ranks and the Fenwick sweep);
3. EXACT on two attributes (scaling, the grid index and its scan);
4. the quadratic-in-window baseline (every tuple against every partner in its time window) on one
   attribute, which is what "not quadratic" is measured against.

5. ``--policies``: the shedding policies and OPT/OPTV on the paper's scale (Zipf 1.0, D = 50,
   2 x 5600 tuples, w = 400, M = 200) as band joins on the key with eps = 0, 1, 3: seconds and
   output ratio of each, and at eps = 0 the keyed engine's seconds beside the band kernel's.

Usage: .venv/bin/python benchmarks/bench_band.py [--length 1000000] [--window 1000] [--eps 0.5] [--policies]
"""

from __future__ import annotations

import argparse
import os

import numpy as np
from numba import njit

from timing import median_seconds

from shedding.band import BandIndex, BandWorkload, exact_count as band_exact_count
from shedding.model import Workload


@njit(cache=True)
def window_scan(side, time, value, eps, w, warmup):
    """Baseline: every tuple against all earlier tuples of its time window (O(N w))."""
    total = 0
    n = time.shape[0]
    for x in range(n):
        if time[x] < warmup:
            continue
        y = x - 1
        while y >= 0 and time[y] > time[x] - w:
            if side[y] != side[x] and abs(value[x] - value[y]) <= eps:
                total += 1
            y -= 1
        if side[x] == 1:  # same-batch R tuples after x in workload order do not exist (R first)
            pass
    return total


def policies(repeats: int) -> None:
    from shedding.band.opt import solve_opt as solve_band_opt
    from shedding.band.simulate import BandReference, simulate_band
    from shedding.datasets import zipf_workload
    from shedding.online import simulate

    wl = zipf_workload(1.0, 50, 5600, 0, "independent", 400, None)
    print(f"\n## band policies: Zipf 1.0, D = 50, 2 x 5600, w = 400, M = 200; median of {repeats}; "
          f"load average {os.getloadavg()[0]:.2f}\n")
    print("| eps | policy | ratio | seconds | keyed engine seconds (eps = 0) |")
    print("|---|---|---|---|---|")
    simulate_band(BandWorkload.on_key(wl, 0), "prob", 200)  # compile
    for eps in (0, 1, 3):
        bw = BandWorkload.on_key(wl, eps)
        ref = BandReference.of(bw)
        for name in ("prob", "life", "rand", "probv", "opt", "optv"):
            if name.startswith("opt"):
                sec, res = median_seconds(lambda: solve_band_opt(
                    bw, 200, allocation="variable" if name == "optv" else "fixed", reference=ref), repeats)
            else:
                sec, res = median_seconds(lambda: simulate_band(bw, name, 200, reference=ref), repeats)
            keyed = ""
            if eps == 0 and not name.startswith("opt"):
                keyed = f"{median_seconds(lambda: simulate(wl, name, 200), repeats)[0]:.3f}"
            print(f"| {eps} | {name.upper()} | {res.ratio:.3f} | {sec:.3f} | {keyed} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--length", type=int, default=1_000_000)
    ap.add_argument("--window", type=int, default=1000)
    ap.add_argument("--eps", default="0.5")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--policies", action="store_true", help="run only the policy benchmark (part 5)")
    args = ap.parse_args()
    if args.policies:
        policies(args.repeats)
        return
    rng = np.random.default_rng(0)
    n, w = args.length, args.window
    wl = Workload.synchronous(np.zeros(n, np.int64), np.zeros(n, np.int64), w)
    cols = [rng.integers(0, 1_000_000, 2 * n) / 1000 for _ in range(2)]
    print(f"## band EXACT: 2 x {n:,} tuples, w = {w}, eps = {args.eps}, values uniform in [0, 1000) "
          f"with 3 decimals; load average {os.getloadavg()[0]:.2f}\n")
    band_exact_count(BandWorkload.of(Workload.synchronous([0] * 50, [0] * 50, 5), [np.arange(100) / 10], "0.1"))
    build, bw1 = median_seconds(lambda: BandWorkload.of(wl, cols[:1], args.eps), args.repeats)
    index_s, _ = median_seconds(lambda: BandIndex(bw1).ranks, args.repeats)
    count1_s, c1 = median_seconds(lambda: band_exact_count(bw1), args.repeats)
    bw2 = BandWorkload.of(wl, cols, f"{args.eps},{args.eps}")
    both2_s, c2 = median_seconds(lambda: band_exact_count(bw2), args.repeats)
    v = bw1.values[:, 0]
    side = wl.side.astype(np.int64)
    window_scan(side[:10], wl.time[:10], v[:10], bw1.eps[0], w, wl.warmup)
    base_s, cb = median_seconds(lambda: window_scan(side, wl.time, v, bw1.eps[0], w, wl.warmup), 1)
    assert cb == c1, (cb, c1)
    print("| step | seconds | result |")
    print("|---|---|---|")
    print(f"| scale values + eps (1 attribute) | {build:.2f} | |")
    print(f"| EXACT, 1 attribute: index + Fenwick sweep | {count1_s:.2f} | {c1:,} pairs |")
    print(f"| of which: index (sort, range searches) | {index_s:.2f} | |")
    print(f"| EXACT, 1 attribute: scale + index + sweep | {build + count1_s:.2f} | |")
    print(f"| EXACT, 2 attributes (scale + index + scan) | {both2_s:.2f} | {c2:,} pairs |")
    print(f"| baseline O(N w) window scan, 1 attribute | {base_s:.2f} | {cb:,} pairs |")
    print(f"\nratio baseline / (index + Fenwick sweep): {base_s / count1_s:.1f}x; "
          f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
