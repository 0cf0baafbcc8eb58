"""The one-sided time range on the flights: each departure r(a) joined to the arrivals s(b) of the
same aircraft with 0 <= b - a <= 719 (an arrival within 12 hours after the departure), against the
symmetric window w = 720 that the papers' join would use, at one memory M.

With the range no S tuple is ever stored (it can only meet departures already there), so the
default fixed split gives all of M to the departures (M_R = M, M_S = 0, whose OPT is OPTV's). The
script prints EXACT, OPT and OPTV, and every online policy's output and its share of OPT (of OPTV
for the variable-split policies), for the range and for the window; then, for the range, HAZARD
with the payload group ``--group`` (default dest: a departure's destination sets when its own
arrival comes).

    .venv/bin/python benchmarks/bench_range_flights.py [--months 3] [--memory 100] [--key tailnum]
        [--policies rand,prob,life,probv,lifev,age,agev,hazard,hazardv] [--group dest]
"""

from __future__ import annotations

import argparse
import os
import time

from shedding.datasets.flights import flights_workload
from shedding.offline import solve_opt
from shedding.online import simulate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--months", default="3", help="a month, or FIRST-LAST")
    ap.add_argument("--memory", type=int, default=100)
    ap.add_argument("--key", default="tailnum")
    ap.add_argument("--range", default="0,719", dest="join_range")
    ap.add_argument("--policies", default="rand,prob,life,probv,lifev,age,agev,hazard,hazardv")
    ap.add_argument("--group", default="dest", help="HAZARD's payload group for the last table")
    args = ap.parse_args()
    first, _, last = args.months.partition("-")
    months = (int(first), int(last)) if last else int(first)
    lo, hi = (int(x) for x in args.join_range.split(","))
    base = flights_workload(months, key=args.key, window=720)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {base.name}: {base.n_r:,} departures, "
          f"{base.n_s:,} arrivals; M = {args.memory}")
    for label, wl in ((f"range {lo}..{hi}", base.with_params(range=(lo, hi))), ("window w = 720", base)):
        started = time.perf_counter()
        opt = solve_opt(wl, args.memory).outputs
        optv = solve_opt(wl, args.memory, allocation="variable").outputs
        exact = simulate(wl, "exact", args.memory).outputs
        print(f"\n{label}: EXACT {exact:,}, OPT {opt:,}, OPTV {optv:,} ({time.perf_counter() - started:.1f} s)")
        print(f"{'policy':9} {'outputs':>9} {'of EXACT':>9} {'of OPT(V)':>10}")
        for policy in args.policies.split(","):
            for estimator in ("online", "static"):
                res = simulate(wl, policy, args.memory, estimator=estimator)
                ref = optv if policy.endswith("v") else opt
                print(f"{policy:9} {res.outputs:>9,} {res.outputs / exact:>9.3f} {res.outputs / ref:>10.3f}  "
                      f"({estimator})")
    wl = base.with_params(range=(lo, hi))
    opt_run = solve_opt(wl, args.memory)
    print(f"\nrange {lo}..{hi}, the default split M_R = {opt_run.memory_r}, M_S = {opt_run.memory_s}: "
          f"OPT {opt_run.outputs:,}")
    res = simulate(wl, "hazard", args.memory, estimator="online", group=args.group)
    print(f"hazard    {res.outputs:>9,} {res.outputs / opt_run.outputs:>10.3f}  (online, group {args.group})")


if __name__ == "__main__":
    main()
