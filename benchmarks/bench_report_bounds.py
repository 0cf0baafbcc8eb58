"""Benchmark the suite runner's OPT run bounded against the same run solved exactly (issue 14, item 3).

For each Zipf(1) point (domain 50, w = 400, M = 400, N tuples per stream, seed 0): one OPT and one
OPTV run through ``shedding.studies.dgr.execute.execute`` (what a ``shed compare`` task does), once with
a limit below the network's estimate (the run records OPT's bounds) and once with the default 4 GiB
(exact), in the same process one after the other. Prints the estimated network size, both times,
their ratio, the bounds, the exact OPT and the gap, and asserts lower <= OPT <= upper.

    .venv/bin/python benchmarks/bench_report_bounds.py [--lengths 20000,100000]

The machine may be shared: each row carries the 1-minute load average, and the ratio of the two
times (measured back to back) is the figure to quote.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shedding.datasets import zipf_workload  # noqa: E402
from shedding.exact import KeyedStreams  # noqa: E402
from shedding.offline.network import estimate_bytes  # noqa: E402
from shedding.offline.opt import pick_graph  # noqa: E402
from shedding.studies.dgr.execute import execute  # noqa: E402
from shedding.studies.dgr.spec import RunSpec  # noqa: E402

WINDOW, MEMORY, DOMAIN = 400, 400, 50


def estimate(spec: RunSpec) -> int:
    """The exact network's estimated peak bytes (what check_size compares with the limit)."""
    wl = zipf_workload(spec.skew, spec.domain, spec.length, spec.seed, spec.correlation, spec.window, spec.warmup)
    _, nodes, arcs = pick_graph(wl, "auto", spec.policy == "optv", KeyedStreams.of(wl))
    return estimate_bytes(nodes, arcs, len(wl), "ssp")


def timed(spec: RunSpec, limit: int | None) -> tuple[dict, float]:
    started = time.perf_counter()
    row = execute(asdict(spec), None, limit)
    return row, time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lengths", default="20000,100000", help="tuples per stream, comma-separated")
    args = ap.parse_args()
    timed(RunSpec("b", "b", "zipf", 1.0, 1.0, DOMAIN, 2000, "independent", 0, 40, 80, 40, "opt"), 1)  # JIT warm-up
    print(f"{'policy':<6} {'N':>9} {'est. MiB':>9} {'lower':>10} {'OPT':>10} {'upper':>10} {'gap':>6} "
          f"{'bounds s':>9} {'exact s':>8} {'exact/bounds':>12} {'load':>5}")
    for n in (int(v) for v in args.lengths.split(",")):
        for policy in ("opt", "optv"):
            spec = RunSpec("b", "b", "zipf", 1.0, 1.0, DOMAIN, n, "independent", 0, WINDOW, 2 * WINDOW, MEMORY,
                           policy)
            need = estimate(spec)
            bounded, tb = timed(spec, need - 1)
            exact, te = timed(spec, None)
            assert bounded["opt_kind"] == "bounds" and exact["opt_kind"] == "exact"
            assert bounded["opt_lower"] <= exact["outputs"] <= bounded["opt_upper"], (bounded, exact)
            gap = (bounded["opt_upper"] - bounded["opt_lower"]) / bounded["opt_upper"]
            print(f"{policy:<6} {n:>9,} {need / 2**20:>9,.0f} {bounded['opt_lower']:>10,.0f} {exact['outputs']:>10,} "
                  f"{bounded['opt_upper']:>10,.0f} {gap:>6.2%} {tb:>9.2f} {te:>8.2f} {te / tb:>12.2f} "
                  f"{os.getloadavg()[0]:>5.1f}", flush=True)


if __name__ == "__main__":
    main()
