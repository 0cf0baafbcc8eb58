"""``shed stream-join``: the semantic window join as a Spark Structured Streaming job."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from shedding.errors import ShedError

out = Console()
err = Console(stderr=True)

SHEDDING_HELP = ("none (the exact window join), prob, life, rand, surv, dual, fluid (fixed R/S split) or "
                 "probv, lifev, randv, survv, dualv, fluidv (variable split); see shed simulate --help.")


def _payload(text: str, src_r, src_s, keys: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``all`` (every column but time and the keys), ``none``, or a comma list present in both streams."""
    taken = {"time", *(k.lower() for k in keys)}
    extra = [tuple(c for c in src.columns if c.strip().lower() not in taken) for src in (src_r, src_s)]
    t = text.strip()
    if t.lower() == "all":
        return extra[0], extra[1]
    if t.lower() == "none":
        return (), ()
    names = tuple(c.strip() for c in t.split(",") if c.strip())
    for cols, what in zip(extra, "RS"):
        missing = [c for c in names if c.lower() not in {x.lower() for x in cols}]
        if missing:
            raise ShedError(f"--payload names {', '.join(missing)}, which stream {what} lacks "
                            f"(it has {', '.join(cols) or 'only time and key'})")
    return names, names


def stream_join(
    r: str = typer.Option(..., "--r", help="Stream R: a directory of CSV or Parquet files with columns "
                          "time,key[,payload...], or zipf:SKEW:DOMAIN for a synthetic stream."),
    s: str = typer.Option(..., "--s", help="Stream S, as --r."),
    out_dir: str = typer.Option(..., "--out", help="Output folder: pairs/ and metrics/ (Parquet, one batch=N "
                                "folder per micro-batch). On a cluster: a shared folder, file:///shared/..."),
    window: str = typer.Option("500", "--window", "-w", help="Window in the time's unit: time steps for integer "
                               "times (500), a length for timestamps (10 minutes)."),
    time_step: Optional[str] = typer.Option(None, "--time-step", help="Time step: an integer for integer times "
                                            "(default 1), a length for timestamps (default 1 second).",
                                            show_default=False),
    key: str = typer.Option("key", "--key", help="Key column, or a comma list for a composite key; keys of any "
                            "type join on equal values."),
    lateness: str = typer.Option("0", "--allowed-lateness", help="Tuples this far behind the other stream still "
                                 "join (the window's unit); the held-back tuples grow by as many steps."),
    idle_timeout: Optional[str] = typer.Option(None, "--idle-timeout", help="A stream that sends nothing for this "
                                               "long (30 seconds) stops holding the other one back.",
                                               show_default=False),
    budget: str = typer.Option("shared", "--budget", help="shared (M re-divided over the shards every "
                               "micro-batch by their load and value) or even (M/P each)."),
    ui: bool = typer.Option(False, "--ui", help="Keep Spark's web UI and print its address."),
    remote: Optional[str] = typer.Option(None, "--remote", help="Run on a Spark Connect server (sc://HOST:PORT) "
                                         "instead of --master.", show_default=False),
    memory: Optional[int] = typer.Option(None, "--memory", "-m", help="Join memory M in tuples over all shards "
                                         "(default: w, half of what EXACT needs).", show_default=False),
    shedding: str = typer.Option("prob", "--shedding", help=SHEDDING_HELP),
    checkpoint: Optional[str] = typer.Option(None, "--checkpoint", help="Checkpoint folder (default: "
                                              "OUT/checkpoint). Rerun the same command to continue after a crash.",
                                              show_default=False),
    fmt: Optional[str] = typer.Option(None, "--format", help="csv or parquet (default: from the files).",
                                      show_default=False),
    master: str = typer.Option("local[*]", "--master", help="Spark master: local[*] (embedded) or spark://HOST:PORT."),
    shards: int = typer.Option(1, "--shards", help="Shards P: keys are split by hash, and M over the shards."),
    trigger: str = typer.Option("available-now", "--trigger", help="available-now or once (bounded input: the last "
                                "held steps are joined at the end), or interval:SECONDS (runs until Ctrl-C or "
                                "SIGTERM, which stop after a committed micro-batch with exit 0)."),
    max_files: Optional[int] = typer.Option(None, "--max-files-per-trigger", help="Files per stream and "
                                            "micro-batch (default: all new files).", show_default=False),
    memory_split: Optional[str] = typer.Option(None, "--memory-split", help="Fixed split M_R,M_S for prob, life, "
                                               "rand (default: M//2, M-M//2).", show_default=False),
    estimator: str = typer.Option("online", "--estimator", help="online (key counts so far, per shard), static "
                                  "(counted from the files present at the first start) or the path of a "
                                  "frequency table with columns key,count_r,count_s."),
    decay: float = typer.Option(1.0, "--decay", help="Online estimator: weight an arrival keeps per time step."),
    seed: int = typer.Option(0, "--seed", help="Seed of RAND's choices (shard i uses seed + i) and of zipf "
                             "sources."),
    warmup: int = typer.Option(0, "--warmup", help="First time step whose pairs are output."),
    strict: bool = typer.Option(False, "--strict", help="Fail on a late tuple instead of counting and dropping it."),
    payload: str = typer.Option("all", "--payload", help="Columns carried into the pairs as r_<c>, s_<c>: all "
                                "(every column but time and key), none, or a comma list."),
    length: int = typer.Option(20000, "--length", help="zipf sources: tuples per stream (one per time step)."),
    files: int = typer.Option(20, "--files", help="zipf sources: files per stream."),
    report: bool = typer.Option(False, "--report", help="Also write OUT/report.html: the output against shed "
                                "simulate, EXACT and Spark's native join, and the state over micro-batches."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as one JSON object."),
) -> None:
    """Join two streams on Spark with at most M tuples of join state, shedding by PROB or another online policy.

    Example: shed stream-join --r zipf:1:650 --s zipf:1:650 --window 500 --memory 500 --shedding prob --out out/sj
    """
    import signal
    import threading

    from shedding.model import check_memory
    from shedding.streaming.event_time import TimeAxis
    from shedding.streaming.job import StreamJob, job_sources, parse_trigger, run
    from shedding.streaming.paths import shared_path
    from shedding.streaming.results import observed, progress_line
    from shedding.streaming.shard import JoinSpec
    from shedding.streaming.sources import write_zipf_sources

    bounded = parse_trigger(trigger)[1]
    if report and not bounded:
        raise ShedError("--report needs a bounded input: use --trigger available-now or once")
    if max_files is not None and max_files < 1:
        raise ShedError(f"--max-files-per-trigger must be >= 1, got {max_files}")
    from shedding.cli.group import _parse_split

    split = _parse_split(memory_split)
    est = estimator.strip()
    if est.lower() in ("online", "static"):
        est = est.lower()
    elif not Path(est).is_file():
        raise ShedError(f"--estimator {estimator!r} is neither online, static nor a frequency table file")
    else:
        est = str(Path(est).resolve())
    from shedding.spark import effective_master

    place = "local" if remote is not None and remote.startswith("local") else (remote or effective_master(master))
    out_path = shared_path(out_dir, place, "--out")
    checkpoint_path = out_path / "checkpoint" if checkpoint is None else shared_path(checkpoint, place, "--checkpoint")
    keys = tuple(k.strip() for k in key.split(",") if k.strip())
    if r.lower().startswith("zipf:") or s.lower().startswith("zipf:"):
        if not (r.lower().startswith("zipf:") and s.lower().startswith("zipf:")):
            raise ShedError("give zipf:SKEW:DOMAIN for both --r and --s, or a directory for both")
        r_dir, s_dir = write_zipf_sources(r, s, out_path / "sources", length, files, seed)
    else:
        r_dir, s_dir = shared_path(r, place, "--r"), shared_path(s, place, "--s")
    fmt = None if fmt is None else fmt.strip().lower()
    src_r, src_s = job_sources(checkpoint_path, r_dir, s_dir, fmt, keys)
    pay_r, pay_s = _payload(payload, src_r, src_s, keys)
    step = None if time_step is None else (int(time_step) if time_step.strip().isdigit() else time_step)
    kind = {"bigint": "integer", "timestamp": "timestamp", "date": "date"}.get(
        next(t for c, t in src_r.types.items() if c.strip().lower() == "time"), "integer")
    try:
        axis = TimeAxis.of(kind, step)
        steps = {name: axis.steps(int(text) if text.strip().isdigit() else text, name)
                 for name, text in (("window", window), ("allowed_lateness", lateness))}
    except ShedError as exc:
        raise ShedError(exc.naming({"step": "--time-step", "window": "--window",
                                    "allowed_lateness": "--allowed-lateness"}[exc.param])) from None
    w = steps["window"]
    m = w if memory is None else memory
    check_memory(m, split)
    timeout = None
    if idle_timeout is not None:
        from shedding.streaming.event_time import parse_interval

        text = idle_timeout.strip()
        timeout = parse_interval(text if not text.replace(".", "", 1).isdigit() else f"{text} s", "--idle-timeout")
    spec = JoinSpec(w, m, shedding.strip().lower(), split, shards, "online" if est == "online" else "static",
                    decay, seed, warmup, strict, pay_r, pay_s, budget.strip().lower(), steps["allowed_lateness"],
                    None if timeout is None else timeout // 1000)
    job = StreamJob(src_r, src_s, out_path, checkpoint_path, spec, est, trigger, max_files, master, keys, "time", step,
                    ui, remote)

    status = err.status("starting Spark...", spinner="dots") if err.is_terminal and bounded else None

    def progress(p: dict) -> None:
        if status is not None:
            rows = sum(src["numInputRows"] for src in p["sources"])
            status.update(f"batch {p['batchId']}: {rows:,} rows in, {observed(p).get('outputs', 0):,} pairs out")
        elif not bounded and not as_json and observed(p):  # a batch ran (not an idle trigger's report)
            err.print(progress_line(p), highlight=False, soft_wrap=True)

    def write_report(spark, summary: dict, table) -> dict:
        from shedding.streaming.report import stream_report

        return {"report": str(stream_report(spark, job, summary, None if table == "online" else table))}

    def started(spark) -> None:
        if ui and getattr(spark, "sparkContext", None) is not None:
            err.print(f"Spark UI: {spark.sparkContext.uiWebUrl}", highlight=False, soft_wrap=True)

    stop = threading.Event()
    stopped_by: list[str] = []

    def on_signal(number, _frame) -> None:
        stopped_by.append(signal.Signals(number).name)
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    if status is not None:
        status.start()
    try:
        summary = run(job, progress, write_report if report else None, stop, started)
    finally:
        if status is not None:
            status.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if stopped_by:
        err.print(f"stopped by {stopped_by[0]} after micro-batch {summary.get('batches', 0) - 1}; the committed "
                  "micro-batches are kept, run the same command to continue", highlight=False, soft_wrap=True)
    if as_json:
        print(json.dumps(summary))
        return
    g = summary.get
    table = Table(show_edge=False, show_header=False,
                  title=f"{escape(spec.shedding.upper())}: w = {w}, M = {m}, {shards} shard(s)")
    table.add_column("", justify="left")
    table.add_column("", justify="right")
    for label, value in (("micro-batches", f"{g('batches', 0):,}"), ("tuples in", f"{g('arrivals', 0):,}"),
                         ("pairs out", f"{g('outputs', 0):,}"), ("tuples shed", f"{g('shed', 0):,}"),
                         ("late tuples (dropped)", f"{g('late', 0):,}"), ("bad rows (skipped)", f"{g('bad', 0):,}"),
                         ("peak join memory", f"{g('peak_memory', 0):,} tuples"),
                         ("peak held back", f"{g('peak_held', 0):,} tuples"),
                         ("peak state", f"{g('peak_state_bytes', 0):,} bytes")):
        table.add_row(label, value)
    out.print(table)
    out.print(f"pairs:   {escape(summary['pairs'])}", highlight=False)
    out.print(f"metrics: {escape(summary['metrics'])}  ({summary['seconds']:.1f} s)", highlight=False)
    if "report" in summary:
        out.print(f"report:  {escape(summary['report'])}", highlight=False)
