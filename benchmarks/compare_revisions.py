"""The performance bars of two revisions, measured in one run with the runs alternating.

The bars are the engine's arrivals per CPU second (PROB, PROBV, LIFE, LIFEV, HAZARD on 2 x 1,000,000 Zipf(1) tuples,
domain 650, w = 5000, M = 2500: the workload of ``bench_engine.py``), OPT at N = 1,000,000 tuples
per stream (Zipf(1), domain 50, w = 400, M = 200, the default compact network and solver: the scale
test of ``bench_opt.py``), and the streaming join's input rows per second (``shed stream-join``,
PROB, P = 1, 2 x 200,000 Zipf(1) tuples over 40 CSV files per stream, 4 files per trigger, w = M =
500: the setting of ``bench_stream_join.py``, timed from the query's start to its end, the JVM's
start excluded), and the bestmatch kernels' CPU seconds on MatWin's and the bestmatch suite's shapes
(best of 5 per round: ``probe_bestmatch``; ``--only bestmatch`` runs them alone), and the CPU
seconds of the first ``shed simulate`` with PROB and with HAZARD from an empty compile cache
(``--only first-run``).

Each revision is checked out into a temporary git worktree and measured by a fresh child process
of this interpreter with ``PYTHONPATH`` pointing at that checkout, so both run on the same
installed dependencies. Rounds alternate the revisions (A B B A ...), and the figures are medians
over the rounds; the ratio head / base is computed from the medians of the same run.

    .venv/bin/python benchmarks/compare_revisions.py --base pre-restructure --head HEAD [--rounds 3]
        [--only engine,opt,stream] [--shipped]

``--shipped`` compiles the head's engines ahead of time into its checkout, as a wheel ships them
(``python -m shedding.cli.engines``, for a generic CPU), so the head runs on them; with ``--base
HEAD --head HEAD`` that compares the shipped engines with the JIT's code for this machine's CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBES = ("engine", "opt", "stream", "bestmatch", "first-run")


def probe_engine() -> dict:
    """Arrivals per CPU second of PROB, PROBV, LIFE, LIFEV and HAZARD (one feed of the whole workload
    each; CPU time, which a shared machine's load inflates less than wall time)."""
    from shedding import JoinOperator, zipf_workload
    from shedding.online import StaticEstimator

    wl = zipf_workload(1.0, 650, 1_000_000, seed=0, window=5000)
    est = StaticEstimator.from_workload(wl)
    small = zipf_workload(1.0, 650, 10_000, seed=0, window=5000)
    for policy in ("prob", "hazard"):  # compile or load both loops outside the timings
        JoinOperator(5000, 2500, policy, estimator=StaticEstimator.from_workload(small)).feed(small.side, small.time,
                                                                                              small.key)
    out = {}
    for policy in ("prob", "probv", "life", "lifev", "hazard"):
        op = JoinOperator(5000, 2500, policy, warmup=wl.warmup, estimator=est)
        started = time.process_time()
        op.feed(wl.side, wl.time, wl.key)
        out[f"{policy} arrivals/CPU s"] = len(wl) / (time.process_time() - started)
    return out


def probe_opt() -> dict:
    """Seconds of OPT at N = 1,000,000 tuples per stream (build and solve)."""
    from shedding.datasets import zipf_workload
    from shedding.offline import solve_opt

    solve_opt(zipf_workload(1.0, 50, 200, 0, "independent", window=40, warmup=80), 20)  # load the solver
    wl = zipf_workload(1.0, 50, 1_000_000, 0, "independent", window=400, warmup=800)
    started = time.perf_counter()
    res = solve_opt(wl, 200, max_graph_bytes=64 << 30)
    return {"OPT seconds at N = 1M": time.perf_counter() - started, "OPT outputs": res.outputs}


def probe_stream() -> dict:
    """Input rows per second of ``shed stream-join`` at 4 files per trigger (query start to end)."""
    from shedding.cli import main

    work = Path(tempfile.mkdtemp(prefix="bench-stream-"))
    out = work / "out"
    argv = ["shed", "stream-join", "--r", "zipf:1:650", "--s", "zipf:1:650", "--length", "200000", "--files", "40",
            "--window", "500", "--memory", "500", "--shedding", "prob", "--max-files-per-trigger", "4",
            "--out", str(out), "--json"]
    sys.argv = argv
    started = time.perf_counter()
    try:
        main()
    except SystemExit as exc:
        if exc.code not in (0, None):
            raise
    seconds = time.perf_counter() - started
    return {"stream-join seconds (whole command)": seconds, "stream-join rows/s (whole command)": 400_000 / seconds}


#: (variant, algorithm, tuples per input, dimensions, eps, decimal places of y_1 or None): MatWin's kernels
#: on 2 x 20,000 tuples at eps 0.05 and the BMJ, then the shapes ``shed compare --suite bestmatch`` times:
#: Figure 11's (eps 0.1) with nested loops, Figure 12's four dimensions and Figure 14's y_1 at one
#: decimal place (= eps_1, so tuples sit on the window bounds), on larger inputs than the suite's to time well
BESTMATCH_CASES = (
    ("constrained", "matwin", 20_000, 2, 0.05, None), ("constrained", "matwin-ego", 20_000, 2, 0.05, None),
    ("bmj", "matwin", 6_000, 2, 0.1, None),
    ("constrained", "matwin", 10_000, 2, 0.1, None), ("constrained", "matwin-ego", 10_000, 2, 0.1, None),
    ("constrained", "nested", 4_000, 2, 0.1, None), ("constrained", "matwin-ego", 10_000, 4, 0.1, None),
    ("constrained", "matwin", 10_000, 2, 0.1, 1),
)


def probe_bestmatch() -> dict:
    """CPU seconds (best of 5) of the bestmatch kernels on :data:`BESTMATCH_CASES` (uniform inputs)."""
    from shedding.bestmatch.generator import synthetic_input
    from shedding.bestmatch.join import bestmatch

    out = {}
    for variant, algorithm, n, dims, eps, first in BESTMATCH_CASES:
        data = synthetic_input(n, n, dims, "uniform", eps, 6, seed=1, first_decimals=first)
        bestmatch(data, variant, algorithm)  # compile or load the cache outside the timing
        times = []
        for _ in range(5):
            started = time.process_time()
            bestmatch(data, variant, algorithm)
            times.append(time.process_time() - started)
        y1 = f" y1 {first} dp" if first is not None else ""
        out[f"{variant} {algorithm} n={n} d={dims} eps={eps}{y1} CPU s"] = min(times)
    return out


#: the commands whose first run ``probe_first_run`` times (``shed`` arguments)
FIRST_RUNS = {"prob": ["simulate", "--policy", "prob", "--json"],
              "hazard": ["simulate", "--policy", "hazard", "--estimator", "online", "--json"]}


def probe_first_run() -> dict:
    """CPU seconds of each :data:`FIRST_RUNS` command in a new process with an empty compile cache
    (``NUMBA_CACHE_DIR``), as ``bench_first_run.py`` times them for one installation."""
    import resource

    out = {}
    for name, args in FIRST_RUNS.items():
        with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run([sys.executable, "-m", "shedding.cli", *args], env={**os.environ, "NUMBA_CACHE_DIR": cache},
                           check=True, capture_output=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
        out[f"first run {name} CPU s"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return out


def child(name: str) -> None:
    result = {"engine": probe_engine, "opt": probe_opt, "stream": probe_stream, "bestmatch": probe_bestmatch,
              "first-run": probe_first_run}[name]()
    print("RESULT " + json.dumps(result), flush=True)


def checkout(rev: str, base: Path, label: str) -> Path:
    sha = subprocess.run(["git", "rev-parse", rev], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    path = base / f"{label}-{sha[:12]}"
    subprocess.run(["git", "worktree", "add", "--detach", "-q", str(path), sha], cwd=ROOT, check=True)
    return path


def measure(tree: Path, name: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree), "NUMBA_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, __file__, "--child", name], cwd=tree, env=env, capture_output=True,
                          text=True, timeout=3600)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        raise SystemExit(f"{name} failed in {tree}:\n{proc.stderr[-2000:]}")
    return json.loads(lines[-1][len("RESULT "):])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", default="pre-restructure")
    ap.add_argument("--head", default="HEAD")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default=",".join(PROBES))
    ap.add_argument("--shipped", action="store_true", help="the head runs on its engines compiled ahead of time")
    ap.add_argument("--child", choices=PROBES)
    args = ap.parse_args()
    if args.child:
        return child(args.child)
    probes = [p.strip() for p in args.only.split(",") if p.strip()]
    with tempfile.TemporaryDirectory(prefix="revisions-") as tmp:
        trees = {which: checkout(getattr(args, which), Path(tmp), which) for which in ("base", "head")}
        try:
            if args.shipped:
                head = trees["head"]
                subprocess.run([sys.executable, "-m", "shedding.cli.engines", str(head / "shedding" / "_engines")],
                               cwd=head, env={**os.environ, "PYTHONPATH": str(head)}, check=True)
            for tree in trees.values():  # compile each checkout's numba kernels outside the timings
                measure(tree, "engine") if "engine" in probes or "opt" in probes else None
            figures: dict[str, dict[str, list[float]]] = {"base": {}, "head": {}}
            for r in range(args.rounds):
                order = ("base", "head") if r % 2 == 0 else ("head", "base")
                for probe in probes:
                    for which in order:
                        for key, value in measure(trees[which], probe).items():
                            figures[which].setdefault(key, []).append(value)
                print(f"round {r + 1} of {args.rounds} done", file=sys.stderr, flush=True)
        finally:
            for tree in trees.values():
                subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False)
    shipped = " (on its shipped engines)" if args.shipped else ""
    print(f"base {args.base}, head {args.head}{shipped}, {args.rounds} alternating rounds; medians")
    width = max([42, *map(len, figures["base"])])
    print(f"{'figure':{width}} {'base':>14} {'head':>14} {'head/base':>10}")
    for key in figures["base"]:
        b, h = statistics.median(figures["base"][key]), statistics.median(figures["head"][key])
        print(f"{key:{width}} {b:>14,.3f} {h:>14,.3f} {h / b if b else float('nan'):>10.3f}")


if __name__ == "__main__":
    main()
