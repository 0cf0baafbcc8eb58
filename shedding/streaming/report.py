"""The streaming join's report: its output against the batch simulator, EXACT and Spark's native
join on the same files, and the state each keeps over the micro-batches.

The batch reference runs the same operator (:class:`~shedding.streaming.shard.ShardJoin`, the
simulator's :class:`~shedding.online.engine.JoinOperator`) on the whole input at once, per shard,
with the job's estimator and budgets: what ``shed simulate`` gives for P = 1. The native join is a
real streaming query over the same directories with the same files per trigger. The page is built
with the studies' page toolkit (:mod:`shedding.studies.page`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from shedding.exact import exact_count
from shedding.model import Workload
from shedding.streaming.job import StreamJob
from shedding.streaming.partition import shard_of
from shedding.streaming.results import METRIC_TABLE, read_table
from shedding.streaming.shard import END, R, S, JoinSpec, ShardJoin
from shedding.streaming.sources import source_files
from shedding.studies.page.figures import figure_html
from shedding.studies.page.page import header, page
from shedding.studies.page.tables import table_html


def source_frame(job: StreamJob) -> pd.DataFrame:
    """Every row of both sources (side, time, key), rows whose time or key is not an integer dropped."""
    frames = []
    for side, src in ((R, job.r), (S, job.s)):
        for path in source_files(src.path, src.fmt):
            raw = pd.read_csv(path, dtype=str) if src.fmt == "csv" else pd.read_parquet(path)
            cols = {str(c).strip().lower(): c for c in raw.columns}
            t = pd.to_numeric(raw[cols["time"]], errors="coerce")
            k = pd.to_numeric(raw[cols["key"]], errors="coerce")
            ok = t.notna() & k.notna() & (t == t.round()) & (k == k.round())
            frames.append(pd.DataFrame({"side": side, "time": t[ok].astype(np.int64), "key": k[ok].astype(np.int64)}))
    return pd.concat(frames, ignore_index=True)


def source_workload(rows: pd.DataFrame, window: int, warmup: int = 0) -> Workload:
    """The rows as a workload in the stream join's order within a time step (side, then key)."""
    ordered = rows.sort_values(["time", "side", "key"], kind="mergesort")
    return Workload(ordered["side"].to_numpy(), ordered["time"].to_numpy(), ordered["key"].to_numpy(), window, warmup)


def batch_reference(rows: pd.DataFrame, spec: JoinSpec, table=None) -> int:
    """Outputs of the whole input at once through each shard's operator (the simulator's result)."""
    from shedding.streaming.frequencies import shard_table

    end = pd.DataFrame({"side": [END], "time": [0], "key": [0]})
    shards = shard_of(rows["key"].to_numpy(), spec.shards)
    plain = replace(spec, payload_r=(), payload_s=())
    total = 0
    for i in range(spec.shards):
        join = ShardJoin(plain, i, shard_table(table, i, spec.shards))
        total += len(join.push(rows[shards == i])[0]) + len(join.push(end)[0])
    return total


def stream_report(spark, job: StreamJob, summary: dict, table=None) -> Path:
    """Write ``OUT/report.html`` (and its table as ``OUT/report.csv``) for a finished bounded job;
    returns the page's path."""
    from shedding.streaming.native import run_native

    rows = source_frame(job)
    wl = source_workload(rows, job.spec.window, job.spec.warmup)
    reference = batch_reference(rows, job.spec, table)
    exact = exact_count(wl)
    native = run_native(spark, job.r.reader(spark, job.max_files_per_trigger),
                        job.s.reader(spark, job.max_files_per_trigger), job.spec.window,
                        str(job.checkpoint / "native"))
    metrics = read_table(job.out, METRIC_TABLE)
    per_batch = metrics.assign(memory=metrics["memory_r"] + metrics["memory_s"]).groupby("batch")[
        ["memory", "held", "state_bytes", "outputs"]].sum().reset_index()
    nat = pd.DataFrame(native["batches"])
    name = job.spec.shedding.upper()
    results = pd.DataFrame([
        {"join": f"streaming {name}", "outputs": summary["outputs"], "seconds": summary.get("query_seconds")},
        {"join": "batch (shed simulate)", "outputs": reference, "seconds": None},
        {"join": "EXACT", "outputs": exact, "seconds": None},
        {"join": "Spark native join", "outputs": native["outputs"], "seconds": round(native["seconds"], 2)},
    ])
    results["of EXACT"] = results["outputs"] / exact if exact else 1.0
    results.to_csv(job.out / "report.csv", index=False)
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
    setup = (f"w = {spec.window}, M = {spec.memory}, shedding {spec.shedding}, {spec.shards} shard(s), "
             f"estimator {job.estimator}, {summary['arrivals']:,} tuples in {summary['batches']} micro-batches "
             f"(trigger {job.trigger}, {job.max_files_per_trigger or 'all'} files per trigger); "
             f"R: {job.r.path}, S: {job.s.path}")
    facts = {"Peak join memory": f"{summary.get('peak_memory', 0):,} tuples (M = {spec.memory})",
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
    path.write_text(page("stream-join", html, len(figures)), encoding="utf-8")
    return path
