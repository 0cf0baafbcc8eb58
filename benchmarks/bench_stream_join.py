"""The shedding stream join against Spark's native stream-stream join, on the same files and triggers.

Workload (issue 9): two Zipf(1) streams of 200,000 tuples each, domain 650, w = 500, M = w (half
of what EXACT needs), 40 CSV files per stream, one R and one S tuple per time step. For 1, 4 and 40
files per trigger, in one run on one embedded Spark (local[2]):

* the semantic join (``shed stream-join`` with PROB, P = 1 and P = 2 shards; the native join also
  runs on two shuffle partitions, so P = 2 is the like-for-like one): input rows per second over the whole
  bounded run (the data and the end-of-input marker: two or more micro-batches, or one when the
  first takes every file), peak state (join memory,
  held-back tuples, bytes of the state value), and per micro-batch where the time goes: the Python
  handler (ShardJoin, and writing the shard's pairs and metrics files), the rest of the batch's one
  Spark job (file source, shuffle, Arrow transfer, RocksDB), the RocksDB commit and Spark's own
  planning, offsets and logs;
* the native join on each state store (HDFS-backed, Spark's default, and RocksDB), with two
  shuffle partitions, each micro-batch's pairs written as Parquet as ours are (by a foreachBatch:
  its pairs are in the JVM): rows per
  second, its peak state rows and bytes, and its output (= EXACT).

Output quality against P shards, with the memory split evenly or shared, is
``bench_shared_budget.py``'s.

With ``--ranges 60,600,3600`` both joins compute the one-sided time range 0 <= s.time - r.time <= H
for each H instead of the window (a time step is one second of the native join's event time, so
these are 1 minute, 10 minutes and 1 hour), the semantic join in ``--memory`` tuples; the native
join keeps every R tuple for H steps.

What the two joins share: the same CSV files, read by the same folder source
(:mod:`shedding.streaming.folder_source`) with the same files per trigger; the same condition;
watermarks of 0 on both inputs (the native join's, which lets it drop state once the watermark
passes; ours needs none to stay within M); one embedded Spark session, warm, the runs
alternating. The native join's state is its state operators' ``numRowsTotal`` and
``memoryUsedBytes``, ours the shards' tuples in memory and held back and the bytes of their state
values. Rows per second are the input rows (both streams) over each bounded run's wall time, query
start included; the query start to the first micro-batch is printed apart.

    .venv/bin/python benchmarks/bench_stream_join.py [--triggers 1,4,40] [--stores hdfs,rocksdb] [--repeat 3]
        [--semantic-shards 1,2] [--policies prob,hazard] [--ranges 60,600,3600 --memory 500] [--floor]

With ``--floor`` a third query runs beside them on the same files, source and files per trigger:
both streams read and counted, nothing joined. No join through this source at this trigger can
beat its rows per second, so floor / native bounds how many times the native join's rows per
second any join (ours included) can reach there.

Each join runs ``--repeat`` times per trigger size, the semantic and native runs alternating;
rows per second are the medians, and the ratios are ratios of medians from the same run.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import pandas as pd

from shedding.exact import exact_count
from shedding.timerange import range_horizon
from shedding.spark import spark_session
from shedding.streaming.job import StreamJob, run_on
from shedding.streaming.native import run_native
from shedding.streaming.report import source_rows, source_workload
from shedding.streaming.results import read_table
from shedding.streaming.shard import JoinSpec
from shedding.streaming.sources import inspect_source, write_zipf_sources
from shedding.streaming.tuning import tune_checkpoint, tune_file_sources

LENGTH, DOMAIN, WINDOW, FILES = 200_000, 650, 500, 40


def semantic(spark, src: tuple, base: Path, per_trigger: int, shards: int = 1, policy: str = "prob",
             bounds: tuple[int, int] | None = None, memory: int = WINDOW) -> dict:
    work = Path(tempfile.mkdtemp(dir=base))
    window = WINDOW if bounds is None else range_horizon(*bounds)
    job = StreamJob(src[0], src[1], work / "out", work / "ck",
                    JoinSpec(window, memory, policy, shards=shards, range=bounds),
                    estimator="online", trigger="available-now", max_files_per_trigger=per_trigger,
                    master="local[2]")
    trace: dict = {}
    started, wall = time.perf_counter(), time.time()
    summary = run_on(spark, job, trace=trace)
    seconds = time.perf_counter() - started
    first = trace["progress"][0]["timestamp"] if trace["progress"] else None  # when the first micro-batch began
    start_s = datetime.fromisoformat(first.replace("Z", "+00:00")).timestamp() - wall if first else float("nan")
    metrics = read_table(job.out, "metrics")
    handler = metrics.groupby("batch")["handler_ms"].max()  # shards run in parallel: the slowest
    rows = []
    for p in trace["progress"]:
        d, b = p["durationMs"], p["batchId"]
        if "addBatch" not in d:
            continue
        commit = sum(o.get("commitTimeMs", 0) for o in p.get("stateOperators", []))
        rows.append({"total": d.get("triggerExecution", 0), "handler": handler.get(b, 0),
                     "job less handler (source, shuffle, Arrow, state)": d["addBatch"] - handler.get(b, 0),
                     "state commit": commit,
                     "planning, offsets, logs": d.get("triggerExecution", 0) - d.get("addBatch", 0)})
    per_batch = pd.DataFrame(rows)
    data = per_batch[per_batch["total"] > 0]
    return {"seconds": seconds, "rows_per_s": 2 * LENGTH / seconds, "outputs": summary["outputs"], "start_s": start_s,
            "batches": summary["batches"], "peak_memory": summary["peak_memory"], "peak_held": summary["peak_held"],
            "peak_state_bytes": summary["peak_state_bytes"],
            "median_batch_ms": {c: statistics.median(data[c]) for c in data.columns} if len(data) else {}}


def native(spark, src: tuple, base: Path, per_trigger: int, store: str, bounds: tuple[int, int] | None = None) -> dict:
    spark.conf.set("spark.sql.shuffle.partitions", "2")
    tune_file_sources(spark)  # the same file listing and checkpoint writes as the semantic join
    tune_checkpoint(spark)
    work = tempfile.mkdtemp(dir=base)
    res = run_native(spark, src[0].reader(spark, per_trigger), src[1].reader(spark, per_trigger), WINDOW,
                     f"{work}/ck", provider=store, out=f"{work}/pairs", bounds=bounds)
    batches = pd.DataFrame(res["batches"])
    return {"seconds": res["seconds"], "rows_per_s": 2 * LENGTH / res["seconds"], "outputs": res["outputs"],
            "batches": len(batches), "peak_state_rows": int(batches["state_rows"].max()),
            "peak_state_bytes": int(batches["state_bytes"].max())}


def floor(spark, src: tuple, base: Path, per_trigger: int) -> dict:
    """The cheapest query on the same files through the same source and files per trigger: both
    streams read and counted per micro-batch, nothing joined or kept, micro-batches back to back
    as the native join runs them. Every join through this source at this trigger reads as much, so
    its rows per second bound both joins' (and the ratio floor / native bounds ours over native)."""
    work = tempfile.mkdtemp(dir=base)
    r, s = src[0].reader(spark, per_trigger), src[1].reader(spark, per_trigger)
    counts: list[int] = []
    started = time.perf_counter()
    query = (r.unionByName(s, allowMissingColumns=True).writeStream
             .foreachBatch(lambda df, _batch: counts.append(df.count()))
             .option("checkpointLocation", f"{work}/ck").trigger(processingTime="0 seconds").start())
    query.processAllAvailable()
    query.stop()
    seconds = time.perf_counter() - started
    if sum(counts) != 2 * LENGTH:
        raise SystemExit(f"the floor's query read {sum(counts):,} rows, not {2 * LENGTH:,}")
    return {"seconds": seconds, "rows_per_s": 2 * LENGTH / seconds, "batches": len(counts)}


def label(policy: str, shards: int) -> str:
    return f"{policy.upper()}, P = {shards}"


def _each(runs: list[dict]) -> str:
    """The runs' rows per second and seconds, in run order."""
    return "runs: " + ", ".join(f"{r['rows_per_s']:,.0f}/s in {r['seconds']:.1f} s" for r in runs)


def main() -> None:
    global LENGTH
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--triggers", default="1,4,40", help="files per trigger to measure")
    ap.add_argument("--stores", default="hdfs,rocksdb",
                    help="state stores of the native join (empty: the semantic join alone, e.g. to compare revisions)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each join per trigger size (medians reported)")
    ap.add_argument("--semantic-shards", default="1,2", help="shard counts P of the semantic join to time")
    ap.add_argument("--policies", default="prob",
                    help="shedding policies of the semantic join to time (e.g. prob,hazard: rows/s of each against the first)")
    ap.add_argument("--ranges", default="", help="time ranges 0..H to join instead of the window, H in steps "
                    "(seconds of event time), e.g. 60,600,3600")
    ap.add_argument("--memory", type=int, default=WINDOW, help="M of the semantic join (default w)")
    ap.add_argument("--length", type=int, default=LENGTH, help="tuples per stream (one per time step)")
    ap.add_argument("--floor", action="store_true",
                    help="also time the cheapest query on the same files and trigger (read and count, no join): "
                    "a bound on every join's rows/s through this source, so floor / native bounds our ratio")
    args = ap.parse_args()
    LENGTH = args.length  # the rows per second of both joins count these
    extents = [(0, int(h)) for h in args.ranges.split(",") if h] or [None]
    stores = [store for store in args.stores.split(",") if store]
    ours = [(policy, int(p)) for policy in args.policies.split(",") for p in args.semantic_shards.split(",")]
    base = Path(tempfile.mkdtemp(prefix="bench-stream-"))
    try:
        r_dir, s_dir = write_zipf_sources(f"zipf:1:{DOMAIN}", f"zipf:1:{DOMAIN}", base / "src", LENGTH, FILES, 0)
        src = (inspect_source(r_dir, "csv", "R"), inspect_source(s_dir, "csv", "S"))
        with spark_session("local[2]", "bench-stream-join") as spark:
            rows = source_rows(spark, StreamJob(src[0], src[1], base / "o", base / "c", JoinSpec(WINDOW, WINDOW)))
            exact = exact_count(source_workload(rows, WINDOW))
            print(f"2 x {LENGTH:,} tuples, domain {DOMAIN}, M = {args.memory}, {FILES} files per stream; "
                  f"EXACT with w = {WINDOW}: {exact:,}", flush=True)
            for policy in dict.fromkeys(policy for policy, _ in ours):  # warm-up: JVM, Python workers, numba cache
                semantic(spark, src, base, FILES, policy=policy, bounds=extents[0], memory=args.memory)
            for bounds, k in ((b, int(k)) for b in extents for k in args.triggers.split(",")):
                # the runs alternate (ours with each policy and P, then each native store) so that drift
                # hits all alike
                names = [label(policy, p) for policy, p in ours] + stores + (["floor"] if args.floor else [])
                runs: dict[str, list[dict]] = {name: [] for name in names}
                for _ in range(args.repeat):
                    for policy, p in ours:
                        runs[label(policy, p)].append(semantic(spark, src, base, k, shards=p, policy=policy,
                                                               bounds=bounds, memory=args.memory))
                    for store in stores:
                        runs[store].append(native(spark, src, base, k, store, bounds))
                    if args.floor:
                        runs["floor"].append(floor(spark, src, base, k))
                rate = {name: statistics.median(r["rows_per_s"] for r in rs) for name, rs in runs.items()}
                extent = f"w = {WINDOW}" if bounds is None else f"range {bounds[0]}..{bounds[1]}"
                if bounds is not None and stores:
                    exact = runs[stores[0]][-1]["outputs"]  # the native join is exact
                print(f"\n{extent}, {k} file(s) per trigger (medians of {args.repeat} alternating runs)", flush=True)
                for policy, p in ours:
                    name, first = label(policy, p), label(ours[0][0], p)
                    last = runs[name][-1]
                    versus = f", {rate[name] / rate[first]:.3f} of {first}'s rows/s" if name != first else ""
                    print(f"  semantic {name}: {rate[name]:,.0f} rows/s ({_each(runs[name])}; "
                          f"{last['batches']} batches){versus}, outputs {last['outputs']:,} ({last['outputs'] / exact:.3f} "
                          f"of EXACT); peak state {last['peak_memory']} tuples in memory + {last['peak_held']} held, "
                          f"{last['peak_state_bytes']:,} bytes", flush=True)
                    print(f"    query start to its first micro-batch: {statistics.median(r['start_s'] for r in runs[name]):.2f} s "
                          "(median); median ms per batch (last run): " + ", ".join(
                              f"{c} {v:.0f}" for c, v in last["median_batch_ms"].items()))
                for store in stores:
                    nat = runs[store][-1]
                    versus = ", ".join(f"{label(policy, p)} is {rate[label(policy, p)] / rate[store]:.1f}x"
                                       for policy, p in ours)
                    print(f"  native ({store}): {rate[store]:,.0f} rows/s ({_each(runs[store])}; "
                          f"{nat['batches']} batches), outputs {nat['outputs']:,}; peak state {nat['peak_state_rows']:,} "
                          f"rows, {nat['peak_state_bytes']:,} bytes; semantic {versus}", flush=True)
                if args.floor:
                    bound = ", ".join(f"{rate['floor'] / rate[store]:.1f}x the native join's ({store})" for store in stores)
                    print(f"  floor (read and count, no join): {rate['floor']:,.0f} rows/s ({_each(runs['floor'])}; "
                          f"{runs['floor'][-1]['batches']} batches){': at most ' + bound if bound else ''}", flush=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
