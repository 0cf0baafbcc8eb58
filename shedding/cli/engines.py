"""Compile the engines ahead of time, for the wheel: every compiled function the commands reach,
for a generic CPU, saved in the folder the wheel ships (``shedding/jit.py``, "The shipped engines").

    python -m shedding.cli.engines OUT [--jobs N]

A list of small runs (:data:`TASKS`: every policy of every join family with both estimators, OPT
and OPTV with their bounds, a time range, ``explain``, HAZARD by the key's history, the streaming
join's operator with each policy it runs, an outer join over a range and HAZARD by history)
goes through the same code a user's command goes through, each in a process of its own with
``SHEDDING_ENGINES_OUT=OUT`` and ``NUMBA_CPU_NAME=generic``, ``N`` at a time. ``setup.py`` calls
it when a wheel is built; ``make`` calls it for the development install, so the test processes
do not each compile the same engines. A run that compiles nothing new costs about a second.
"""

from __future__ import annotations

import argparse
import os
import pickle
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from shedding.atomic import write_text
from shedding.jit import STAMP

#: the folder that holds the package (the import root of the child processes)
ROOT = Path(__file__).resolve().parents[2]
_EQUI = "rand,prob,life,randv,probv,lifev,surv,survv,dual,dualv,fluid,fluidv,age,agev,hazard,hazardv"
_SMALL = ["--window", "20", "--memory", "10", "--length", "400", "--json"]

#: name -> the ``shed`` arguments of one run (files named here are written by :func:`write_inputs`)
TASKS: dict[str, list[str]] = {
    "hazard": ["simulate", "--policy", "hazard,hazardv", "--estimator", "online", *_SMALL],
    "history": ["simulate", "--policy", "hazard", "--estimator", "online", "--group", "history", *_SMALL],
    "equi-static": ["simulate", "--policy", _EQUI, "--estimator", "static", *_SMALL],
    "equi-online": ["simulate", "--policy", _EQUI, "--estimator", "online", *_SMALL],
    "opt": ["simulate", "--policy", "exact,opt,optv", *_SMALL],
    "opt-compact": ["opt", "--graph", "compact", *_SMALL],
    "opt-bounds": ["opt", "--bounds", *_SMALL],
    "optv-bounds": ["opt", "--allocation", "variable", "--bounds", *_SMALL],
    "explain": ["explain", "--policy", "prob", *_SMALL],
    "range": ["simulate", "--policy", f"exact,{_EQUI},opt,optv", "--range", "-3,12", "--memory", "10", "--length",
              "400", "--estimator", "online", "--json"],
    "range-opt": ["opt", "--range", "2,15", "--memory", "10", "--length", "400", "--bounds", "--json"],
    "range-optv": ["opt", "--range", "2,15", "--memory", "10", "--length", "400", "--allocation", "variable", "--json"],
    "band": ["simulate", "--workload", "async.csv", "--predicate", "band", "--eps", "1", "--policy",
             "rand,prob,life,randv,probv,lifev,opt", "--window", "20", "--memory", "8", "--json"],
    "wjoin": ["wjoin", "--n-streams", "3", "--length", "120", "--window", "5", "--memory", "30", "--policy",
              "rand,prob,life,randv,probv,lifev,opt", "--json"],
    "wjoin-exact": ["wjoin", "--n-streams", "3", "--length", "120", "--window", "5", "--algorithm", "all", "--json"],
    "wjoin-files": ["wjoin", "--streams", "a.csv,b.csv,c.csv", "--window", "5", "--algorithm", "all", "--json"],
    "wjoin-windows": ["wjoin", "--streams", "a.csv,b.csv,c.csv", "--windows", "a-b:5,b-c:3", "--json"],
    "bmj-nested": ["bmj", "--r", "bm_r.csv", "--s", "bm_s.csv", "--attrs", "y1,y2", "--eps", "0.2,0.2", "--json"],
    "bmj-time": ["bmj", "--r", "bm_r.csv", "--s", "bm_s.csv", "--attrs", "y1,y2", "--eps", "0.2,0.2", "--time", "t",
                 "--horizon", "20", "--json"],
    "bmj": ["bmj", "--r", "bm_r.csv", "--s", "bm_s.csv", "--attrs", "y1,y2", "--eps", "0.2,0.2", "--memory", "10",
            "--policy", "rand,prob,ahead", "--json"],
    "bmj-matwin": ["bmj", "--r", "bm_r.csv", "--s", "bm_s.csv", "--attrs", "y1,y2", "--eps", "0.3,0.3", "--variant",
                   "bmj", "--algorithm", "matwin-ego", "--json"],
}
#: the streaming join's operator, one micro-batch per policy (run in-process by :func:`_stream`)
STREAM = "stream"


def write_inputs(folder: Path) -> None:
    """The small input files the runs read (seeded: the same files every time)."""
    rng = np.random.default_rng(0)
    times = np.sort(rng.integers(0, 150, 300))
    sides = rng.choice(["R", "S"], 300)
    keys = rng.integers(0, 10, 300)
    rows = ["stream,time,key", *(f"{s},{t},{k}" for s, t, k in zip(sides, times, keys))]
    write_text(folder / "async.csv", "\n".join(rows) + "\n")
    for name in ("a.csv", "b.csv", "c.csv"):
        lines = ["time,key", *(f"{t},{k}" for t, k in zip(np.sort(rng.integers(0, 100, 120)), rng.integers(0, 6, 120)))]
        write_text(folder / name, "\n".join(lines) + "\n")
    for name in ("bm_r.csv", "bm_s.csv"):
        y = rng.random((60, 2)).round(3)
        y = y[np.argsort(y[:, 0], kind="stable")]  # MatWin reads its inputs sorted by the first attribute
        lines = ["y1,y2,t", *(f"{a},{b},{t}" for t, (a, b) in enumerate(y))]
        write_text(folder / name, "\n".join(lines) + "\n")


def _stream() -> None:
    """The streaming join's operator, as a Spark worker runs it, on one micro-batch per policy."""
    import pandas as pd

    from shedding.online.policies import STREAM as FAMILY, names_for
    from shedding.streaming.shard import END, R, S, ShardJoin
    from shedding.streaming.spec import JoinSpec

    rng = np.random.default_rng(0)
    n = 400
    batch = pd.DataFrame({"side": rng.choice([R, S], n).astype("int64"), "time": np.sort(rng.integers(0, 200, n)),
                          "key": rng.integers(0, 10, n)})
    end = pd.DataFrame({"side": [END], "time": [0], "key": [0]})
    specs = [JoinSpec(window=20, memory=10, shedding=policy) for policy in ("none", *names_for(FAMILY))]
    specs += [JoinSpec(window=20, memory=10, shedding="prob", range=(-5, 19), how="full"),
              JoinSpec(window=20, memory=10, shedding="hazard", group=("history",))]
    for spec in specs:
        join = ShardJoin(spec)
        join.push(batch.iloc[: n // 2])
        join = ShardJoin.from_bytes(join.to_bytes())
        join.push(pd.concat([batch.iloc[n // 2:], end], ignore_index=True))


def compile_engines(out: Path, jobs: int, only: list[str] | None = None, progress: bool = True) -> None:
    """Run every task (or those named in ``only``) with the compiled functions saved under ``out``,
    after removing the ones there, then write the stamp they were compiled for (:func:`shedding.jit.
    shipped_stamp`; raises on a failed run)."""
    out.mkdir(parents=True, exist_ok=True)
    for old in [*out.rglob("*.nbi"), *out.rglob("*.nbc")]:
        old.unlink()
    env = os.environ | {"SHEDDING_ENGINES_OUT": str(out.resolve()), "NUMBA_CPU_NAME": "generic",
                        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("NUMBA_CPU_FEATURES", None)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="shedding-engines-") as work:
        write_inputs(Path(work))
        argvs = {name: [sys.executable, "-m", "shedding.cli", *args] for name, args in TASKS.items()}
        argvs[STREAM] = [sys.executable, "-m", "shedding.cli.engines", "--stream"]
        if only is not None:
            argvs = {name: argvs[name] for name in only}

        def run(name: str) -> str:
            done = subprocess.run(argvs[name], cwd=work, env=env, capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError(f"compiling the engines: {name} failed:\n{done.stderr[-3000:]}")
            if progress:
                print(f"  engines: {name} ({time.perf_counter() - started:.0f} s)", file=sys.stderr, flush=True)
            return name

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            list(pool.map(run, sorted(argvs, key=_longest_first)))
    probe = "import shedding.jit as j; print(j.PACKAGE); print(j.source_stamp())"
    package, stamp = subprocess.run([sys.executable, "-c", probe], env=env, cwd=out, capture_output=True, text=True,
                                    check=True).stdout.split()
    if Path(package) != ROOT / "shedding":
        raise RuntimeError(f"compiling the engines: the runs imported shedding from {package}, not {ROOT / 'shedding'}")
    stale = [index.name for index in out.rglob("*.nbi") if _stamp_of(index) != stamp]
    if stale:
        raise RuntimeError(f"compiling the engines: {len(stale)} were compiled from another source ({stale[0]})")
    write_text(out / STAMP, stamp + "\n")


def _stamp_of(index: Path) -> str:
    """The source stamp a numba index file was written for."""
    with index.open("rb") as f:
        pickle.load(f)  # numba's version
        return pickle.loads(f.read())[0]


def _longest_first(name: str) -> int:
    """The task order: the longest compiles first, so the last to finish is a short one."""
    return list(TASKS).index(name) if name in TASKS else len(TASKS)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m shedding.cli.engines", description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", type=Path, help="the folder of the shipped engines (shedding/_engines)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="runs at a time (default: the cores)")
    parser.add_argument("--only", help="a comma list of the runs to make (default: all): " + ", ".join([*TASKS, STREAM]))
    parser.add_argument("--stream", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.stream:
        _stream()
    elif args.out is None:
        parser.error("give the folder to write the engines to")
    elif args.only is not None and (unknown := set(args.only.split(",")) - {*TASKS, STREAM}):
        parser.error(f"--only: unknown run {sorted(unknown)[0]!r}; the runs: {', '.join([*TASKS, STREAM])}")
    else:
        try:
            compile_engines(args.out, max(1, args.jobs), args.only.split(",") if args.only else None)
        except RuntimeError as exc:
            sys.exit(str(exc))


if __name__ == "__main__":
    main()
