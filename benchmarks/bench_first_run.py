"""The first run of each command, as a new user meets it: CPU seconds with an empty compile cache,
then with the cache the first run left (the goals: the first ``shed simulate --policy prob`` at
most 10 s of CPU, the first with ``--policy hazard --estimator online`` at most 15 s; the first
micro-batch of ``shed stream-join`` within 20 s of the query's start).

Each command runs as a child process of the ``shed`` given (default: this interpreter's), with
``NUMBA_CACHE_DIR`` set to a new empty folder, so nothing compiled on this machine is found: what
the run does not find among the shipped engines (shedding/jit.py) it compiles, and the table says
how many functions that was (``SHEDDING_JIT_LOG``). The CPU seconds are the child's user + system
time (``resource.getrusage``), which other processes on the machine do not inflate the way they do
wall time. Rounds alternate cold and warm runs; figures are medians.

``--fresh`` measures a fresh install first: ``pip wheel`` of this repository (which compiles the
engines into the wheel: setup.py), a new virtual environment, ``pip install`` of the wheel, and
then the commands with that environment's ``shed``.

    .venv/bin/python benchmarks/bench_first_run.py [--rounds 3] [--only prob,hazard] [--shed PATH]
        [--fresh] [--stream]

``--stream`` adds the streaming join (``shed stream-join`` on embedded Spark, PROB, two Zipf
streams of 4,000 tuples in 4 CSV files each, read in one micro-batch), cold and warm: the first
micro-batch's handler time (the job's per-batch metrics; cold, it compiles the join in Spark's Python
worker unless the engines are shipped) and the whole command's wall seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "golden" / "data"

#: name -> shed arguments (run in tests/golden/data, whose small files the wjoin, bmj and band
#: commands read)
COMMANDS: dict[str, list[str]] = {
    "prob": ["simulate", "--policy", "prob", "--json"],
    "hazard": ["simulate", "--policy", "hazard", "--estimator", "online", "--json"],
    "all-online": ["simulate", "--policy", "rand,prob,life,probv,lifev,surv,dual,fluid,age,hazard", "--json"],
    "opt": ["opt", "--window", "40", "--memory", "20", "--length", "600", "--json"],
    "opt-bounds": ["opt", "--window", "40", "--memory", "20", "--length", "600", "--bounds", "--json"],
    "band": ["simulate", "--workload", "async.csv", "--predicate", "band", "--eps", "1", "--policy",
             "rand,prob,life,opt", "--window", "20", "--memory", "8", "--json"],
    "wjoin": ["wjoin", "--streams", "a.csv,b.csv,c.csv", "--window", "5", "--memory", "30", "--policy",
              "rand,prob,life,opt", "--json"],
    "bmj": ["bmj", "--r", "bm_r.csv", "--s", "bm_s.csv", "--attrs", "y1,y2", "--eps", "0.2,0.2", "--memory", "10",
            "--policy", "rand,prob,ahead", "--json"],
    "bmj-matwin": ["bmj", "--r", "bm_r.csv", "--s", "bm_s.csv", "--attrs", "y1,y2", "--eps", "0.3,0.3", "--variant",
                   "bmj", "--algorithm", "matwin-ego", "--json"],
}


def cpu_seconds(argv: list[str], env: dict, cwd: Path | None) -> float:
    """User + system CPU seconds of one child process running ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed:\n{done.stderr[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def first_batch(shed: str, env: dict, work: Path) -> tuple[float, float]:
    """(seconds of the first micro-batch's handler, which compiles the join in Spark's Python
    worker when the cache is cold; wall seconds of the whole command) of a small bounded run."""
    from shedding.streaming.results import read_table

    out = work / "out"
    argv = [shed, "stream-join", "--r", "zipf:1:40", "--s", "zipf:1:40", "--length", "4000", "--files", "4",
            "--window", "100", "--memory", "100", "--shedding", "prob", "--max-files-per-trigger", "8",
            "--out", str(out), "--checkpoint", str(work / "ck"), "--json"]
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed:\n{done.stderr[-2000:]}")
    metrics = read_table(out, "metrics")
    first = metrics[metrics["batch"] == metrics["batch"].min()]
    return float(first["handler_ms"].max()) / 1000, wall


def compiled(log: Path) -> int:
    """How many functions a run compiled (the lines of its ``SHEDDING_JIT_LOG``)."""
    return len(log.read_text().split()) if log.exists() else 0


def fresh_install(work: Path) -> str:
    """Build the wheel, install it in a new virtual environment; returns that environment's shed."""
    wheels, venv = work / "wheels", work / "venv"
    started = time.perf_counter()
    build = cpu_seconds([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(ROOT), "-w", str(wheels)],
                        dict(os.environ), None)
    print(f"pip wheel: {time.perf_counter() - started:.0f} s wall, {build:.0f} s CPU "
          f"({sum(f.stat().st_size for f in wheels.glob('*.whl')) / 1e6:.1f} MB)", flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    started = time.perf_counter()
    install = cpu_seconds([str(venv / "bin" / "pip"), "install", "-q", *map(str, wheels.glob("*.whl"))],
                          dict(os.environ), None)
    print(f"pip install of the wheel (with its dependencies): {time.perf_counter() - started:.0f} s wall, "
          f"{install:.0f} s CPU", flush=True)
    return str(venv / "bin" / "shed")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default=",".join(COMMANDS),
                    help="comma list of: " + ", ".join(COMMANDS) + " (empty: only --stream)")
    ap.add_argument("--shed", default=str(Path(sys.executable).parent / "shed"))
    ap.add_argument("--stream", action="store_true", help="also the streaming join's first micro-batch")
    ap.add_argument("--fresh", action="store_true", help="build the wheel, install it in a new venv, use its shed")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = ap.parse_args()
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = sorted(set(names) - set(COMMANDS))
    if unknown:
        ap.error(f"unknown --only {', '.join(unknown)}; choose from {', '.join(COMMANDS)}")

    if args.fresh:
        args.shed = fresh_install(Path(tempfile.mkdtemp(prefix="fresh-install-")))
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; shed: {args.shed}")
    figures: dict[str, dict[str, list[float]]] = {n: {"cold": [], "warm": [], "compiled": []} for n in names}
    for r in range(args.rounds):
        for name in names:
            cache = tempfile.mkdtemp(prefix="numba-cold-")
            log = Path(cache) / "compiled.txt"
            env = dict(os.environ, NUMBA_CACHE_DIR=cache, SHEDDING_JIT_LOG=str(log))
            figures[name]["cold"].append(cpu_seconds([args.shed, *COMMANDS[name]], env, DATA))
            figures[name]["compiled"].append(compiled(log))
            figures[name]["warm"].append(cpu_seconds([args.shed, *COMMANDS[name]], env, DATA))
            shutil.rmtree(cache, ignore_errors=True)
            print(f"round {r + 1} {name:12} cold {figures[name]['cold'][-1]:6.1f} s CPU "
                  f"({figures[name]['compiled'][-1]} functions compiled), "
                  f"warm {figures[name]['warm'][-1]:5.1f} s CPU", flush=True)
    print(f"\n{'command':12} {'cold s CPU':>11} {'compiled':>9} {'warm s CPU':>11}   (medians of {args.rounds})")
    summary = {}
    for name in names:
        cold, warm = statistics.median(figures[name]["cold"]), statistics.median(figures[name]["warm"])
        summary[name] = {"cold": cold, "warm": warm, "runs": figures[name]}
        print(f"{name:12} {cold:>11.1f} {max(figures[name]['compiled']):>9} {warm:>11.1f}   "
              f"shed {' '.join(COMMANDS[name])}")
    if args.stream:
        cache = tempfile.mkdtemp(prefix="numba-cold-")
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)  # Spark's Python workers inherit it
        stream = {}
        for state in ("cold", "warm"):
            work = Path(tempfile.mkdtemp(prefix="first-batch-"))
            handler, wall = first_batch(args.shed, env, work)
            stream[state] = {"first_batch_handler_s": handler, "command_wall_s": wall}
            print(f"stream-join {state}: first micro-batch's handler {handler:.1f} s, whole command {wall:.1f} s wall",
                  flush=True)
            shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)
        summary["stream-join first batch"] = stream
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
