"""The streaming job behind ``shed stream-join``: file sources, exactly-once sinks, a checkpoint.

Two directories of CSV or Parquet files (``time,key[,payload...]``, one directory per stream) are read
as streams, joined by :func:`~shedding.streaming.spark_join.semantic_window_join` and written per
micro-batch to two tables, ``OUT/pairs/batch=N`` and ``OUT/metrics/batch=N``, one Parquet file per
shard in each, written by the shard's task (the query's own sink is ``noop``). A file is replaced
whole: a batch replayed after a crash (Spark replays the last uncommitted batch from its offset
log, on the state of the batch before) writes the same rows to the same files, so every batch is
written exactly once. The parameters are stored beside the checkpoint and a run with other ones
is refused, leaving the checkpoint intact.

End of input: with the ``available-now`` and ``once`` triggers the input is bounded. The query runs
micro-batches back to back; the job drops a marker file into ``CHECKPOINT/end-of-input`` (a third,
tiny file source) so that it arrives with the last data files (see :func:`_marker_after`), or,
when that cannot be told ahead, once the query has drained the sources. The micro-batch that
takes the marker joins every held step, and the job stops the query after that batch is
committed. So a bounded input gives exactly the batch result, in one query.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time as _time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from shedding.datasets.files import FORMATS
from shedding.errors import ShedError
from shedding.streaming.shard import JoinSpec

PAIRS, METRIC_TABLE, PARAMS, END_DIR = "pairs", "metrics", "shedding-job.json", "end-of-input"
BATCH_PLAN = "batches.json"  # in the checkpoint: see _marker_after


# ---------------------------------------------------------------------------- triggers


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


# ---------------------------------------------------------------------------- sources


@dataclass(frozen=True)
class StreamSource:
    """One input directory: its format and columns (as in its first file)."""

    path: Path
    fmt: str
    columns: tuple[str, ...]
    ddl: str  # the reader's schema

    def reader(self, spark, max_files: int | None):
        read = spark.readStream.schema(self.ddl)
        if max_files is not None:
            read = read.option("maxFilesPerTrigger", max_files)
        if self.fmt == "csv":
            return read.option("header", True).option("mode", "PERMISSIVE").csv(str(self.path))
        return read.parquet(str(self.path))


def source_files(path: Path, fmt: str) -> list[Path]:
    """The files of format ``fmt`` in a source directory, by name."""
    exts = [e for e, f in FORMATS.items() if f == fmt]
    return sorted(p for p in path.iterdir() if p.is_file() and any(p.name.lower().endswith(e) for e in exts))


def inspect_source(path: Path, fmt: str | None, what: str) -> StreamSource:
    """Check one source directory up front: it exists, holds files, has time and key columns, and
    its first file's times and keys are integers (later garbage rows are counted and skipped)."""
    if not path.exists():
        raise ShedError(f"source directory not found: {path}; give the directory the {what} files arrive in")
    if not path.is_dir():
        raise ShedError(f"{path} is not a directory; --r and --s take a directory of CSV or Parquet files")
    if fmt is None:
        found = {f for e, f in FORMATS.items() for p in path.iterdir() if p.name.lower().endswith(e)}
        if len(found) != 1:
            raise ShedError(f"cannot tell the format of {path} ({'mixed files' if found else 'no .csv or .parquet files'}); "
                            "add --format csv or parquet")
        fmt = found.pop()
    if fmt not in ("csv", "parquet"):
        raise ShedError(f"unknown --format {fmt!r}; choose csv or parquet")
    files = source_files(path, fmt)
    if not files:
        raise ShedError(f"no {fmt} files in {path} yet; the first file fixes the columns, so add one before starting")
    first = files[0]
    try:
        if fmt == "csv":
            sample = pd.read_csv(first, dtype=str, nrows=1000)
            columns, types = [str(c) for c in sample.columns], None
        else:
            import pyarrow.parquet as pq

            schema = pq.read_schema(first)
            columns, types = list(schema.names), {f.name: f.type for f in schema}
    except Exception as exc:  # pandas/pyarrow raise many types for corrupt files
        raise ShedError(f"cannot read {first} as {fmt} ({' '.join(str(exc).split())[:150]}); fix or remove it") from None
    lower = {c.strip().lower(): c for c in columns}
    missing = [c for c in ("time", "key") if c not in lower]
    if missing:
        raise ShedError(f"{what} file {first.name} lacks column {', '.join(missing)} (it has "
                        f"{', '.join(columns) or 'none'}); sources need time,key[,payload...]")
    for col in ("time", "key"):
        if types is not None:
            import pyarrow as pa

            if not pa.types.is_integer(types[lower[col]]):
                raise ShedError(f"{what} column {col} in {first.name} has type {types[lower[col]]}; "
                                f"{col}s must be integers")
            continue
        text = sample[lower[col]].dropna().astype(str).str.strip()
        if len(text) and not text.str.fullmatch(r"[+-]?\d+").any():
            raise ShedError(f"{what} column {col} in {first.name} holds no integers (first value {text.iloc[0]!r}); "
                            f"{col}s must be integers")
    if types is None:
        ddl = ", ".join(f"`{c}` string" for c in columns)
    else:
        from pyspark.sql.pandas.types import from_arrow_type

        ddl = ", ".join(f"`{name}` {from_arrow_type(t).simpleString()}" for name, t in types.items())
    return StreamSource(path, fmt, tuple(columns), ddl)


def write_zipf_sources(text_r: str, text_s: str, folder: Path, length: int, files: int, seed: int) -> tuple[Path, Path]:
    """``zipf:SKEW:DOMAIN`` for both streams: two tuple-synchronous Zipf streams (the paper's §4
    workload, one R and one S tuple per time step) written as ``files`` CSV files per stream."""
    from shedding.datasets.zipf import zipf_workload

    parsed = []
    for text in (text_r, text_s):
        m = re.fullmatch(r"zipf:([0-9.]+):(\d+)", text.strip().lower())
        if not m:
            raise ShedError(f"synthetic source {text!r} is not zipf:SKEW:DOMAIN (e.g. zipf:1.0:650)")
        parsed.append((float(m.group(1)), int(m.group(2))))
    if parsed[0][1] != parsed[1][1]:
        raise ShedError("synthetic R and S need the same domain (zipf:SKEW:DOMAIN); the skews may differ")
    if files < 1 or length < 1:
        raise ShedError(f"--length and --files must be >= 1, got {length} and {files}")
    wl = zipf_workload(parsed[0][0], parsed[0][1], length, seed, "independent", 1, 0, skew_s=parsed[1][0])
    paths = []
    for side, name in ((0, "r"), (1, "s")):
        d = folder / name
        d.mkdir(parents=True, exist_ok=True)
        times, keys = wl.stream(side)
        for i, idx in enumerate(np.array_split(np.arange(len(times)), files)):
            target = d / f"part-{i:05d}.csv"
            if not target.exists():  # a restart finds the same files
                pd.DataFrame({"time": times[idx], "key": keys[idx]}).to_csv(target, index=False)
                os.utime(target, (1_000_000 + i, 1_000_000 + i))  # the file source reads in this order
        paths.append(d)
    return paths[0], paths[1]


# ---------------------------------------------------------------------------- the job


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


def _check_params(job: StreamJob) -> None:
    """Refuse a checkpoint or output folder made with other parameters; record them on a first start."""
    for folder, what in ((job.checkpoint, "--checkpoint"), (job.out, "--out")):
        stored = folder / PARAMS
        if stored.exists():
            old = json.loads(stored.read_text())
            diff = _differences(old, job.params)
            if diff:
                raise ShedError(f"{what} {folder} was made by a run with other parameters ({'; '.join(diff[:3])}); "
                                f"use a new {what} or the same parameters")
        elif any((folder / part).exists() for part in (PAIRS, METRIC_TABLE, "spark")):
            raise ShedError(f"{what} {folder} holds results of another job; give a new folder")
    for folder in (job.checkpoint, job.out):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / PARAMS).write_text(json.dumps(job.params, indent=1, sort_keys=True))


def _differences(old: dict, new: dict, prefix: str = "") -> list[str]:
    out = []
    for k in sorted(set(old) | set(new)):
        a, b = old.get(k), new.get(k)
        if isinstance(a, dict) and isinstance(b, dict):
            out += _differences(a, b, f"{prefix}{k}.")
        elif a != b:
            out.append(f"{prefix}{k} was {a!r}, now {b!r}")
    return out


def tune_file_sources(spark) -> None:
    """List a micro-batch's files on the driver: beyond 32 paths Spark otherwise runs a distributed
    listing job per source and micro-batch, which costs more than the listing (1 to 2 s for 40
    local files on two cores)."""
    spark.conf.set("spark.sql.sources.parallelPartitionDiscovery.threshold", "100000")


#: the checkpoint's file manager. Spark's default goes through Hadoop's FileContext, whose rename on
#: the local file system starts a ``readlink`` process per renamed file and per checksum file (80
#: processes of 3-4 ms each in a one-batch run of ``bench_stream_join``, as a pip-installed pyspark
#: has no Hadoop native library); the FileSystem one renames with one system call. Both rename
#: atomically on a local or HDFS checkpoint.
CHECKPOINT_FILES = "org.apache.spark.sql.execution.streaming.checkpointing.FileSystemBasedCheckpointFileManager"


def tune_checkpoint(spark) -> None:
    """Write the checkpoint (offsets, commits, state) through :data:`CHECKPOINT_FILES`."""
    spark.conf.set("spark.sql.streaming.checkpointFileManagerClass", CHECKPOINT_FILES)


def _static_table(spark, job: StreamJob):
    """The static frequency table: a given file, or counted once from the files present at the first
    start and kept in the checkpoint (a restart must use the same table)."""
    from shedding.streaming.spark_join import load_frequency_table

    if job.estimator not in ("online", "static"):
        return load_frequency_table(job.estimator)
    if job.estimator == "online":
        return "online"
    kept = job.checkpoint / "frequencies.parquet"
    if not kept.exists():
        from pyspark.sql import functions as F

        def counts(src: StreamSource, name: str):
            df = spark.read.schema(src.ddl)
            df = df.option("header", True).csv(str(src.path)) if src.fmt == "csv" else df.parquet(str(src.path))
            key = F.trim(F.col(next(c for c in src.columns if c.strip().lower() == "key")).cast("string"))
            return df.select(key.try_cast("long").alias("key")).dropna().groupBy("key").agg(F.count("*").alias(name))

        table = counts(job.r, "count_r").join(counts(job.s, "count_s"), "key", "outer").fillna(0).toPandas()
        table.sort_values("key").to_parquet(kept, index=False)
    return load_frequency_table(str(kept))


def _query_error(exc: Exception) -> ShedError:
    """A failed query as one line: our own ShedError from the handler if there is one."""
    text = str(exc)
    m = re.search(r"ShedError: ([^\n]+)", text)
    if m:
        return ShedError(m.group(1).strip())
    first = next((line.strip() for line in text.splitlines() if line.strip()), type(exc).__name__)
    return ShedError(f"the streaming query failed: {first[:300]}; the checkpoint is kept, fix the cause and rerun")


#: seconds between two looks at a running query: the end of a bounded run is noticed this late at most
POLL_SECONDS = 0.05


def _await(query, progress: Callable[[dict], None] | None, end_dir: Path | None = None,
           ahead: Path | None = None) -> list[dict]:
    """Wait for the query's end (for a bounded input, :func:`_drain` ends it, dropping the
    end-of-input marker once ``ahead`` exists, see :func:`_marker_after`); returns its recent
    progress reports. The waiting runs in a helper thread, so that Ctrl-C reaches this thread
    outside py4j (an interrupt inside a py4j call prints pages of tracebacks): it stops the query
    and ends with one line."""
    box: dict = {}

    def watch() -> None:
        try:
            seen = None  # the last progress report looked at
            while not query.awaitTermination(POLL_SECONDS):
                last = query.lastProgress  # one py4j call per look, not a scan of every report
                if last is not None and seen is not None and _same(last, seen):
                    last = None  # nothing new
                if last is not None and progress is not None:
                    progress(last)
                if end_dir is not None and _drain(query, end_dir, last, seen, ahead):
                    query.stop()
                    break
                seen = last or seen
            box["progress"] = list(query.recentProgress)
        except BaseException as exc:  # handed to the waiting thread
            box["error"] = exc

    watcher = threading.Thread(target=watch, name="shed-stream-join", daemon=True)
    watcher.start()
    try:
        while watcher.is_alive():
            watcher.join(0.5)
    except KeyboardInterrupt:
        query.stop()
        watcher.join(60)
        raise ShedError("interrupted; the committed micro-batches are kept, run the same command to continue") \
            from None
    if "error" in box:
        from pyspark.errors import StreamingQueryException

        if isinstance(box["error"], StreamingQueryException):
            raise _query_error(box["error"]) from None
        raise box["error"]
    return box["progress"]


def run(job: StreamJob, progress: Callable[[dict], None] | None = None, report: bool = False) -> dict:
    """Run the job on its own Spark session and return its summary; with ``report`` (bounded
    triggers only) also write ``OUT/report.html`` (see :mod:`~shedding.streaming.report`)."""
    from shedding.spark import spark_session

    if report and not parse_trigger(job.trigger)[1]:
        raise ShedError("--report needs a bounded input: use --trigger available-now or once")
    _check_params(job)
    started = _time.perf_counter()
    with spark_session(job.master, "shed stream-join", jvm_log=job.checkpoint / "spark.log") as spark:
        queried = _time.perf_counter()
        table = _query(spark, job, progress)
        summary = summarize(job.out) | {"seconds": round(_time.perf_counter() - started, 2),
                                        "query_seconds": round(_time.perf_counter() - queried, 2)}
        if report:
            from shedding.streaming.report import stream_report

            summary["report"] = str(stream_report(spark, job, summary, None if table == "online" else table))
    return summary


def run_on(spark, job: StreamJob, progress: Callable[[dict], None] | None = None,
           trace: dict | None = None) -> dict:
    """Run the job on an existing Spark session (which stays open) and return its summary. A
    ``trace`` dict receives the query's progress reports."""
    _check_params(job)
    _query(spark, job, progress, trace)
    return summarize(job.out)


def _query(spark, job: StreamJob, progress: Callable[[dict], None] | None, trace: dict | None = None):
    """The job's query. A bounded input ends with the end-of-input marker (see :func:`_drain`).
    Returns the estimator it used (``online`` or the static table)."""
    from shedding.streaming.spark_join import configure_session, metric, semantic_window_join

    trigger, bounded = parse_trigger(job.trigger)
    trace = {} if trace is None else trace
    trace.update(progress=[])
    configure_session(spark, job.spec.shards)
    tune_file_sources(spark)
    tune_checkpoint(spark)
    estimator = _static_table(spark, job)
    if bounded and summarize(job.out).get("ended"):
        return estimator  # this job's input already ended: nothing more to join
    end_dir = job.checkpoint / END_DIR
    end_dir.mkdir(exist_ok=True)
    spec = job.spec
    max_files = None if job.trigger.strip().lower() == "once" else job.max_files_per_trigger
    files = _file_counts(job)
    ahead = _marker_after(job, max_files, files)  # before _one_batch's marker: it records the first start
    if bounded and _one_batch(job, max_files, files):
        _drop_marker(end_dir)
    joined = semantic_window_join(
        job.r.reader(spark, max_files), job.s.reader(spark, max_files),
        window=spec.window, memory=spec.memory, shedding=spec.shedding, memory_split=spec.memory_split,
        estimator=estimator, shards=spec.shards, payload={"r": spec.payload_r, "s": spec.payload_s}, seed=spec.seed,
        warmup=spec.warmup, decay=spec.decay, strict=spec.strict,
        end_of_input=spark.readStream.format("text").load(str(end_dir)), with_metrics=True,
        metrics_dir=job.out / METRIC_TABLE, pairs_dir=job.out / PAIRS)
    totals = ("arrivals", "outputs", "shed", "late", "bad", "ended")
    observed = joined.observe("shedding", *[metric(m, total=True) for m in totals])
    query = (observed.writeStream.queryName("shed_stream_join").format("noop")
             .option("checkpointLocation", str(job.checkpoint / "spark")).trigger(**trigger).start())
    trace["progress"] += _await(query, progress, end_dir if bounded else None, ahead if bounded else None)
    return estimator


def observed(progress) -> dict:
    """The ``shedding`` totals a progress report carries (observedMetrics), as a dict of numbers."""
    row = (progress["observedMetrics"] or {}).get("shedding")
    return {} if row is None else {k: v or 0 for k, v in row.asDict().items()}


def _same(a, b) -> bool:
    """Whether two progress reports are the same one."""
    return (a["batchId"], a["timestamp"]) == (b["batchId"], b["timestamp"])


def _drain(query, end_dir: Path, last: dict | None, seen: dict | None, ahead: Path | None = None) -> bool:
    """One look at a bounded query: once ``ahead`` exists (:func:`_marker_after`) or the sources
    are drained (the last check found no new data and no micro-batch runs), drop the end-of-input
    marker; returns True once a committed micro-batch has joined it (its progress reports
    ``ended``). ``last`` is the newest progress report if it is new since the look before, which
    saw ``seen``; the older reports are read only when more than one batch ran in between."""
    if last is not None:
        skipped = seen is None or last["batchId"] > seen["batchId"] + 1
        reports = query.recentProgress if skipped else [last]
        if any(observed(p).get("ended", 0) > 0 for p in reports):
            return True
    if ahead is not None and ahead.exists():
        _drop_marker(end_dir)
        return False
    status = query.status
    if (last or seen) is not None and not status["isDataAvailable"] and not status["isTriggerActive"]:
        _drop_marker(end_dir)
    return False


def _write_whole(target: Path, text: str, tmp: Path) -> None:
    """Write ``text`` to ``target`` whole or not at all: to ``tmp`` first (a path on the same
    disk that no reader lists), then a rename."""
    tmp.write_text(text)
    os.replace(tmp, target)


def _drop_marker(end_dir: Path) -> None:
    """Write the end-of-input marker, whole or not at all when the file source lists it."""
    marker = end_dir / "end.txt"
    if not marker.exists():
        _write_whole(marker, "end of input\n", end_dir.parent / "end.txt.tmp")


def _file_counts(job: StreamJob) -> list[int]:
    """How many files the R and the S source directory hold now."""
    return [len(source_files(src.path, src.fmt)) for src in (job.r, job.s)]


def _one_batch(job: StreamJob, max_files: int | None, files: list[int]) -> bool:
    """Whether a fresh query's first micro-batch takes every file present (``files``, see
    :func:`_file_counts`): then the end-of-input marker goes in with it and the bounded run is one
    micro-batch, not two. (A file written after this look and not taken by that batch arrives after
    the end: counted as late, like any file written after the end of a bounded run.)"""
    if any((job.checkpoint / "spark" / "commits").glob("[0-9]*")):
        return False
    return max_files is None or max_files >= max(files)


def _marker_after(job: StreamJob, max_files: int | None, files: list[int]) -> Path | None:
    """The offset-log entry after which the end-of-input marker joins the last data files, or None.

    With ``max_files`` k, the file sources take the next k files of each stream (in modification
    time order) into every micro-batch, and this query runs no micro-batch without data (it has no
    watermark and no timers). So D = ceil(max(F_R, F_S) / k) micro-batches take the F_R and F_S
    files present at the first start, batch b the files b k to (b + 1) k - 1, restarts included.
    Once Spark has written the offsets of batch D - 2, every file left goes into batch D - 1: a
    marker dropped then arrives with them, and the end costs no micro-batch of its own (when Spark
    has already planned batch D - 1, the marker arrives one batch later, as without this).

    The first start records k and the file counts (``files``, see :func:`_file_counts`) in
    ``CHECKPOINT/batches.json``; a restart with another k or other files gets None (the marker then
    waits for the drained sources). Files written after the start arrive after the end and are
    late, as in :func:`_one_batch`."""
    plan = {"max_files_per_trigger": max_files, "files": files}
    kept = job.checkpoint / BATCH_PLAN
    if not any((job.checkpoint / "spark" / "offsets").glob("[0-9]*")):  # a first start
        _write_whole(kept, json.dumps(plan), kept.with_name(f".{BATCH_PLAN}.tmp"))
    try:
        first = json.loads(kept.read_text())
    except (OSError, ValueError):  # no plan (a checkpoint from before it) or an unreadable one
        return None
    if max_files is None or first != plan:
        return None
    batches = -(-max(plan["files"]) // max_files)
    return job.checkpoint / "spark" / "offsets" / str(batches - 2) if batches >= 2 else None


# ---------------------------------------------------------------------------- results


def read_table(out: Path, name: str) -> pd.DataFrame:
    """All batches of ``OUT/pairs`` or ``OUT/metrics`` with an integer ``batch`` column."""
    folder = out / name
    if not folder.exists() or not any(folder.iterdir()):
        return pd.DataFrame()
    frame = pd.read_parquet(folder)
    frame["batch"] = frame["batch"].astype(np.int64)
    return frame


def summarize(out: Path) -> dict:
    """Totals over every batch and shard, and the peaks of memory, held tuples and state size."""
    m = read_table(out, METRIC_TABLE)
    summary = {"out": str(out), "pairs": str(out / PAIRS), "metrics": str(out / METRIC_TABLE)}
    if m.empty:
        return summary | {"batches": 0} | dict.fromkeys(("arrivals", "outputs", "shed", "late", "bad", "ended"), 0)
    per_batch = m.assign(memory=m["memory_r"] + m["memory_s"]).groupby("batch")[["memory", "held", "state_bytes"]].sum()
    totals = {k: int(m[k].sum()) for k in ("arrivals", "outputs", "shed", "late", "bad", "ended")}
    return summary | {"batches": int(m["batch"].nunique())} | totals | {
        "peak_memory": int(per_batch["memory"].max()), "peak_held": int(per_batch["held"].max()),
        "peak_state_bytes": int(per_batch["state_bytes"].max())}
