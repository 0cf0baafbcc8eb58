"""Benchmark the bounds on OPT (issue 14, docs/bounds.md) against the exact OPT where both run.

For each workload: the exact OPT (`auto` network, ssp solver) when it fits in ``--exact-upto``
tuples per stream, and ``bound_opt``: lower and upper bound, gap, upper / OPT, lower / OPT, and
the seconds of each. Workloads: Zipf(1), domain 50, w = 400, M = 400 at several N; and, with
``--weather R S`` (NDP files from make_ndp.py, read once by Spark and cached) or ``--workload``
(a CSV/Parquet workload file), prefixes of that stream and the whole of it at w = 5000, M = 2500.

    .venv/bin/python benchmarks/bench_opt_bounds.py [--zipf 20000,100000] [--weather R S]
        [--workload month.parquet] [--prefixes 50000,100000] [--exact-upto 200000]

Prints wall and CPU seconds (all threads) and the load average: the machine may be shared, and
its jobs paused and resumed, so CPU seconds are the steadier figure.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shedding.datasets import zipf_workload  # noqa: E402
from shedding.model import Workload  # noqa: E402
from shedding.offline import bound_opt, solve_opt  # noqa: E402


def prefix(wl: Workload, n: int) -> Workload:
    """The tuples of the first ``n`` arrival times' worth of each stream (by time rank)."""
    keep = wl.time < wl.time[min(2 * n, len(wl)) - 1] if 2 * n < len(wl) else slice(None)
    return Workload(wl.side[keep], wl.time[keep], wl.key[keep], wl.window, wl.warmup, wl.name)


def row(name: str, wl: Workload, memory: int, allocation: str, exact_upto: int) -> None:
    t, c = time.perf_counter(), time.process_time()
    b = bound_opt(wl, memory, allocation=allocation)
    tb, cb = time.perf_counter() - t, time.process_time() - c
    opt, to = None, None
    if len(wl) // 2 <= exact_upto:
        t, c = time.perf_counter(), time.process_time()
        opt = solve_opt(wl, memory, allocation=allocation, max_graph_bytes=64 << 30).outputs
        to, co = time.perf_counter() - t, time.process_time() - c
        assert b.lower <= opt <= b.upper, (b.as_dict(), opt)
    ratio = lambda x: f"{x / opt:.4f}" if opt else "-"  # noqa: E731
    print(f"{name:<34} {len(wl) // 2:>9,} {allocation:<8} {b.lower:>12,} {opt or '-':>12} {b.upper:>12,} "
          f"{b.gap:>7.2%} {ratio(b.upper):>7} {ratio(b.lower):>7} {tb:>7.1f} {cb:>7.1f} "
          f"{'-' if to is None else round(to, 1)!s:>7} {'-' if to is None else round(co, 1)!s:>7} "
          f"{os.getloadavg()[0]:>5.1f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--zipf", default="20000,100000")
    ap.add_argument("--weather", nargs=2, metavar=("R", "S"))
    ap.add_argument("--workload", type=Path)
    ap.add_argument("--prefixes", default="50000,100000")
    ap.add_argument("--exact-upto", type=int, default=200_000)
    args = ap.parse_args()
    bound_opt(zipf_workload(1.0, 50, 300, 0, window=10), 8)  # compile (cached on disk)
    solve_opt(zipf_workload(1.0, 50, 300, 0, window=10), 8)
    print(f"{'workload':<34} {'N':>9} {'alloc':<8} {'lower':>12} {'OPT':>12} {'upper':>12} {'gap':>7} "
          f"{'up/OPT':>7} {'lo/OPT':>7} {'bnd s':>7} {'bnd cpu':>7} {'OPT s':>7} {'OPT cpu':>7} {'load':>5}")
    for n in (int(x) for x in args.zipf.split(",") if x):
        wl = zipf_workload(1.0, 50, n, 0, window=400)
        for allocation in ("fixed", "variable"):
            row("zipf(1) D=50 w=400 M=400", wl, 400, allocation, args.exact_upto)
    full = None
    if args.weather:
        from shedding.datasets.weather import weather_workload

        full = weather_workload(args.weather[0], args.weather[1], "ndp", 5000)
    elif args.workload:
        from shedding.datasets.files import load_workload

        full = load_workload(args.workload, 5000)
    if full is not None:
        for n in (int(x) for x in args.prefixes.split(",") if x):
            row("weather w=5000 M=2500 prefix", prefix(full, n), 2500, "fixed", args.exact_upto)
        row("weather w=5000 M=2500 whole", full, 2500, "fixed", args.exact_upto)


if __name__ == "__main__":
    main()
