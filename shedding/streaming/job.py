"""The streaming job behind ``shed stream-join``: file sources, exactly-once sinks, a checkpoint.

Two directories of CSV or Parquet files (``time,key[,payload...]``, one directory per stream, see
:mod:`~shedding.streaming.sources`) are read as streams, joined by
:func:`~shedding.streaming.spark_join.semantic_window_join` and written per micro-batch to two
tables, ``OUT/pairs/batch=N`` and ``OUT/metrics/batch=N``, one Parquet file per shard in each,
written by the shard's task (the query's own sink is ``noop``). A file is replaced whole: a batch
replayed after a crash (Spark replays the last uncommitted batch from its offset log, on the state
of the batch before) writes the same rows to the same files, so every batch is written exactly
once (:mod:`~shedding.streaming.results` reads them). The parameters are stored beside the
checkpoint and a run with other ones is refused, leaving the checkpoint intact. A bounded input
ends as :mod:`~shedding.streaming.end_of_input` describes.
"""

from __future__ import annotations

import json
import re
import time as _time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from shedding.errors import ShedError
from shedding.online.estimators import StaticEstimator
from shedding.streaming.end_of_input import (END_DIR, await_query, drop_marker, file_counts, marker_after,
                                             one_batch)
from shedding.streaming.results import METRIC_TABLE, PAIRS, TOTALS, summarize
from shedding.streaming.shard import JoinSpec
from shedding.streaming.sources import StreamSource
from shedding.streaming.tuning import tune_checkpoint, tune_file_sources

PARAMS = "shedding-job.json"  # beside the checkpoint and the output: the parameters they were made with


def parse_trigger(text: str) -> tuple[dict, bool]:
    """``available-now``, ``once`` or ``interval:SECONDS`` as writeStream.trigger keywords, and
    whether the input is bounded. A bounded input runs back to back (``processingTime`` 0) until the
    sources are drained, then the end-of-input marker is dropped and joined in one more micro-batch
    of the same query (``once`` takes all files in the first micro-batch)."""
    t = text.strip().lower()
    if t in ("available-now", "availablenow", "once"):
        return {"processingTime": "0 seconds"}, True
    m = re.fullmatch(r"interval:(\d+(?:\.\d+)?)", t)
    if m and float(m.group(1)) > 0:
        return {"processingTime": f"{float(m.group(1))} seconds"}, False
    raise ShedError(f"unknown --trigger {text!r}; use available-now, once or interval:SECONDS (e.g. interval:5)")


@dataclass
class StreamJob:
    """Everything ``shed stream-join`` runs with."""

    r: StreamSource
    s: StreamSource
    out: Path
    checkpoint: Path
    spec: JoinSpec
    estimator: str = "online"  # online, static (from the files present at the first start) or a table path
    trigger: str = "available-now"
    max_files_per_trigger: int | None = None
    master: str = "local[*]"
    params: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        parse_trigger(self.trigger)
        self.params = {"spec": self.spec.as_dict(), "r": str(self.r.path.resolve()), "s": str(self.s.path.resolve()),
                       "format": [self.r.fmt, self.s.fmt], "estimator": self.estimator}


def check_params(job: StreamJob) -> None:
    """Refuse a checkpoint or output folder made with other parameters; record them on a first start."""
    for folder, what in ((job.checkpoint, "--checkpoint"), (job.out, "--out")):
        stored = folder / PARAMS
        if stored.exists():
            old = json.loads(stored.read_text())
            diff = differences(old, job.params)
            if diff:
                raise ShedError(f"{what} {folder} was made by a run with other parameters ({'; '.join(diff[:3])}); "
                                f"use a new {what} or the same parameters")
        elif any((folder / part).exists() for part in (PAIRS, METRIC_TABLE, "spark")):
            raise ShedError(f"{what} {folder} holds results of another job; give a new folder")
    for folder in (job.checkpoint, job.out):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / PARAMS).write_text(json.dumps(job.params, indent=1, sort_keys=True))


def differences(old: dict, new: dict, prefix: str = "") -> list[str]:
    """``name was A, now B`` for every parameter that differs (nested dicts by dotted name)."""
    out = []
    for k in sorted(set(old) | set(new)):
        a, b = old.get(k), new.get(k)
        if isinstance(a, dict) and isinstance(b, dict):
            out += differences(a, b, f"{prefix}{k}.")
        elif a != b:
            out.append(f"{prefix}{k} was {a!r}, now {b!r}")
    return out


def frequency_table(spark, job: StreamJob) -> str | StaticEstimator:
    """The job's estimator: ``online``, a given table file, or the static table counted from the
    files present at the first start and kept in the checkpoint (a restart must use the same one)."""
    from shedding.streaming.frequencies import counted_table, load_frequency_table

    if job.estimator == "online":
        return "online"
    if job.estimator == "static":
        return counted_table(spark, job.r, job.s, job.checkpoint / "frequencies.parquet")
    return load_frequency_table(job.estimator)


def run(job: StreamJob, progress: Callable[[dict], None] | None = None,
        after: Callable[[object, dict, str | StaticEstimator], dict] | None = None) -> dict:
    """Run the job on its own Spark session and return its summary. ``after(spark, summary,
    estimator)``, if given, runs on that session once the query has ended; the entries it returns
    are added to the summary (the command writes its report so)."""
    from shedding.spark import spark_session

    check_params(job)
    started = _time.perf_counter()
    with spark_session(job.master, "shed stream-join", jvm_log=job.checkpoint / "spark.log") as spark:
        queried = _time.perf_counter()
        table = query(spark, job, progress)
        summary = summarize(job.out) | {"seconds": round(_time.perf_counter() - started, 2),
                                        "query_seconds": round(_time.perf_counter() - queried, 2)}
        if after is not None:
            summary |= after(spark, summary, table)
    return summary


def run_on(spark, job: StreamJob, progress: Callable[[dict], None] | None = None,
           trace: dict | None = None) -> dict:
    """Run the job on an existing Spark session (which stays open) and return its summary. A
    ``trace`` dict receives the query's progress reports."""
    check_params(job)
    query(spark, job, progress, trace)
    return summarize(job.out)


def query(spark, job: StreamJob, progress: Callable[[dict], None] | None,
          trace: dict | None = None) -> str | StaticEstimator:
    """Run the job's query to its end. A bounded input ends with the end-of-input marker (see
    :func:`~shedding.streaming.end_of_input.drain`). Returns the estimator it used (``online`` or
    the static table)."""
    from shedding.streaming.spark_join import configure_session, metric, semantic_window_join

    trigger, bounded = parse_trigger(job.trigger)
    trace = {} if trace is None else trace
    trace.update(progress=[])
    configure_session(spark, job.spec.shards)
    tune_file_sources(spark)
    tune_checkpoint(spark)
    estimator = frequency_table(spark, job)
    if bounded and summarize(job.out).get("ended"):
        return estimator  # this job's input already ended: nothing more to join
    end_dir = job.checkpoint / END_DIR
    end_dir.mkdir(exist_ok=True)
    spec = job.spec
    max_files = None if job.trigger.strip().lower() == "once" else job.max_files_per_trigger
    files = file_counts((job.r, job.s))
    ahead = marker_after(job.checkpoint, max_files, files)  # before one_batch's marker: it records the first start
    if bounded and one_batch(job.checkpoint, max_files, files):
        drop_marker(end_dir)
    joined = semantic_window_join(
        job.r.reader(spark, max_files), job.s.reader(spark, max_files),
        window=spec.window, memory=spec.memory, shedding=spec.shedding, memory_split=spec.memory_split,
        estimator=estimator, shards=spec.shards, payload={"r": spec.payload_r, "s": spec.payload_s}, seed=spec.seed,
        warmup=spec.warmup, decay=spec.decay, strict=spec.strict,
        end_of_input=spark.readStream.format("text").load(str(end_dir)), with_metrics=True,
        metrics_dir=job.out / METRIC_TABLE, pairs_dir=job.out / PAIRS)
    observed = joined.observe("shedding", *[metric(m, total=True) for m in TOTALS])
    running = (observed.writeStream.queryName("shed_stream_join").format("noop")
               .option("checkpointLocation", str(job.checkpoint / "spark")).trigger(**trigger).start())
    trace["progress"] += await_query(running, progress, end_dir if bounded else None, ahead if bounded else None)
    return estimator
