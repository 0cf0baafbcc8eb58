"""The streaming join's report: its output against the batch simulator, EXACT and Spark's native
join on the same files, and the state each keeps over the micro-batches.

The sources are read as the shards see them (time steps, the operator's keys, bad rows dropped,
:mod:`~shedding.streaming.inputs`). The batch reference runs the same operator
(:class:`~shedding.streaming.shard.ShardJoin`, the simulator's
:class:`~shedding.online.engine.JoinOperator`) without Spark on the same micro-batches as the query
(:mod:`~shedding.streaming.replay`: the files each micro-batch took, as the checkpoint records them), with the job's
estimator and budget, the shared one re-divided every micro-batch as the query does: for P = 1
and files in time order that is what ``shed simulate`` gives. The native join is a real streaming
query over the same directories with the same files per trigger. The page is built with the
studies' page toolkit (:mod:`shedding.studies.page`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

import pandas as pd
import plotly.graph_objects as go

from shedding.atomic import write_atomically, write_text
from shedding.exact import exact_count
from shedding.model import Workload
from shedding.streaming.job import StreamJob
from shedding.streaming.recorded import local_path, recorded_files
from shedding.streaming.replay import run_shards
from shedding.streaming.results import METRIC_TABLE, read_table
from shedding.streaming.words import counted
from shedding.streaming.shard import R, S, JoinSpec
from shedding.streaming.sources import source_files
from shedding.studies.page.figures import figure_html
from shedding.studies.page.page import header, page
from shedding.studies.page.tables import table_html

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def stepped(spark, job: StreamJob, stream: bool = False) -> tuple[DataFrame, DataFrame]:
    """Both sources as the shards see them: columns side, time (the step) and key (the operator's
    key), bad rows dropped; read as one batch (each row with its ``file``, and its payload group
    when the join ranks by one) or as streams (``job.max_files_per_trigger`` files per trigger).
    Both read the files as the query did (:meth:`~shedding.streaming.sources.StreamSource.reader`),
    so the references count the rows it joined."""
    from shedding.streaming.inputs import Inputs, tagged

    used = {job.time.lower(), *(k.lower() for k in job.key), *(g.lower() for g in job.spec.payload_group)}
    frames = [src.reader(spark, job.max_files_per_trigger, stream, keep=used) for src in (job.r, job.s)]
    inputs = Inputs.of(frames[0], frames[1], list(job.key), job.time, job.step)
    spec = replace(job.spec, payload_r=(), payload_s=(), carry_time=False)
    out = []
    for side, df, what, src in ((R, frames[0], "stream R", job.r), (S, frames[1], "stream S", job.s)):
        file = [] if stream else [src.file_column]
        rows = tagged(df, side, spec, inputs, False, what, file).where(f"side = {side}")
        out.append(rows.select("side", "time", "key") if stream else
                   rows.select("side", "time", "key", *spec.group_columns, rows[src.file_column].alias("file")))
    return out[0], out[1]


def source_rows(spark, job: StreamJob) -> pd.DataFrame:
    """Every valid row of both sources (side, time step, key, file) as the shards see them."""
    r, s = stepped(spark, job)
    return r.unionByName(s).toPandas()


def trigger_batches(rows: pd.DataFrame, job: StreamJob) -> list[pd.DataFrame]:
    """``rows`` cut into the micro-batches the query ran, as its checkpoint records them
    (:func:`~shedding.streaming.recorded.recorded_files`); when the checkpoint no longer records
    every batch, the batches of an uninterrupted bounded run: ``max_files_per_trigger`` files of
    each stream per micro-batch, in name order (every file in the first with ``once`` or without a
    limit)."""
    batch_of = recorded_files(job.checkpoint / "spark")
    if batch_of is None:
        per = None if job.trigger.strip().lower() == "once" else job.max_files_per_trigger
        batch_of = {str(path.resolve()): i // per if per else 0
                    for src in (job.r, job.s) for i, path in enumerate(source_files(src.path, src.fmt))}
    batch = rows["file"].map(lambda uri: batch_of.get(local_path(uri), 0))
    return [rows[batch == b].drop(columns="file").reset_index(drop=True) for b in sorted(batch.unique())]


def source_workload(rows: pd.DataFrame, window: int, warmup: int = 0, bounds: tuple[int, int] | None = None
                    ) -> Workload:
    """The rows as a workload in the stream join's order within a time step (side, then key), over
    the window or the time range ``bounds``."""
    ordered = rows.sort_values(["time", "side", "key"], kind="mergesort")
    return Workload(ordered["side"].to_numpy(), ordered["time"].to_numpy(), ordered["key"].to_numpy(), window, warmup,
                    range=bounds)


def batch_reference(spec: JoinSpec, batches: Iterable[pd.DataFrame], table=None) -> int:
    """Outputs of the shards run without Spark on ``batches`` (:func:`~shedding.streaming.replay.run_shards`):
    with a shared budget M is re-divided every micro-batch as the query does, with an even one
    each shard has M/P."""
    pairs, _ = run_shards(replace(spec, payload_r=(), payload_s=(), carry_time=False, key_names=(), how="inner"),
                          batches, table)
    return sum(len(p) for p in pairs)


def reference_name(spec: JoinSpec) -> str:
    """The batch reference's row: shed simulate for one shard, else the shards and their budget."""
    if spec.shards == 1:
        return "batch (shed simulate)"
    return f"batch ({spec.shards} shards, {spec.budget if spec.shedding != 'none' else 'no'} budget)"


def stream_report(spark, job: StreamJob, summary: dict, table=None) -> Path:
    """Write ``OUT/report.html`` (and its table as ``OUT/report.csv``) for a finished bounded job;
    returns the page's path."""
    from shedding.streaming.native import run_native

    rows = source_rows(spark, job)
    wl = source_workload(rows, job.spec.window, job.spec.warmup, job.spec.range)
    reference = batch_reference(job.spec, trigger_batches(rows, job), table)
    exact = exact_count(wl)
    r, s = stepped(spark, job, stream=True)
    native = run_native(spark, r, s, job.spec.window, str(job.checkpoint / "native"), bounds=job.spec.range)
    metrics = read_table(job.out, METRIC_TABLE)
    per_batch = metrics.assign(memory=metrics["memory_r"] + metrics["memory_s"]).groupby("batch")[
        ["memory", "held", "state_bytes", "outputs"]].sum().reset_index()
    nat = pd.DataFrame(native["batches"])
    name = job.spec.shedding.upper()
    results = pd.DataFrame([
        {"join": f"streaming {name}", "outputs": summary["outputs"], "seconds": summary.get("query_seconds")},
        {"join": reference_name(job.spec), "outputs": reference, "seconds": None},
        {"join": "EXACT", "outputs": exact, "seconds": None},
        {"join": "Spark native join", "outputs": native["outputs"], "seconds": round(native["seconds"], 2)},
    ])
    results["of EXACT"] = results["outputs"] / exact if exact else 1.0
    write_atomically(job.out / "report.csv", lambda tmp: results.to_csv(tmp, index=False))
    figures = [
        go.Figure(go.Bar(x=results["join"], y=results["outputs"], text=results["outputs"].map("{:,}".format)),
                  layout=dict(title="join output", yaxis_title="pairs")),
        go.Figure([go.Scatter(x=per_batch["batch"], y=per_batch["memory"], name=f"{name}: tuples in join memory"),
                   go.Scatter(x=per_batch["batch"], y=per_batch["held"], name=f"{name}: tuples held back"),
                   go.Scatter(x=nat.get("batch", []), y=nat.get("state_rows", []), name="native join: state rows")],
                  layout=dict(title="state size over micro-batches", xaxis=dict(title="micro-batch", tickformat="d"),
                              yaxis_title="tuples", yaxis_type="log")),
        go.Figure([go.Scatter(x=per_batch["batch"], y=per_batch["state_bytes"], name=f"{name}: state value bytes"),
                   go.Scatter(x=nat.get("batch", []), y=nat.get("state_bytes", []), name="native join: state bytes")],
                  layout=dict(title="state bytes over micro-batches", xaxis=dict(title="micro-batch", tickformat="d"),
                              yaxis_title="bytes",
                              yaxis_type="log")),
    ]
    spec = job.spec
    learner = f" (learner {spec.tuning})" if spec.tuning else ""
    extent = f"w = {spec.window}" if spec.range is None else f"range {spec.range[0]}..{spec.range[1]} steps"
    setup = (f"{extent}, M = {spec.memory}, shedding {spec.shedding}{learner}, {counted(spec.shards, 'shard')}, "
             f"estimator {job.estimator}, {summary['arrivals']:,} tuples in {summary['batches']} micro-batches "
             f"(trigger {job.trigger}, {job.max_files_per_trigger or 'all'} files per trigger); "
             f"R: {job.r.path}, S: {job.s.path}")
    facts = {"Join memory between micro-batches, most": f"{summary.get('peak_memory', 0):,} tuples (M = {spec.memory}; within a batch it may reach M)",
             "Peak held back": f"{summary.get('peak_held', 0):,} tuples",
             "Peak state": f"{summary.get('peak_state_bytes', 0):,} bytes",
             "Late rows": f"{summary['late']:,}", "Bad rows": f"{summary['bad']:,}",
             "Native join's peak state": f"{int(nat['state_rows'].max()) if len(nat) else 0:,} rows (it keeps every "
                                         "tuple of the window)"}
    body = [[(str(r["join"]), True), (f"{r['outputs']:,}", False),
             ("" if pd.isna(r["seconds"]) else f"{r['seconds']:.1f}", False), (f"{r['of EXACT']:.3f}", False)]
            for r in results.to_dict("records")]
    table = table_html("results", ["join", "outputs", "seconds", "of EXACT"], body,
                       "Seconds are the queries' wall time on one Spark session, without its start-up.")
    html = (header("Semantic window join on Spark Structured Streaming", setup, "", facts)
            + f"<section>{table}</section>\n"
            + "".join(f"<section>{figure_html(i, fig)}</section>\n" for i, fig in enumerate(figures)))
    path = job.out / "report.html"
    write_text(path, page("stream-join", html, len(figures)))
    return path
