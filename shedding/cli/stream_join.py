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


def _payload(text: str, src_r, src_s) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``all`` (every column but time and key), ``none``, or a comma list present in both streams."""
    extra = [tuple(c for c in src.columns if c.strip().lower() not in ("time", "key")) for src in (src_r, src_s)]
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
    out_dir: Path = typer.Option(..., "--out", help="Output folder: pairs/ and metrics/ (Parquet, one batch=N "
                                 "folder per micro-batch)."),
    window: int = typer.Option(500, "--window", "-w", help="Window w in time steps."),
    memory: Optional[int] = typer.Option(None, "--memory", "-m", help="Join memory M in tuples over all shards "
                                         "(default: w, half of what EXACT needs).", show_default=False),
    shedding: str = typer.Option("prob", "--shedding", help=SHEDDING_HELP),
    checkpoint: Optional[Path] = typer.Option(None, "--checkpoint", help="Checkpoint folder (default: "
                                              "OUT/checkpoint). Rerun the same command to continue after a crash.",
                                              show_default=False),
    fmt: Optional[str] = typer.Option(None, "--format", help="csv or parquet (default: from the files).",
                                      show_default=False),
    master: str = typer.Option("local[*]", "--master", help="Spark master: local[*] (embedded) or spark://HOST:PORT."),
    shards: int = typer.Option(1, "--shards", help="Shards P: keys are split by hash, and M over the shards."),
    trigger: str = typer.Option("available-now", "--trigger", help="available-now or once (bounded input: the last "
                                "held steps are joined at the end), or interval:SECONDS (runs until Ctrl-C)."),
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
    from shedding.model import check_memory
    from shedding.streaming.job import StreamJob, parse_trigger, run
    from shedding.streaming.results import observed
    from shedding.streaming.shard import JoinSpec
    from shedding.streaming.sources import inspect_source, write_zipf_sources

    bounded = parse_trigger(trigger)[1]
    if report and not bounded:
        raise ShedError("--report needs a bounded input: use --trigger available-now or once")
    if max_files is not None and max_files < 1:
        raise ShedError(f"--max-files-per-trigger must be >= 1, got {max_files}")
    from shedding.cli.group import _parse_split

    split = _parse_split(memory_split)
    m = window if memory is None else memory
    check_memory(m, split)
    est = estimator.strip()
    if est.lower() in ("online", "static"):
        est = est.lower()
    elif not Path(est).is_file():
        raise ShedError(f"--estimator {estimator!r} is neither online, static nor a frequency table file")
    else:
        est = str(Path(est).resolve())
    checkpoint = checkpoint or out_dir / "checkpoint"
    if r.lower().startswith("zipf:") or s.lower().startswith("zipf:"):
        if not (r.lower().startswith("zipf:") and s.lower().startswith("zipf:")):
            raise ShedError("give zipf:SKEW:DOMAIN for both --r and --s, or a directory for both")
        r_dir, s_dir = write_zipf_sources(r, s, out_dir / "sources", length, files, seed)
    else:
        r_dir, s_dir = Path(r), Path(s)
    fmt = None if fmt is None else fmt.strip().lower()
    src_r, src_s = inspect_source(r_dir, fmt, "stream R"), inspect_source(s_dir, fmt, "stream S")
    pay_r, pay_s = _payload(payload, src_r, src_s)
    spec = JoinSpec(window, m, shedding.strip().lower(), split, shards, "online" if est == "online" else "static",
                    decay, seed, warmup, strict, pay_r, pay_s)
    job = StreamJob(src_r, src_s, out_dir, checkpoint, spec, est, trigger, max_files, master)

    status = err.status("starting Spark...", spinner="dots") if err.is_terminal else None

    def progress(p: dict) -> None:
        if status is not None:
            rows = sum(src["numInputRows"] for src in p["sources"])
            status.update(f"batch {p['batchId']}: {rows:,} rows in, {observed(p).get('outputs', 0):,} pairs out")

    def write_report(spark, summary: dict, table) -> dict:
        from shedding.streaming.report import stream_report

        return {"report": str(stream_report(spark, job, summary, None if table == "online" else table))}

    if status is not None:
        status.start()
    try:
        summary = run(job, progress, write_report if report else None)
    finally:
        if status is not None:
            status.stop()
    if as_json:
        print(json.dumps(summary))
        return
    g = summary.get
    table = Table(show_edge=False, show_header=False,
                  title=f"{escape(spec.shedding.upper())}: w = {window}, M = {m}, {shards} shard(s)")
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
