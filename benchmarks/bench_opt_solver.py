"""The exact OPT solver at scale (issue 14): the warm-started primal-dual solver against the cold
successive shortest paths, on the same built network, with equal optimal cost checked; and the
whole ``shed opt`` process, the figure the issue's goals name.

    .venv/bin/python benchmarks/bench_opt_solver.py [--n 1000000] [--memory 400]
        [--allocations fixed,variable] [--graph auto] [--cold] [--process] [--repeat 1]

Workload: Zipf(1), domain 50, w = 400, seed 0, N tuples per stream. Per allocation it prints the
build seconds, the warm start's seconds (Lagrangian prices, ``WARM_ITERATIONS`` subgradient steps)
and solve seconds, and with ``--cold`` the cold solve of the same network; with ``--process`` the
wall seconds and peak resident memory of ``shed opt --length N --window 400 --memory M`` run as a
subprocess. The load average is printed beside every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shedding.datasets import zipf_workload  # noqa: E402
from shedding.exact import KeyedStreams  # noqa: E402
from shedding.offline.opt import GRAPHS, group_caps, pick_graph, solve_ssp  # noqa: E402
from shedding.offline.potentials import WARM_ITERATIONS, lagrangian_potentials  # noqa: E402


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def solvers(n: int, memory: int, allocation: str, graph: str, cold: bool) -> None:
    """Build once; time the warm start, the warm solve and (``cold``) the cold solve."""
    variable = allocation == "variable"
    wl = zipf_workload(1.0, 50, n, 0, window=400)
    ks = KeyedStreams.of(wl)
    caps = group_caps(wl, memory, None, None, True) if variable else group_caps(
        wl, memory, memory // 2, memory - memory // 2, False)
    graph = pick_graph(wl, graph, variable, ks)[0]
    t0 = time.perf_counter()
    net = GRAPHS[graph][1](wl, ks, caps, variable)
    t1 = time.perf_counter()
    potentials = lagrangian_potentials(wl, ks, net, caps, variable)
    t2 = time.perf_counter()
    warm_cost, _ = solve_ssp(replace(net, potentials=potentials))
    t3 = time.perf_counter()
    line = (f"{allocation:<8} {graph} {net.n_nodes:,} nodes {net.n_arcs:,} arcs  build {t1 - t0:.1f} s  "
            f"warm start {t2 - t1:.1f} s + solve {t3 - t2:.1f} s = {t3 - t1:.1f} s")
    if cold:
        cold_cost, _ = solve_ssp(net)
        t4 = time.perf_counter()
        assert cold_cost == warm_cost, (cold_cost, warm_cost)
        line += f"  cold solve {t4 - t3:.1f} s  cold/warm {(t4 - t3) / (t3 - t1):.2f}"
    print(f"{line}  OPT cost {warm_cost:,}  {load()}", flush=True)


def process(n: int, memory: int, allocation: str, graph: str) -> None:
    """Wall seconds and peak RSS of one ``shed opt`` process (its own imports and compile cache
    loads included)."""
    shed = Path(sys.executable).with_name("shed")
    cmd = [str(shed), "opt", "--length", str(n), "--window", "400", "--memory", str(memory), "--allocation",
           allocation, "--graph", graph, "--max-graph-gib", "16", "--json"]
    before = load()
    t = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    wall = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20
    row = json.loads(out)
    row = row[0] if isinstance(row, list) else row
    print(f"{allocation:<8} shed opt whole process {wall:.1f} s, peak {peak:.2f} GiB (largest child so far), "
          f"outputs {row['outputs']:,}  ({before} -> {load()})\n  {' '.join(cmd[1:])}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000, help="tuples per stream (Zipf(1), domain 50, w = 400)")
    ap.add_argument("--memory", type=int, default=400)
    ap.add_argument("--allocations", default="fixed,variable")
    ap.add_argument("--graph", default="auto")
    ap.add_argument("--cold", action="store_true", help="also time the cold successive shortest paths")
    ap.add_argument("--process", action="store_true", help="also time the whole shed opt process")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    print(f"Zipf(1) D=50 w=400 N={args.n:,} per stream, M={args.memory}, warm start {WARM_ITERATIONS} "
          f"subgradient steps", flush=True)
    for _ in range(args.repeat):
        for allocation in args.allocations.split(","):
            if args.process:
                process(args.n, args.memory, allocation, args.graph)
            solvers(args.n, args.memory, allocation, args.graph, args.cold)


if __name__ == "__main__":
    main()
