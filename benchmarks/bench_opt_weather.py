"""The largest prefix of a weather workload (w = 5000, paper §4.5) for which OPT finishes within a
time budget (issue: 10 minutes), found by doubling and then bisecting the prefix length; or, with
``--sample``, OPT and OPTV on the bundled SYNOP sample with each network, in one run.

    .venv/bin/python benchmarks/bench_opt_weather.py R_FILE S_FILE [--format ndp] [--budget 600]
        [--memory 2500] [--start 20000] [--max-graph-gib 4] [--graph auto]
    .venv/bin/python benchmarks/bench_opt_weather.py --sample [--graphs compact,keyed,auto]

Each probe solves OPT (fixed split) in a fresh process under a timeout, so a probe that runs
over the budget is stopped rather than waited for. Prints every probe (with the network ``auto``
picked and the process's peak memory) and the answer. ``--start`` at least the workload's length
solves the whole workload once.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PROBE = """
import resource, sys, time
from shedding.datasets.weather import weather_workload
from shedding.model import Workload
from shedding.offline import solve_opt
r, s, fmt, n, w, m = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
limit = int(float(sys.argv[7]) * 2**30)
full = weather_workload(r, s, fmt, w)
keep = full.time < n
wl = Workload(full.side[keep], full.time[keep], full.key[keep], w, full.warmup, full.name)
t = time.perf_counter()
res = solve_opt(wl, m, max_graph_bytes=limit, graph=sys.argv[8])
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(len(wl) // 2, res.outputs, res.exact, res.graph, res.nodes, res.arcs, round(time.perf_counter() - t, 1), peak)
"""


def probe(args: argparse.Namespace, n: int) -> int | None:
    """Reports per stream OPT solved within the budget on the first n (fewer when the workload is
    shorter), or None when over the budget."""
    started = time.perf_counter()
    try:
        argv = [args.r, args.s, args.format, str(n), str(args.window), str(args.memory), str(args.max_graph_gib),
                args.graph]
        proc = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True,
                              timeout=args.budget)
    except subprocess.TimeoutExpired:
        print(f"N = {n:,}: over {args.budget:.0f} s", flush=True)
        return None
    if proc.returncode != 0:
        sys.exit(f"N = {n}: failed: {proc.stderr.strip()[-400:]}")
    used, outputs, exact, graph, nodes, arcs, solve, peak = proc.stdout.split()[-8:]
    print(f"N = {int(used):,}: OPT {int(outputs):,} of EXACT {int(exact):,}, {graph} network: {int(nodes):,} nodes, {int(arcs):,} arcs, "
          f"solve {solve} s, probe {time.perf_counter() - started:.0f} s, peak memory {int(peak) / 2**30:.1f} GiB",
          flush=True)
    return int(used)


def sample(graphs: list[str], window: int, memory: int) -> None:
    """OPT and OPTV on the bundled SYNOP sample (10 degree cells) with each network, in one run."""
    from shedding.datasets.weather import synop_sample_workload
    from shedding.offline import solve_opt

    wl = synop_sample_workload(10.0, window)
    print(f"bundled SYNOP sample: {len(wl) // 2:,} reports per stream, w = {window}, M = {memory}")
    solve_opt(wl, memory, graph="keyed")  # compile the solver outside the timings
    for allocation in ("fixed", "variable"):
        for graph in graphs:
            t = time.perf_counter()
            res = solve_opt(wl, memory, allocation=allocation, graph=graph, max_graph_bytes=16 * 2**30)
            print(f"{'OPTV' if allocation == 'variable' else 'OPT'} {graph} ({res.graph}): {res.outputs:,} outputs, "
                  f"{res.nodes:,} nodes, {res.arcs:,} arcs, {time.perf_counter() - t:.2f} s", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("r", nargs="?")
    ap.add_argument("s", nargs="?")
    ap.add_argument("--sample", action="store_true", help="OPT and OPTV on the bundled sample with each of --graphs")
    ap.add_argument("--graphs", default="compact,keyed,auto")
    ap.add_argument("--graph", default="auto", help="network of the probes")
    ap.add_argument("--format", default="ndp")
    ap.add_argument("--window", type=int, default=5000)
    ap.add_argument("--memory", type=int, default=2500)
    ap.add_argument("--budget", type=float, default=600.0, help="seconds per OPT solve, probe included")
    ap.add_argument("--start", type=int, default=20000)
    ap.add_argument("--max-graph-gib", type=float, default=4.0, help="graph size limit passed to OPT")
    args = ap.parse_args()
    if args.sample:
        sample(args.graphs.split(","), args.window, args.memory)
        return
    if not (args.r and args.s):
        ap.error("give R_FILE and S_FILE, or --sample")
    good, bad, n = 0, None, args.start
    while bad is None:  # double until a probe runs over the budget
        used = probe(args, n)
        if used is None:
            bad = n
        elif used < n:
            print(f"the whole workload ({used:,} reports per stream) solves within {args.budget:.0f} s")
            return
        else:
            good, n = n, 2 * n
    while bad - good > max(1000, good // 20):  # bisect to within 5%
        mid = (good + bad) // 2
        if probe(args, mid) is None:
            bad = mid
        else:
            good = mid
    print(f"largest prefix with OPT within {args.budget:.0f} s: about {good:,} reports per stream "
          f"(w = {args.window}, M = {args.memory})")


if __name__ == "__main__":
    main()
