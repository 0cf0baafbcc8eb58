"""Benchmark OPT / OPTV (Das, Gehrke, Riedewald 2003, §3.2) at the paper's scale and beyond.

Workload: two tuple-synchronous Zipf(1.0) streams over 50 values (S through a seeded random
permutation), w = 400, warmup 800, as in the paper's Figure 3. Prints, in one run:

1. per M: median build and solve seconds of OPT and OPTV on the default (compact) network;
2. the paper's §3.2.1 graph against the compact one: size ratio (nodes, arcs) and time ratio
   (for the memories in ``--paper-memories``; the paper graph takes minutes at M = 600);
3. the scale test: N tuples per stream, one solve per allocation in a fresh process, with its
   wall time and peak memory; ``--max-n`` then searches the largest N solved in 60 s.

Run: ``.venv/bin/python benchmarks/bench_opt.py`` (add ``--max-n`` for the N search).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

import numpy as np

from shedding.datasets import zipf_workload
from shedding.model import Workload
from shedding.offline import solve_opt

LIMIT_BYTES = 64 << 30  # the benchmark measures; it does not guard


def workload(n: int, seed: int = 0) -> Workload:
    return zipf_workload(1.0, 50, n, seed, "independent", window=400, warmup=800)


def timed(wl: Workload, memory: int, allocation: str, graph: str, repeat: int) -> dict:
    """Median build and solve seconds over ``repeat`` runs, and the last result's row."""
    runs = [solve_opt(wl, memory, allocation=allocation, graph=graph, max_graph_bytes=LIMIT_BYTES)
            for _ in range(repeat)]
    row = runs[-1].as_dict()
    row["build_seconds"] = float(np.median([r.build_seconds for r in runs]))
    row["solve_seconds"] = float(np.median([r.solve_seconds for r in runs]))
    row["seconds"] = row["build_seconds"] + row["solve_seconds"]
    return row


def one(n: int, memory: int, allocation: str, graph: str) -> None:
    """Child process of the scale test: one solve, printed as JSON with wall time and peak RSS."""
    wl = workload(n)
    t0 = time.perf_counter()
    res = solve_opt(wl, memory, allocation=allocation, graph=graph, max_graph_bytes=LIMIT_BYTES)
    row = res.as_dict()
    row["wall_seconds"] = time.perf_counter() - t0
    row["peak_gib"] = peak_gib()
    print(json.dumps(row))


def peak_gib() -> float:
    """Peak resident memory of this process (VmHWM; ru_maxrss would include the parent's peak
    before exec on Linux)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 2**20
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def scale(n: int, memory: int, allocation: str, graph: str) -> dict:
    out = subprocess.run([sys.executable, __file__, "--one", str(n), str(memory), allocation, graph],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--memories", default="40,100,200,400,600")
    ap.add_argument("--length", type=int, default=5600, help="tuples per stream at the paper scale")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--graph", default="compact")
    ap.add_argument("--paper-memories", default="40", help="memories at which to time the paper graph ('' = none)")
    ap.add_argument("--scale-n", type=int, default=100_000)
    ap.add_argument("--scale-memory", type=int, default=400)
    ap.add_argument("--max-n", action="store_true", help="search the largest N solved within 60 s")
    ap.add_argument("--one", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        n, m, allocation, graph = args.one
        one(int(n), int(m), allocation, graph)
        return

    memories = [int(m) for m in args.memories.split(",")]
    wl = workload(args.length)
    solve_opt(workload(50).with_params(window=5, warmup=0), 4)  # compile the solver (cached on disk)
    print(f"# OPT/OPTV, {args.graph} network: N = {args.length} per stream, w = 400, warmup 800, "
          f"Zipf(1.0) over 50 values; medians of {args.repeat} runs")
    print(f"{'M':>5} {'policy':>6} {'outputs':>8} {'exact':>7} {'ratio':>7} {'nodes':>7} {'arcs':>8} "
          f"{'build s':>8} {'solve s':>8} {'total s':>8}")
    compact: dict[tuple[int, str], dict] = {}
    for m in memories:
        for allocation in ("fixed", "variable"):
            row = timed(wl, m, allocation, args.graph, args.repeat)
            compact[(m, allocation)] = row
            print(f"{m:>5} {row['policy']:>6} {row['outputs']:>8} {row['exact']:>7} {row['ratio']:>7.4f} "
                  f"{row['nodes']:>7} {row['arcs']:>8} {row['build_seconds']:>8.3f} {row['solve_seconds']:>8.3f} "
                  f"{row['seconds']:>8.3f}", flush=True)

    paper_memories = [int(m) for m in args.paper_memories.split(",") if m]
    if paper_memories:
        print(f"\n# paper graph (§3.2.1) / {args.graph} network: one run each")
        print(f"{'M':>5} {'policy':>6} {'nodes':>9} {'arcs':>10} {'x nodes':>8} {'x arcs':>8} "
              f"{'build s':>8} {'solve s':>8} {'x time':>8}")
        for m in paper_memories:
            for allocation in ("fixed", "variable"):
                base = compact.get((m, allocation)) or timed(wl, m, allocation, args.graph, args.repeat)
                row = timed(wl, m, allocation, "paper", 1)
                assert row["outputs"] == base["outputs"]
                print(f"{m:>5} {row['policy']:>6} {row['nodes']:>9} {row['arcs']:>10} "
                      f"{row['nodes'] / base['nodes']:>8.0f} {row['arcs'] / base['arcs']:>8.0f} "
                      f"{row['build_seconds']:>8.2f} {row['solve_seconds']:>8.2f} "
                      f"{row['seconds'] / base['seconds']:>8.0f}", flush=True)

    print(f"\n# scale: N = {args.scale_n} per stream, M = {args.scale_memory}, one fresh process per solve")
    print(f"{'N':>8} {'policy':>6} {'outputs':>9} {'nodes':>9} {'arcs':>9} {'build s':>8} {'solve s':>8} "
          f"{'wall s':>8} {'peak GiB':>9}")

    def report(n: int, allocation: str) -> dict:
        row = scale(n, args.scale_memory, allocation, args.graph)
        print(f"{n:>8} {row['policy']:>6} {row['outputs']:>9} {row['nodes']:>9} {row['arcs']:>9} "
              f"{row['build_seconds']:>8.2f} {row['solve_seconds']:>8.2f} {row['wall_seconds']:>8.2f} "
              f"{row['peak_gib']:>9.2f}", flush=True)
        return row

    for allocation in ("fixed", "variable"):
        report(args.scale_n, allocation)
    if args.max_n:
        print("\n# largest N per stream solved within 60 s (both allocations), stepping by 25,000")
        n, best = args.scale_n, None
        while True:
            rows = [report(n, allocation) for allocation in ("fixed", "variable")]
            if max(r["wall_seconds"] for r in rows) > 60:
                break
            best, n = n, n + 25_000
        print(f"largest N within 60 s: {best}")


if __name__ == "__main__":
    main()
