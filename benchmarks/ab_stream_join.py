"""A/B of the stream join's start-up and per-batch savings, alternating in one Spark session.

The workload and job are ``bench_stream_join``'s (two Zipf(1) streams of 200,000 tuples, domain
650, w = M = 500, 40 CSV files per stream, PROB, P = 1). Each round runs every variant once, in
turn, so that load drift hits all of them alike; the figures are medians over the rounds:

* ``before``: every Python process Spark starts imports pyspark from the bundled ``pyspark.zip``
  (no cached bytecode), the checkpoint is written through Hadoop's FileContext and the driver looks
  at the query every 0.2 s;
* ``zip``, ``checkpoint``, ``poll``: ``before`` with one of the changes (the launcher of
  :mod:`shedding.spark.workers`, :data:`~shedding.streaming.tuning.CHECKPOINT_FILES`,
  :data:`~shedding.streaming.end_of_input.POLL_SECONDS`);
* ``after``: all of them, the code as it is.

(The fourth change measured here, the pairs written with Hadoop's file output committer
algorithm 2, went when the shards' tasks began to write the pairs themselves.)

    .venv/bin/python benchmarks/ab_stream_join.py [--triggers 40,4] [--rounds 3]

``--variants`` picks some (the first is the reference of the ratios; ``after-poll`` is ``after``
without the poll change). Prints per variant and trigger size the median run time, input rows per
second, and the median of the first batch's query planning (where the driver-side Python process starts).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import shedding.streaming.end_of_input as end_module
import shedding.streaming.job as job_module
from shedding.spark import spark_session
from shedding.streaming.job import StreamJob, run_on
from shedding.streaming.shard import JoinSpec
from shedding.streaming.sources import inspect_source, write_zipf_sources

LENGTH, DOMAIN, WINDOW, FILES = 200_000, 650, 500, 40
CHANGES = ("zip", "checkpoint", "poll")
VARIANTS = {"before": (), **{c: (c,) for c in CHANGES}, "after": CHANGES}


def variant(name: str) -> tuple[str, ...]:
    """The changes a variant name switches on."""
    if name in VARIANTS:
        return VARIANTS[name]
    if name.startswith("after-") and name[6:] in CHANGES:
        return tuple(c for c in CHANGES if c != name[6:])
    raise SystemExit(f"unknown variant {name!r}; use {', '.join(VARIANTS)} or after-CHANGE")


def configure(spark, changes: tuple[str, ...], launcher: str, tune_checkpoint) -> None:
    """Switch the changes on or off in the running session."""
    spark.sparkContext.pythonExec = launcher if "zip" in changes else sys.executable
    end_module.POLL_SECONDS = 0.05 if "poll" in changes else 0.2

    def tune(session) -> None:  # called by the job after configure_session
        if "checkpoint" in changes:
            tune_checkpoint(session)
        else:
            session.conf.unset("spark.sql.streaming.checkpointFileManagerClass")

    job_module.tune_checkpoint = tune


def one_run(spark, src: tuple, base: Path, per_trigger: int) -> tuple[float, float]:
    """Seconds for the whole bounded run and the first batch's query planning in ms."""
    work = Path(tempfile.mkdtemp(dir=base))
    job = StreamJob(src[0], src[1], work / "out", work / "ck", JoinSpec(WINDOW, WINDOW, "prob"),
                    estimator="online", trigger="available-now", max_files_per_trigger=per_trigger,
                    master="local[2]")
    trace: dict = {}
    started = time.perf_counter()
    run_on(spark, job, trace=trace)
    seconds = time.perf_counter() - started
    shutil.rmtree(work, ignore_errors=True)
    return seconds, trace["progress"][0]["durationMs"].get("queryPlanning", 0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--triggers", default="40,4", help="files per trigger to measure")
    ap.add_argument("--rounds", type=int, default=3, help="rounds; each runs every variant once")
    ap.add_argument("--variants", default=",".join(VARIANTS),
                    help="variants to run: before, after, one change's name, or after-CHANGE (all but that one)")
    args = ap.parse_args()
    variants = {name: variant(name) for name in args.variants.split(",")}
    base = Path(tempfile.mkdtemp(prefix="ab-stream-"))
    try:
        r_dir, s_dir = write_zipf_sources(f"zipf:1:{DOMAIN}", f"zipf:1:{DOMAIN}", base / "src", LENGTH, FILES, 0)
        src = (inspect_source(r_dir, "csv", "R"), inspect_source(s_dir, "csv", "S"))
        with spark_session("local[2]", "ab-stream-join") as spark:
            original = spark.sparkContext.pythonExec, job_module.tune_checkpoint
            launcher = original[0]
            if launcher == sys.executable:
                print("the launcher is not in use here (pyspark.zip is not a copy of the installed pyspark)")
            for changes in variants.values():  # warm-up: each variant's Python workers and numba cache
                configure(spark, changes, *original)
                one_run(spark, src, base, FILES)
            for k in map(int, args.triggers.split(",")):
                runs: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
                for _ in range(args.rounds):
                    for name, changes in variants.items():
                        configure(spark, changes, *original)
                        runs[name].append(one_run(spark, src, base, k))
                before = statistics.median(s for s, _ in runs[next(iter(runs))])
                print(f"\n{k} file(s) per trigger, medians of {args.rounds} alternating rounds", flush=True)
                for name, rs in runs.items():
                    secs = statistics.median(s for s, _ in rs)
                    plan = statistics.median(p for _, p in rs)
                    print(f"  {name:10s} {secs:6.2f} s  {2 * LENGTH / secs:9,.0f} rows/s  ({before / secs:.2f}x {next(iter(runs))})"
                          f"  first-batch planning {plan:,.0f} ms  runs: " + ", ".join(f"{s:.2f}" for s, _ in rs),
                          flush=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
