"""The shipped engines against the JIT's: CPU seconds of PROB, PROBV, LIFE and HAZARD per feed of
2 x 300,000 Zipf(1) tuples (domain 650, w = 5000, M = 2500, the static estimator), run on the
engines ``make`` compiled ahead into ``shedding/_engines`` (for a generic CPU, numba's cache empty:
nothing may compile) and on the code the JIT compiles for this machine's CPU (a copy of the package
without ``_engines``, its own cache warmed first). Rounds alternate the two, each in a new process;
figures are medians.

    make .venv/.installed shedding/_engines/.built   # or: python -m shedding.cli.engines shedding/_engines
    .venv/bin/python benchmarks/bench_shipped.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
POLICIES = ("prob", "probv", "life", "hazard")
PROBE = """
import json, time
from shedding import JoinOperator, zipf_workload
from shedding.online import StaticEstimator
wl = zipf_workload(1.0, 650, 300_000, seed=0, window=5000)
small = zipf_workload(1.0, 650, 10_000, seed=0, window=5000)
out = {}
for policy in %r:
    JoinOperator(5000, 2500, policy, estimator=StaticEstimator.from_workload(small)).feed(small.side, small.time,
                                                                                          small.key)
    started = time.process_time()
    JoinOperator(5000, 2500, policy, warmup=wl.warmup, estimator=StaticEstimator.from_workload(wl)).feed(
        wl.side, wl.time, wl.key)
    out[policy] = time.process_time() - started
print(json.dumps(out))
""" % (POLICIES,)


def run(env: dict[str, str], log: Path) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", PROBE], env=env | {"SHEDDING_JIT_LOG": str(log)},
                          capture_output=True, text=True, check=True, cwd=tempfile.gettempdir())
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    from shedding.jit import shipped_stamp, source_stamp

    if shipped_stamp() != source_stamp():
        sys.exit("the shipped engines are missing or stale: run python -m shedding.cli.engines shedding/_engines")
    with tempfile.TemporaryDirectory(prefix="bench-shipped-") as tmp:
        copy = Path(tmp) / "jit"
        shutil.copytree(ROOT / "shedding", copy / "shedding", ignore=shutil.ignore_patterns("_engines", "__pycache__"))
        jit_env = dict(os.environ, PYTHONPATH=str(copy), NUMBA_CACHE_DIR=str(Path(tmp) / "jit-cache"))
        run(jit_env, Path(tmp) / "warm.txt")  # the JIT's code compiled and cached outside the timings
        figures: dict[str, dict[str, list[float]]] = {"shipped": {}, "jit": {}}
        for r in range(args.rounds):
            for which in ("shipped", "jit") if r % 2 == 0 else ("jit", "shipped"):
                cache = Path(tempfile.mkdtemp(dir=tmp))
                env = jit_env if which == "jit" else dict(os.environ, NUMBA_CACHE_DIR=str(cache))
                log = cache / "compiled.txt"
                for policy, seconds in run(env, log).items():
                    figures[which].setdefault(policy, []).append(seconds)
                if log.exists():
                    sys.exit(f"the {which} run compiled at run time: {log.read_text().split()}")
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; {args.rounds} alternating rounds, medians")
    print(f"{'policy':8} {'shipped s':>10} {'JIT s':>10} {'shipped/JIT':>12}")
    for policy in POLICIES:
        a, b = statistics.median(figures["shipped"][policy]), statistics.median(figures["jit"][policy])
        print(f"{policy:8} {a:>10.3f} {b:>10.3f} {a / b:>12.3f}")


if __name__ == "__main__":
    main()
