"""Old against new exact OPT solver in one run (issue 14): the ``ssp`` solver of a git revision
(default ``main``) and the working tree's, on the same built network, alternating, with equal
optimal cost checked. Ratios, not absolute seconds, are the result on a shared machine; the load
average is printed beside them.

    .venv/bin/python benchmarks/bench_opt_solver.py [--n 200000] [--rev main] [--repeat 1]
        [--allocations fixed,variable] [--graph compact]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shedding.datasets import zipf_workload  # noqa: E402
from shedding.exact import KeyedStreams  # noqa: E402
from shedding.offline import ssp as new_ssp  # noqa: E402
from shedding.offline.opt import GRAPHS, group_caps  # noqa: E402


def old_solver(rev: str, folder: Path):
    """The ``ssp`` module of revision ``rev``, imported from a copy (its numba cache stays there)."""
    path = folder / "ssp_old.py"
    path.write_text(subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:shedding/offline/ssp.py"],
                                   check=True, capture_output=True, text=True).stdout)
    spec = importlib.util.spec_from_file_location("ssp_old", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def timed(solver, net) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of all threads, optimal cost). CPU time is the robust figure on
    a shared machine whose jobs may be paused and resumed."""
    t, c = time.perf_counter(), time.process_time()
    cost, _ = solver.solve_dag_flow(net.n_nodes, net.tails, net.heads, net.caps, net.costs, net.supply_nodes,
                                    net.supplies)
    return time.perf_counter() - t, time.process_time() - c, cost


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200_000, help="tuples per stream (Zipf(1), domain 50, w = 400)")
    ap.add_argument("--memory", type=int, default=400)
    ap.add_argument("--rev", default="main")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--allocations", default="fixed,variable")
    ap.add_argument("--graph", default="compact")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        old = old_solver(args.rev, Path(tmp))
        wl = zipf_workload(1.0, 50, args.n, 0, window=400)
        ks = KeyedStreams.of(wl)
        tiny = zipf_workload(1.0, 50, 200, 0, window=5, warmup=0)
        print(f"Zipf(1) D=50 w=400 N={args.n:,} per stream, M={args.memory}, {args.graph} network; old = {args.rev}")
        for allocation in args.allocations.split(","):
            variable = allocation == "variable"
            m = args.memory
            caps = group_caps(wl, m, None, None, True) if variable else group_caps(wl, m, m // 2, m - m // 2, False)
            for solver in (old, new_ssp):  # compile on a tiny network first
                small = GRAPHS[args.graph][1](tiny, KeyedStreams.of(tiny), caps // 100 + 1, variable)
                timed(solver, small)
            net = GRAPHS[args.graph][1](wl, ks, caps, variable)
            for _ in range(args.repeat):
                load = os.getloadavg()[0]
                w_old, t_old, c_old = timed(old, net)
                w_new, t_new, c_new = timed(new_ssp, net)
                assert c_old == c_new, (c_old, c_new)
                print(f"{allocation:<8} arcs {net.n_arcs:>10,}  CPU old {t_old:7.1f} s new {t_new:7.1f} s "
                      f"old/new {t_old / t_new:5.2f}  (wall {w_old:.1f} / {w_new:.1f} s)  "
                      f"load {load:.1f} -> {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
