"""Wall time of ``shed compare`` for the shipped suites, and where the time goes.

Targets (issue): ``--suite paper`` under 10 minutes, ``--suite quick`` under 60 s with Spark start-up,
on this 2-core machine. Each suite runs once into a fresh folder through the CLI (so Spark start-up
and the report are included); the split comes from the per-run seconds in the results table.

    .venv/bin/python benchmarks/bench_compare.py [--suites quick,paper]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suites", default="quick,paper")
    args = ap.parse_args()
    cores = os.cpu_count() or 1
    for suite in args.suites.split(","):
        out = Path(tempfile.mkdtemp(prefix=f"bench-{suite}-"))
        started = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "shedding.cli", "compare", "--suite", suite, "--out", str(out)],
                              capture_output=True, text=True)
        wall = time.perf_counter() - started
        if proc.returncode != 0:
            sys.exit(f"{suite}: shed compare failed: {proc.stderr.strip()[-500:]}")
        res = pd.read_parquet(out / "results.parquet")
        is_opt = res.policy.isin(["opt", "optv"])
        opt_s, online_s = res.seconds[is_opt].sum(), res.seconds[~is_opt].sum()
        compute = (opt_s + online_s) / cores
        print(f"{suite}: {len(res)} runs, wall {wall:.1f} s on {cores} cores")
        print(f"  task time: OPT/OPTV {opt_s:.1f} s ({is_opt.sum()} solves, max {res.seconds[is_opt].max():.2f} s), "
              f"online + EXACT {online_s:.1f} s ({(~is_opt).sum()} runs)")
        print(f"  spread over {cores} cores: {compute:.1f} s; Spark start-up, scheduling, workload generation "
              f"and the report: {wall - compute:.1f} s")
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
