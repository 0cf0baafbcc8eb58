"""Spark's own stream-stream join, configured to compute the exact window join (the baseline).

Both inputs get an event-time watermark on ``timestamp_seconds(time)`` and the join condition
bounds the two times by w - 1 (or by a time range lo <= s.time - r.time <= hi) (docs/semantics.md: r(a) and s(b) pair iff |a - b| <= w - 1), so Spark can
drop state once the watermark passes a tuple's window. With in-order inputs and a watermark delay of
0 nothing is late and the result is EXACT; its state is every tuple still in the window (about 2w
tuples per key range with one tuple per stream per step, in general the peak of the live tuples,
:func:`shedding.exact.exact_memory`), never capped.
"""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from shedding.model import check_window

from shedding.timerange import check_range

#: options of each micro-batch's pairs write (Hadoop's file output committer). With algorithm 2 a
#: task moves its finished file straight into the batch's folder, instead of the job moving every
#: task's folder over after the last task, and no ``_SUCCESS`` file is written (1.18x faster at 4
#: files per trigger when the semantic join wrote its pairs this way, README "Speed and memory").
PAIRS_WRITE = {"mapreduce.fileoutputcommitter.algorithm.version": "2",
               "mapreduce.fileoutputcommitter.marksuccessfuljobs": "false"}


def native_window_join(r: DataFrame, s: DataFrame, window: int | None, *, key: str = "key", time: str = "time",
                       delay: int = 0, bounds: tuple[int, int] | None = None) -> DataFrame:
    """Pairs (key, r_time, s_time) of Spark's stream-stream inner join over the window, or with
    ``bounds`` (lo, hi) over the time range lo <= s.time - r.time <= hi (``window`` unused)."""
    lo, hi = (-(check_window(window) - 1), check_window(window) - 1) if bounds is None else check_range(bounds)

    def side(df: DataFrame, name: str) -> DataFrame:
        return (df.select(F.col(key).cast("long").alias(f"{name}_key"), F.col(time).cast("long").alias(f"{name}_time"))
                .dropna()
                # Spark takes an event at exactly the watermark as late, and the first batch's
                # watermark is the epoch: time step t is second t + 1, so time 0 is not dropped
                .withColumn(f"{name}_ts", F.timestamp_seconds(F.col(f"{name}_time") + 1))
                .withWatermark(f"{name}_ts", f"{int(delay)} seconds"))

    a, b = side(r, "r"), side(s, "s")
    cond = ((a.r_key == b.s_key) & (b.s_ts >= a.r_ts + F.expr(f"INTERVAL '{lo}' SECOND"))
            & (b.s_ts <= a.r_ts + F.expr(f"INTERVAL '{hi}' SECOND")))
    return a.join(b, cond, "inner").select(a.r_key.alias("key"), "r_time", "s_time")


def run_native(spark, r: DataFrame, s: DataFrame, window: int | None, checkpoint: str, *, provider: str = "hdfs",
               out: str | None = None, bounds: tuple[int, int] | None = None) -> dict:
    """Run the native join to the end of its (bounded) input: micro-batches back to back, each taking
    the sources' files per trigger, until they are drained.

    ``provider`` is the state store: ``hdfs`` (Spark's default) or ``rocksdb``. With ``out`` each
    micro-batch's pairs are written as ``out/batch=N`` (Parquet, overwrite, with the
    :data:`PAIRS_WRITE` options). ``bounds``: a time range instead of the window
    (:func:`native_window_join`).
    Returns the pair count, the wall time and per micro-batch: input rows, state rows and bytes,
    and durations.
    """
    import time

    from shedding.streaming.spark_join import ROCKSDB

    key = "spark.sql.streaming.stateStore.providerClass"
    before = spark.conf.get(key, None)
    hdfs = "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider"
    spark.conf.set(key, ROCKSDB if provider == "rocksdb" else hdfs)
    counts: list[int] = []
    started = time.perf_counter()
    try:
        def sink(df: DataFrame, batch_id: int) -> None:
            if out is None:
                counts.append(df.count())
                return
            df.persist()
            counts.append(df.count())
            df.write.options(**PAIRS_WRITE).mode("overwrite").parquet(f"{out}/batch={batch_id}")
            df.unpersist()

        # back-to-back micro-batches until the sources are drained, not availableNow: under that
        # trigger Spark asks a Python data source for everything at once, so the native join took
        # every file in one micro-batch whatever the files per trigger, where ours took them k at a time
        query = (native_window_join(r, s, window, bounds=bounds).writeStream
                 .foreachBatch(sink)
                 .option("checkpointLocation", checkpoint).trigger(processingTime="0 seconds").start())
        query.processAllAvailable()
        query.stop()
        seconds = time.perf_counter() - started
        batches = [{"batch": p["batchId"], "rows": p["numInputRows"],
                    "state_rows": sum(o["numRowsTotal"] for o in p["stateOperators"]),
                    "state_bytes": sum(o["memoryUsedBytes"] for o in p["stateOperators"]),
                    "ms": p["durationMs"]} for p in query.recentProgress]
    finally:
        if before is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, before)
    return {"outputs": sum(counts), "seconds": seconds, "batches": batches}
