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
import threading
import time as _time
from contextlib import contextmanager
from dataclasses import KW_ONLY, dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterator

from shedding.atomic import write_json
from shedding.errors import ShedError
from shedding.online.estimators import StaticEstimator
from shedding.online.groups import AUTO_HISTORY
from shedding.streaming.end_of_input import (END_DIR, await_query, drop_marker, file_counts, marker_after,
                                             one_batch)
from shedding.streaming.recorded import skipped_files
from shedding.streaming.results import METRIC_TABLE, PAIRS, summarize
from shedding.streaming.shard import STATE_LAYOUT, JoinSpec, check_layout
from shedding.streaming.sources import StreamSource, inspect_source
from shedding.streaming.tuning import tune_checkpoint, tune_file_sources

PARAMS = "shedding-job.json"  # beside the checkpoint and the output: the parameters they were made with
SOURCES = "sources.json"  # in the checkpoint: the sources as the first start inspected them


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
    raise ShedError(f"unknown {{param}} {text!r}; use available-now, once or interval:SECONDS (e.g. interval:5)",
                    param="trigger")


@dataclass
class StreamJob:
    """Everything ``shed stream-join`` runs with."""

    r: StreamSource
    s: StreamSource
    out: Path
    checkpoint: Path
    spec: JoinSpec
    _: KW_ONLY  # the rest by name: a swap of two of them would not fail
    estimator: str = "online"  # online, static (from the files present at the first start) or a table path
    trigger: str = "available-now"
    max_files_per_trigger: int | None = None
    master: str = "local[*]"
    key: tuple[str, ...] = ("key",)
    time: str = "time"
    step: int | str | None = None  # the time step (see shedding.streaming.event_time); the spec counts steps
    ui: bool = False  # keep Spark's web UI
    remote: str | None = None  # a Spark Connect URL instead of the master
    params: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        parse_trigger(self.trigger)
        self.params = {"spec": self.spec.as_dict(), "r": str(self.r.path.resolve()), "s": str(self.s.path.resolve()),
                       "format": [self.r.fmt, self.s.fmt], "estimator": self.estimator, "key": list(self.key),
                       "time": self.time, "step": self.step, "state_layout": STATE_LAYOUT}


def placed(job: StreamJob, place: str) -> StreamJob:
    """``job`` with every folder (sources, output, checkpoint) as a path the executors of ``place``
    (a master) share: ``file:`` URIs and relative paths resolved, a relative path refused on a
    cluster (:func:`~shedding.streaming.paths.library_path`)."""
    from shedding.streaming.paths import library_path

    return replace(job, r=replace(job.r, path=library_path(job.r.path, place, "r")),
                   s=replace(job.s, path=library_path(job.s.path, place, "s")),
                   out=library_path(job.out, place, "out"), checkpoint=library_path(job.checkpoint, place, "checkpoint"))


def job_sources(checkpoint: Path, r: Path, s: Path, fmt: str | None, key: tuple[str, ...] = ("key",),
                time: str = "time") -> tuple[StreamSource, StreamSource]:
    """The two sources: as the first start of this checkpoint found them (a restart reads no file,
    so a file the stream already took cannot block it), or inspected now
    (:func:`~shedding.streaming.sources.inspect_source`)."""
    kept = checkpoint / SOURCES
    if kept.is_file():
        stored = stored_json(kept, "checkpoint", ("r", "s"))
        try:
            return StreamSource.from_dict(stored["r"]), StreamSource.from_dict(stored["s"])
        except (KeyError, TypeError, ValueError):
            raise damaged(kept, "checkpoint") from None
    return (inspect_source(r, fmt, "stream R", key, time, param="r"),
            inspect_source(s, fmt, "stream S", key, time, param="s"))


def damaged(path: Path, param: str) -> ShedError:
    """The error for a damaged file the job keeps in the folder ``param`` names."""
    return ShedError(f"{{param}}: {path} is damaged (not the JSON this job writes there); restore it, or start "
                     "with a new {param} folder", param=param)


def stored_json(path: Path, param: str, keys: tuple[str, ...]) -> dict:
    """A JSON object the job wrote into the folder ``param`` names, holding ``keys``; a damaged one
    (cut short by a full disk, edited by hand) is a one-line error naming the parameter."""
    try:
        stored = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError):
        raise damaged(path, param) from None
    if not isinstance(stored, dict) or not all(k in stored for k in keys):
        raise damaged(path, param)
    return stored


def check_params(job: StreamJob) -> None:
    """Refuse a checkpoint or output folder made with other parameters (they are recorded by
    :func:`record_params` once the query is built)."""
    for folder, what in ((job.checkpoint, "checkpoint"), (job.out, "out")):
        if folder.exists() and not folder.is_dir():
            raise ShedError(f"{{param}} {folder} is a file; give a folder (it is made if missing)", param=what)
        stored = folder / PARAMS
        if stored.exists():
            old = stored_json(stored, what, ("spec",))
            old.setdefault("state_layout", 1)  # recorded since layouts were; what came before is layout 1
            check_layout(old["state_layout"], f"{what} {folder}")
            diff = differences(old, job.params)
            if job.spec.range is not None:  # the window is the range's horizon: the range's change says it
                diff = [d for d in diff if not d.startswith("spec.window ")]
            if diff:
                # a stream of HAZARD under a range started before auto-history was its default grouping
                was_default = "group" not in old["spec"] and job.spec.group == (AUTO_HISTORY,)
                raise ShedError(f"{{param}} {folder} was made by a run with other parameters "
                                f"({'; '.join(diff[:3])}); use a new {{param}} or the same parameters"
                                + (" (it ran without a group, HAZARD's default under a one-sided range before "
                                   "auto-history: give group none to go on with it)" if was_default else ""),
                                param=what)
        elif any((folder / part).exists() for part in (PAIRS, METRIC_TABLE, "spark")):
            raise ShedError(f"{{param}} {folder} holds results of another job; give a new folder", param=what)
    started = [(job.checkpoint / PARAMS).exists(), (job.out / PARAMS).exists()]
    if started[0] != started[1]:  # one folder of a run begun with another: its pairs would be split or mixed
        begun, fresh, fresh_param = ((job.checkpoint, job.out, "out") if started[0] else
                                     (job.out, job.checkpoint, "checkpoint"))
        raise ShedError(f"{{param}} {fresh} is new, but {begun} belongs to a run begun with another "
                        f"{fresh_param}; give that run's {fresh_param} to go on with it, or new folders for both",
                        param=fresh_param)
    for folder in (job.checkpoint, job.out):
        with writing(folder):
            folder.mkdir(parents=True, exist_ok=True)


def record_params(job: StreamJob) -> None:
    """Record the parameters beside the checkpoint and the output, and the sources as this first
    start found them. Called once the query is built: a run refused before it (a column Spark
    cannot read, say) leaves nothing that a corrected rerun would be held to."""
    for folder in (job.checkpoint, job.out):
        with writing(folder):
            write_json(folder / PARAMS, job.params, indent=1, sort_keys=True)
    kept = job.checkpoint / SOURCES
    if not kept.exists():
        write_json(kept, {"r": job.r.as_dict(), "s": job.s.as_dict()}, indent=1)


@contextmanager
def writing(folder: Path) -> Iterator[None]:
    """Writing into ``folder``: a folder that cannot be written is a one-line error."""
    try:
        yield
    except OSError as exc:
        raise ShedError(f"cannot write to {folder} ({exc.strerror or exc}); give a folder you can write to") from None


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
        after: Callable[[object, dict, str | StaticEstimator], dict] | None = None,
        stop: threading.Event | None = None, on_start: Callable[[object], None] | None = None) -> dict:
    """Run the job on its own Spark session and return its summary. ``after(spark, summary,
    estimator)``, if given, runs on that session once the query has ended; the entries it returns
    are added to the summary (the command writes its report so). Setting ``stop`` stops the query
    between micro-batches (see :func:`~shedding.streaming.end_of_input.await_query`);
    ``on_start(spark)`` is called once the session is up."""
    from shedding.spark import spark_session
    from shedding.streaming.paths import place_of

    job = placed(job, place_of(job.master, job.remote))
    check_params(job)
    started = _time.perf_counter()
    with spark_session(job.master, "shed stream-join", jvm_log=job.checkpoint / "spark.log", ui=job.ui,
                       remote=job.remote) as spark:
        if on_start is not None:
            on_start(spark)
        queried = _time.perf_counter()
        table = query(spark, job, progress, stop=stop)
        summary = job_summary(job) | {"seconds": round(_time.perf_counter() - started, 2),
                                        "query_seconds": round(_time.perf_counter() - queried, 2)}
        if after is not None:
            summary |= after(spark, summary, table)
    return summary


def run_on(spark, job: StreamJob, progress: Callable[[dict], None] | None = None,
           trace: dict | None = None) -> dict:
    """Run the job on an existing Spark session (which stays open) and return its summary. A
    ``trace`` dict receives the query's progress reports."""
    from shedding.streaming.paths import session_place

    job = placed(job, session_place(spark))
    check_params(job)
    query(spark, job, progress, trace)
    return job_summary(job)


def job_summary(job: StreamJob) -> dict:
    """The job's totals (:func:`~shedding.streaming.results.summarize`) and the files its sources
    skipped for arriving named before a file already read."""
    return summarize(job.out) | {"skipped_files": skipped_files(job.checkpoint / "spark")}


def query(spark, job: StreamJob, progress: Callable[[dict], None] | None,
          trace: dict | None = None, stop: threading.Event | None = None) -> str | StaticEstimator:
    """Run the job's query to its end. A bounded input ends with the end-of-input marker (see
    :func:`~shedding.streaming.end_of_input.drain`). Returns the estimator it used (``online`` or
    the static table)."""
    from shedding.streaming.event_time import TimeAxis
    from shedding.streaming.inputs import time_kind
    from shedding.streaming.spark_join import configure_session, semantic_window_join

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
    used = {job.time.lower(), *(k.lower() for k in job.key), *(g.lower() for g in spec.payload_group)}
    r, s = (src.reader(spark, max_files, strict=spec.strict, keep=used | {c.lower() for c in payload})
            for src, payload in ((job.r, spec.payload_r), (job.s, spec.payload_s)))
    axis = TimeAxis.of(time_kind(r.schema[job.time].dataType, job.step), job.step)
    joined = semantic_window_join(
        r, s, key=list(job.key), time=job.time, step=job.step, memory=spec.memory, how=spec.how,
        window=axis.units(spec.window) if spec.range is None else None,
        range=None if spec.range is None else (axis.units(spec.range[0]), axis.units(spec.range[1])),
        shedding=spec.shedding, memory_split=spec.memory_split, estimator=estimator, shards=spec.shards,
        budget=spec.budget, allowed_lateness=axis.units(spec.lateness),
        idle_timeout=None if spec.idle_timeout_ms is None else spec.idle_timeout_ms / 1000,
        payload={"r": spec.payload_r, "s": spec.payload_s}, seed=spec.seed, warmup=spec.warmup, decay=spec.decay,
        strict=spec.strict, end_of_input=spark.readStream.format("text").load(str(end_dir)), with_metrics=True,
        metrics_dir=job.out / METRIC_TABLE, pairs_dir=job.out / PAIRS, tuning=spec.tuning, max_held=spec.max_held,
        group=spec.group)
    record_params(job)
    files = file_counts((job.r, job.s))
    ahead = marker_after(job.checkpoint, max_files, files)  # before one_batch's marker: it records the first start
    if bounded and one_batch(job.checkpoint, max_files, files):
        drop_marker(end_dir)
    running = (joined.writeStream.queryName("shed_stream_join").format("noop")
               .option("checkpointLocation", str(job.checkpoint / "spark")).trigger(**trigger).start())
    trace["progress"] += await_query(running, progress, end_dir if bounded else None, ahead if bounded else None,
                                     stop)
    return estimator
