"""``shed stream-join``: the semantic window join as a Spark Structured Streaming job."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Optional

import typer
from rich.markup import escape
from rich.table import Table

from shedding.cli.checks import choice, in_int64, integer, integers, number, parse_integers, parsed, value_check
from shedding.cli.output import err, out
from shedding.cli.rows import REFERENCES
from shedding.cli.rules import Creatable, Exists, Holds, Ignored, Values
from shedding.cli.workload import fixed_split
from shedding.errors import ShedError
from shedding.run import POLICY_NAMES

SHEDDING = ("none", *(name for name in POLICY_NAMES if name not in REFERENCES))
SHEDDING_HELP = ("none (the exact window join), prob, life, rand, surv, dual, fluid (fixed R/S split) or "
                 "probv, lifev, randv, survv, dualv, fluidv (variable split); see shed simulate --help.")
FORMATS = ("csv", "parquet")


def zipf_source(flag: str, text: str) -> tuple[float, int] | None:
    """``zipf:SKEW:DOMAIN`` as (skew, domain); None for a directory."""
    if not text.strip().lower().startswith("zipf:"):
        return None
    parts = text.strip().split(":")
    try:
        skew, domain = float(parts[1]), int(parts[2])
        if len(parts) != 3 or not math.isfinite(skew) or skew < 0 or domain < 1:
            raise ValueError
    except (ValueError, IndexError):
        raise ShedError(f"{flag} {text!r} is not zipf:SKEW:DOMAIN (e.g. zipf:1.0:650): a finite skew >= 0 and a "
                        f"domain >= 1") from None
    return skew, in_int64(flag, domain)


def synthetic(v: Values) -> bool:
    return zipf_source("--r", v.r) is not None


def check_sources(v: Values) -> None:
    """Both --r and --s are zipf:SKEW:DOMAIN of one domain, or both are directories."""
    r, s = zipf_source("--r", v.r), zipf_source("--s", v.s)
    if (r is None) != (s is None):
        raise ShedError("give zipf:SKEW:DOMAIN for both --r and --s, or a directory for both")
    if r is not None and r[1] != s[1]:
        raise ShedError(f"--r {v.r} and --s {v.s} need the same domain (zipf:SKEW:DOMAIN); the skews may differ")


def check_estimator(flag: str, text: str) -> str:
    """online, static, or an existing frequency table file (returned as an absolute path)."""
    if text.strip().lower() in ("online", "static"):
        return text.strip().lower()
    if not Path(text).is_file():
        raise ShedError(f"{flag} {text!r} is neither online, static nor a frequency table file")
    return str(Path(text).resolve())


def check_memory(v: Values) -> None:
    from shedding.model import check_memory

    split = None if v.memory_split is None else parse_integers("--memory-split", v.memory_split, 2)
    check_memory(v.window if v.memory is None else v.memory, split)


def _trigger(text: str) -> Any:
    from shedding.streaming.job import parse_trigger

    return parse_trigger(text)


def bounded_for_report(v: Values) -> None:
    """The report sets the whole stream beside the batch simulator, so it needs a bounded input."""
    if v.report and not _trigger(v.trigger)[1]:
        raise ShedError("--report needs a bounded input: use --trigger available-now or once")


RULES = (
    Holds(check_sources),
    Ignored(("--length", "--files"), synthetic, "applies to zipf:SKEW:DOMAIN sources only"),
    Ignored(("--format",), lambda v: not synthetic(v), "applies to source directories only, not to zipf sources"),
    Ignored(("--seed",), lambda v: synthetic(v) or v.shedding.startswith("rand"),
            "seeds RAND's choices and zipf sources only"),
    Ignored(("--memory-split",), lambda v: fixed_split(v.shedding), "applies to the fixed-split policies "
            "(prob, life, rand, surv, dual, fluid) only"),
    Ignored(("--decay",), lambda v: v.estimator == "online", "applies to the online estimator only"),
    Ignored(("--estimator",), lambda v: v.shedding != "none", "applies to shedding policies only, not to "
            "--shedding none"),
    Holds(check_memory),
    Holds(bounded_for_report),
    Exists(("--r", "--s"), folder=True, when=lambda v: not synthetic(v)),
    Creatable(("--out", "--checkpoint"), folder=True),
)
ALIASES = {"split": "--memory-split"}


def _payload(text: str, src_r: Any, src_s: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
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
    window: int = typer.Option(500, "--window", "-w", callback=integer(1), help="Window w in time steps."),
    memory: Optional[int] = typer.Option(None, "--memory", "-m", callback=integer(0), show_default=False,
                                         help="Join memory M in tuples over all shards (default: w, half of what "
                                         "EXACT needs)."),
    shedding: str = typer.Option("prob", "--shedding", callback=choice(SHEDDING, "policy"), help=SHEDDING_HELP),
    checkpoint: Optional[Path] = typer.Option(None, "--checkpoint", show_default=False,
                                              help="Checkpoint folder (default: OUT/checkpoint). Rerun the same "
                                              "command to continue after a crash."),
    fmt: Optional[str] = typer.Option(None, "--format", callback=choice(FORMATS), show_default=False,
                                      help="csv or parquet (default: from the files)."),
    master: str = typer.Option("local[*]", "--master", help="Spark master: local[*] (embedded) or spark://HOST:PORT."),
    shards: int = typer.Option(1, "--shards", callback=integer(1),
                               help="Shards P: keys are split by hash, and M over the shards."),
    trigger: str = typer.Option("available-now", "--trigger", callback=parsed(_trigger),
                                help="available-now or once (bounded input: the last held steps are joined at the "
                                "end), or interval:SECONDS (runs until Ctrl-C)."),
    max_files: Optional[int] = typer.Option(None, "--max-files-per-trigger", callback=integer(1), show_default=False,
                                            help="Files per stream and micro-batch (default: all new files)."),
    memory_split: Optional[str] = typer.Option(None, "--memory-split", callback=integers(2), show_default=False,
                                               help="Fixed split M_R,M_S for prob, life, rand (default: M//2, "
                                               "M-M//2)."),
    estimator: str = typer.Option("online", "--estimator", callback=value_check(check_estimator),
                                  help="online (key counts so far, per shard), static (counted from the files "
                                  "present at the first start) or the path of a frequency table with columns "
                                  "key,count_r,count_s."),
    decay: float = typer.Option(1.0, "--decay", callback=number(0, above=True, high=1),
                                help="Online estimator: weight an arrival keeps per time step."),
    seed: int = typer.Option(0, "--seed", callback=integer(0), help="Seed of RAND's choices (shard i uses seed + i) "
                             "and of zipf sources."),
    warmup: int = typer.Option(0, "--warmup", callback=integer(0), help="First time step whose pairs are output."),
    strict: bool = typer.Option(False, "--strict", help="Fail on a late tuple instead of counting and dropping it."),
    payload: str = typer.Option("all", "--payload", help="Columns carried into the pairs as r_<c>, s_<c>: all "
                                "(every column but time and key), none, or a comma list."),
    length: int = typer.Option(20000, "--length", callback=integer(1),
                               help="zipf sources: tuples per stream (one per time step)."),
    files: int = typer.Option(20, "--files", callback=integer(1), help="zipf sources: files per stream."),
    report: bool = typer.Option(False, "--report", help="Also write OUT/report.html: the output against shed "
                                "simulate, EXACT and Spark's native join, and the state over micro-batches."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as one JSON object."),
) -> None:
    """Join two streams on Spark with at most M tuples of join state, shedding by PROB or another online policy.

    Example: shed stream-join --r zipf:1:650 --s zipf:1:650 --window 500 --memory 500 --shedding prob --out out/sj
    """
    from shedding.streaming.job import StreamJob, run
    from shedding.streaming.results import observed
    from shedding.streaming.shard import JoinSpec
    from shedding.streaming.sources import inspect_source, write_zipf_sources

    split = None if memory_split is None else parse_integers("--memory-split", memory_split, 2)
    m = window if memory is None else memory
    checkpoint = checkpoint or out_dir / "checkpoint"
    if zipf_source("--r", r) is not None:
        r_dir, s_dir = write_zipf_sources(r, s, out_dir / "sources", length, files, seed)
    else:
        r_dir, s_dir = Path(r), Path(s)
    src_r, src_s = inspect_source(r_dir, fmt, "stream R"), inspect_source(s_dir, fmt, "stream S")
    pay_r, pay_s = _payload(payload, src_r, src_s)
    spec = JoinSpec(window, m, shedding, split, shards, "online" if estimator == "online" else "static",
                    decay, seed, warmup, strict, pay_r, pay_s)
    job = StreamJob(src_r, src_s, out_dir, checkpoint, spec, estimator, trigger, max_files, master)

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
    _print(summary, f"{escape(spec.shedding.upper())}: w = {window}, M = {m}, {shards} shard(s)")


def _print(summary: dict, title: str) -> None:
    g = summary.get
    table = Table(show_edge=False, show_header=False, title=title)
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
