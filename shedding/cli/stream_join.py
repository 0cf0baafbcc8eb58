"""``shed stream-join``: the semantic window join as a Spark Structured Streaming job."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, Optional

import typer

from shedding.cli.checks import (choice, columns, in_int64, integer, integers, listed_in, number, parse_split,
                                 named, parsed, spark_master, split_list, value_check)
from shedding.cli.event_amounts import (amount, axis_of, check_range_text, check_timeout, given_amounts, instant,
                                        join_extent, warmup_step)
from shedding.cli.learner import CHECK_TUNING, TUNING_HELP, group_rule, tuning_rules
from shedding.cli.rules import Conflicts, Creatable, Exists, Holds, Ignored, Values
from shedding.cli.stream_output import print_summary, run_job, title
from shedding.cli.workload import fixed_split
from shedding.errors import ShedError
from shedding.online.policies import OFFLINE, POLICIES, STREAM, names_for, seeded

SHEDDING = ("none", *names_for(STREAM))
#: the policies with a fixed R/S split
FIXED = ", ".join(n for n in SHEDDING[1:] if not POLICIES[n].variable)
SHEDDING_HELP = ("none (the exact window join), " + FIXED
                 + " (fixed R/S split) or " + ", ".join(n for n in SHEDDING[1:] if POLICIES[n].variable)
                 + " (variable split); see shed simulate --help.")
#: the policies of shed simulate a stream cannot run, and what to give instead
NOT_STREAMED = {"exact": "is not a shedding policy: --shedding none runs the exact join (nothing shed)",
                **{name: "needs the whole stream in advance, so it runs in shed simulate (--policy opt or optv on the "
                   "same files), not on a stream; choose a policy: " + ", ".join(SHEDDING[1:]) for name in OFFLINE}}
FORMATS = ("csv", "parquet")
#: the most columns --payload all carries per stream; wider sources name their payload columns (a
#: CSV of 5,000 columns carried whole ran for more than 10 minutes)
MAX_ALL_PAYLOAD = 100


def zipf_source(flag: str, text: str) -> tuple[float, int] | None:
    """``zipf:SKEW:DOMAIN`` as (skew, domain); None for a folder or file."""
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
        raise ShedError("give zipf:SKEW:DOMAIN for both --r and --s, or a folder or file for both")
    if r is not None and s is not None and r[1] != s[1]:
        raise ShedError(f"--r {v.r} and --s {v.s} need the same domain (zipf:SKEW:DOMAIN); the skews may differ")


def check_estimator(flag: str, text: str) -> str:
    """online, static, or an existing frequency table file (returned as an absolute path)."""
    if text.strip().lower() in ("online", "static"):
        return text.strip().lower()
    if not Path(text).is_file():
        raise ShedError(f"{flag} {text!r} is neither online, static nor a frequency table file")
    from shedding.streaming.frequencies import load_frequency_table

    try:  # read whole now, before any folder is made: a table that cannot be read is refused up front
        load_frequency_table(str(Path(text)))
    except ShedError as exc:
        raise ShedError(named(exc, flag)) from None
    return str(Path(text).resolve())


def check_how(flag: str, text: str) -> str:
    """inner, left, right or full (Spark's other names for them, such as left_outer, taken)."""
    from shedding.streaming.spec import check_how as how

    try:
        return how(text)
    except ShedError as exc:
        raise ShedError(named(exc, flag)) from None


def check_remote(flag: str, text: str) -> str:
    """A Spark Connect URL, ``sc://HOST[:PORT]``, or ``local[N]`` for a server in this process."""
    if not re.fullmatch(r"sc://[^/:;\s]+(:\d+)?(/;\S*)?|local(\[([1-9]\d*|\*)\])?", text.strip()):
        raise ShedError(f"{flag} {text!r} is not a Spark Connect address; give sc://HOST:PORT (e.g. "
                        "sc://localhost:15002) or local[2] for a server in this process")
    return text.strip()


def check_time(v: Values) -> None:
    """The window, the lateness and the step in one unit (integers for integer times, lengths for
    timestamps), whole numbers of steps, and M against the window in steps it defaults to."""
    from shedding.model import Memory
    from shedding.streaming.event_time import INTEGER

    given = given_amounts(v.window, v.range_, v.time_step, v.allowed_lateness)
    axis = axis_of(given, v.time_step)
    if axis.kind != INTEGER and synthetic(v):
        flag, length = next((f, a) for f, a in given.items() if isinstance(a, str))
        raise ShedError(f"{flag.split()[0]} {length} is a length of time, but zipf sources have integer times; give it "
                        "in time steps")
    window, bounds = join_extent(axis, v.window, v.range_)
    axis.steps(given["--allowed-lateness"], "allowed_lateness")
    if axis.kind == INTEGER:
        warmup_step("--warmup", v.warmup, axis)
    split = None if v.memory_split is None else parse_split("--memory-split", v.memory_split)
    if v.memory is not None or axis.kind == INTEGER or v.time_step is not None:  # else w depends on the column (dates)
        Memory.of(window if v.memory is None else v.memory, split, bounds)


def check_keys(v: Values) -> None:
    """The key columns are not the time column."""
    if "time" in (k.lower() for k in split_list(v.key)):
        raise ShedError(f"--key {v.key} names the time column; give the key column(s) only")


def place(v: Values) -> str:
    """Where the executors of these flags run (:func:`~shedding.streaming.paths.place_of`)."""
    from shedding.streaming.paths import place_of

    return place_of(v.master, v.remote)


#: the folders of a job, by flag, and the library parameter each is
FOLDERS = {"--out": "out", "--checkpoint": "checkpoint", "--r": "r", "--s": "s"}


def check_places(v: Values) -> None:
    """Every folder is one the executors share with the driver (:mod:`shedding.streaming.paths`)."""
    from shedding.streaming.paths import shared_path

    where = place(v)
    for flag, name in FOLDERS.items():
        if v.of(flag) is not None and not (flag in ("--r", "--s") and synthetic(v)):
            shared_path(v.of(flag), where, name)


def check_apart(v: Values) -> None:
    """The output and the checkpoint are not inside a source folder, whose files the job reads."""
    from shedding.streaming.paths import shared_path

    if synthetic(v):
        return
    where = place(v)
    out = shared_path(v.of("--out"), where, "out")
    targets = {"--out": out, "--checkpoint": out / "checkpoint" if v.checkpoint is None else
               shared_path(v.checkpoint, where, "checkpoint")}
    for source in ("--r", "--s"):
        folder = shared_path(v.of(source), where, source.lstrip("-"))
        for flag, target in targets.items():
            if target == folder or target.is_relative_to(folder):
                raise ShedError(f"{flag} {target} is inside {source} {folder}: the job would read the files it "
                                f"writes as input; give a {flag} folder outside the sources")


def check_cluster(v: Values) -> None:
    """A master or Spark Connect server that answers (under spark-submit, spark-submit's master rules)."""
    import os

    from shedding.spark import check_master, check_remote

    if v.remote is not None:
        check_remote(v.remote)
    elif "PYSPARK_GATEWAY_PORT" not in os.environ:
        check_master(v.master)


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
    Ignored(("--key",), lambda v: not synthetic(v), "applies to source directories only; zipf sources have the "
            "columns time,key"),
    Ignored(("--seed",), lambda v: synthetic(v) or seeded(v.shedding),
            "seeds RAND's choices and zipf sources only"),
    Ignored(("--memory-split",), lambda v: fixed_split(v.shedding), "applies to the fixed-split policies "
            f"({FIXED}) only"),
    Ignored(("--decay",), lambda v: v.estimator == "online", "applies to the online estimator only"),
    group_rule(lambda v: [v.shedding], "--shedding"),
    Holds(lambda v: _group_names(v.group) if v.group is not None else None),
    Ignored(("--group",), lambda v: not synthetic(v) or not _payload_group(v.group), "needs payload columns, and "
            "zipf:SKEW:DOMAIN sources have only time and key", "give folders of CSV or Parquet files with the group "
            "column, or --group history"),
    *tuning_rules(lambda v: [v.shedding], "--shedding"),  # AGE learns: a frequency table holds no age curve
    Ignored(("--estimator",), lambda v: v.shedding != "none", "applies to shedding policies only, not to "
            "--shedding none"),
    Ignored(("--budget",), lambda v: v.shards > 1 and v.shedding != "none", "divides M over several shards: it "
            "applies to --shards 2 or more with a shedding policy"),
    Ignored(("--ui",), lambda v: v.remote is None, "keeps the web UI of a session this command starts; a Spark "
            "Connect server (--remote) has its own"),
    Conflicts(("--master",), ("--remote",), hint=": --remote runs on the Spark Connect server's master"),
    Conflicts(("--window",), ("--range",), hint=": --range LO,HI is the time range lo <= s.time - r.time <= hi, "
              "--window w the symmetric one"),
    Holds(check_keys),
    Holds(check_time),
    Holds(bounded_for_report),
    Holds(check_places),
    Creatable(("--out", "--checkpoint"), folder=True),  # first: --out naming a file is that, not "inside --r"
    Holds(check_apart),
    Exists(("--r", "--s"), folder=None, when=lambda v: not synthetic(v)),
    Holds(check_cluster),
)
ALIASES = {"split": "--memory-split", "step": "--time-step", "out": "--out", "range": "--range", "how": "--how"}


def _payload(text: str, src_r: Any, src_s: Any, keys: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``all`` (every column but time and the keys), ``none``, or a comma list present in both streams."""
    taken = {"time", *(k.lower() for k in keys)}
    extra = [tuple(c for c in src.columns if c.strip().lower() not in taken) for src in (src_r, src_s)]
    t = text.strip()
    if t.lower() == "all":
        wide = max(extra, key=len)
        if len(wide) > MAX_ALL_PAYLOAD:
            raise ShedError(f"--payload all would carry {len(wide):,} columns of stream "
                            f"{'RS'[extra.index(wide)]} into every pair (more than {MAX_ALL_PAYLOAD}); name the "
                            "columns you need (--payload a,b) or give --payload none")
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


def _group_names(text: str) -> tuple[str, ...]:
    """--group's columns (:func:`shedding.online.groups.group_columns`); ``auto`` is refused: the
    choice among candidate groupings reads the whole input, which a streaming shard never sees
    (``history``, the key's history, each shard keeps in its state)."""
    from shedding.online.groups import batch_only, group_columns

    names = group_columns(text) or ()
    if batch_only(names):
        raise ShedError(f"--group {batch_only(names)} is not available in stream-join (HAZARD uses it in simulate, "
                        "explain and the suites); give the payload column(s) by name, or history")
    return names


def _payload_group(text: str | None) -> tuple[str, ...]:
    """The payload columns among --group's (all but ``history``)."""
    from shedding.online.groups import group_columns, payload_names

    return payload_names(group_columns(text)) if text else ()


def _check_group(names: tuple[str, ...], src_r: Any, src_s: Any) -> None:
    """Each --group column but ``history`` is a column of both streams' sources."""
    from shedding.online.groups import payload_names

    for src, what in ((src_r, "R"), (src_s, "S")):
        have = {c.strip().lower() for c in src.columns}
        missing = [c for c in payload_names(names) if c.lower() not in have]
        if missing:
            raise ShedError(f"unknown --group column {missing[0]!r}; stream {what} has the columns "
                            f"{', '.join(src.columns)} (a group column must be in both streams)")


def stream_join(
    r: str = typer.Option(..., "--r", help="Stream R: a folder of CSV or Parquet files with columns "
                          "time,key[,payload...] (read in name order as they arrive), one such file, or "
                          "zipf:SKEW:DOMAIN for a synthetic stream."),
    s: str = typer.Option(..., "--s", help="Stream S, as --r."),
    out_dir: str = typer.Option(..., "--out", help="Output folder: pairs/ and metrics/ (Parquet, one batch=N "
                                "folder per micro-batch). On a cluster: a folder every worker shares, "
                                "file:///shared/..."),
    window: str = typer.Option("500", "--window", "-w", callback=amount(1), help="Window in the time's unit: time "
                               "steps for integer times (500), a length for timestamps (10 minutes). --range replaces "
                               "it."),
    range_: Optional[str] = typer.Option(None, "--range", callback=value_check(check_range_text), show_default=False,
                                         help="Instead of --window, a time range LO,HI in the time's unit: s pairs "
                                         "with r when lo <= s.time - r.time <= hi (0,720; '0 seconds,12 hours'; "
                                         "either may be negative)."),
    how: str = typer.Option("inner", "--how", callback=value_check(check_how), help="inner (pairs only), left, "
                            "right or full: also a row for each R (left), S (right) or either (full) tuple that "
                            "left its range without a pair, nulls for the other side, and a column shed: true "
                            "when it or a partner it missed was shed."),
    time_step: Optional[str] = typer.Option(None, "--time-step", callback=amount(1), show_default=False,
                                            help="Time step: an integer for integer times (default 1), a length "
                                            "for timestamps (default 1 second; 1 day for dates)."),
    key: str = typer.Option("key", "--key", callback=columns(), help="Key column, or a comma list for a composite "
                            "key; keys of any type join on equal values."),
    allowed_lateness: str = typer.Option("0", "--allowed-lateness", callback=amount(0),
                                         help="Tuples this far behind the other stream still join, in order (the "
                                         "window's unit); as many more steps are held back."),
    idle_timeout: Optional[str] = typer.Option(None, "--idle-timeout", callback=value_check(check_timeout),
                                               show_default=False, help="A stream that sends nothing for this long "
                                               "(30, 30 seconds) stops holding the other one back."),
    max_held: Optional[int] = typer.Option(None, "--max-held", callback=integer(0), show_default=False,
                                           help="At most this many tuples held back over all shards (default: no "
                                           "cap): the oldest held steps are joined early, their later tuples are "
                                           "late (--strict stops instead). State: M plus this."),
    budget: str = typer.Option("shared", "--budget", callback=choice(listed_in("shedding.streaming.budget", "BUDGETS")),
                               help="shared (M re-divided over the shards every micro-batch by their load and "
                               "value) or even (M/P each)."),
    memory: Optional[int] = typer.Option(None, "--memory", "-m", callback=integer(0), show_default=False,
                                         help="Join memory M in tuples over all shards (default: w; under --range "
                                         "max(HI, -LO) + 1 steps)."),
    shedding: str = typer.Option("prob", "--shedding", callback=choice(SHEDDING, "policy", advice=NOT_STREAMED), help=SHEDDING_HELP),
    checkpoint: Optional[str] = typer.Option(None, "--checkpoint", show_default=False,
                                             help="Checkpoint folder (default: OUT/checkpoint). Rerun the same "
                                             "command to continue after a crash."),
    fmt: Optional[str] = typer.Option(None, "--format", callback=choice(FORMATS), show_default=False,
                                      help="csv or parquet (default: from the files)."),
    master: str = typer.Option("local[*]", "--master", callback=value_check(spark_master),
                               help="Spark master: local[*] (embedded) or spark://HOST:PORT."),
    remote: Optional[str] = typer.Option(None, "--remote", callback=value_check(check_remote), show_default=False,
                                         help="Run on a Spark Connect server (sc://HOST:PORT) instead of --master."),
    ui: bool = typer.Option(False, "--ui", help="Keep Spark's web UI and print its address."),
    shards: int = typer.Option(1, "--shards", callback=integer(1),
                               help="Shards P: keys are split by hash, and M over the shards."),
    trigger: str = typer.Option("available-now", "--trigger", callback=parsed(_trigger),
                                help="available-now or once (bounded input: the last held steps are joined at the "
                                "end), or interval:SECONDS (runs until Ctrl-C or SIGTERM, which stop after a "
                                "committed micro-batch with exit 0)."),
    max_files: Optional[int] = typer.Option(None, "--max-files-per-trigger", callback=integer(1), show_default=False,
                                            help="Files per stream and micro-batch (default: all new files)."),
    memory_split: Optional[str] = typer.Option(None, "--memory-split", callback=integers(2), show_default=False,
                                               help=f"Fixed split M_R,M_S for the fixed-split policies ({FIXED}; "
                                               "default: M//2, M-M//2; all of M to R or S on a --range that stores "
                                               "one side)."),
    estimator: str = typer.Option("online", "--estimator", callback=value_check(check_estimator),
                                  help="online (key counts so far, per shard), static (counted from the files "
                                  "present at the first start) or the path of a frequency table with columns "
                                  "key,count_r,count_s."),
    decay: float = typer.Option(1.0, "--decay", callback=number(0, above=True, high=1),
                                help="Online estimator: weight an arrival keeps per time step."),
    seed: int = typer.Option(0, "--seed", callback=integer(0), help="Seed of RAND's choices (shard i uses seed + i) "
                             "and of zipf sources."),
    warmup: str = typer.Option("0", "--warmup", callback=value_check(instant),
                               help="First time step whose pairs are output: an integer step of the time axis, or for "
                               "timestamps and dates an instant such as '2013-03-01 06:00' (UTC without an offset), "
                               "whose step begins the output."),
    strict: bool = typer.Option(False, "--strict", help="Fail on a late tuple, or on a file named before one "
                        "already read, instead of counting and dropping it."),
    payload: str = typer.Option("all", "--payload", help="Columns carried into the pairs as r_<c>, s_<c>: all "
                                "(every column but time and the keys), none, or a comma list."),
    length: int = typer.Option(20000, "--length", callback=integer(1),
                               help="zipf sources: tuples per stream (one per time step)."),
    files: int = typer.Option(20, "--files", callback=integer(1), help="zipf sources: files per stream."),
    report: bool = typer.Option(False, "--report", help="Also write OUT/report.html: the output against shed "
                                "simulate, EXACT and Spark's native join, and the state over micro-batches."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as one JSON object."),
    tuning: Optional[str] = typer.Option(None, "--tuning", callback=CHECK_TUNING, show_default=False,
                                         help=TUNING_HELP),
    group: Optional[str] = typer.Option(None, "--group", show_default=False,
                                        help="--shedding hazard or hazardv: the column of both streams whose values "
                                        "get age curves of their own, or a comma list whose combinations do "
                                        "(strings, integers, any type; at most 1,000 groups per shard); history "
                                        "groups each tuple by how soon its key's previous tuple met a partner "
                                        "(no column needed; combines with columns: dest,history); auto-history: "
                                        "HAZARD picks between that and no group as it learns, its default under a "
                                        "one-sided --range (none on the window); none: no group."),
) -> None:
    """Join two streams on Spark with at most M tuples of join state, shedding by PROB or another online policy.

    Writes OUT/pairs and OUT/metrics as Parquet, a batch=N folder per micro-batch; a rerun goes on from the last.

    Pairs: key, r_time, s_time, event_time, payloads r_<c> and s_<c>; with --how, shed.

    Bad input is one line, error: ..., and exit code 2.

    Example: shed stream-join --r zipf:1:650 --s zipf:1:650 --window 500 --memory 500 --shedding prob --out out/sj
    """
    from shedding.streaming.event_time import TimeAxis, kind_named, timeout_ms
    from shedding.streaming.job import StreamJob, job_sources, parse_trigger
    from shedding.streaming.paths import place_of, shared_path
    from shedding.streaming.shard import JoinSpec
    from shedding.streaming.spec import spec_group
    from shedding.streaming.sources import write_zipf_sources

    where = place_of(master, remote)
    out_path = shared_path(out_dir, where, "out")
    checkpoint_path = out_path / "checkpoint" if checkpoint is None else shared_path(checkpoint, where, "checkpoint")
    keys = tuple(split_list(key))
    if zipf_source("--r", r) is not None:
        r_dir, s_dir = write_zipf_sources(r, s, out_path / "sources", length, files, seed)
    else:
        r_dir, s_dir = shared_path(r, where, "r"), shared_path(s, where, "s")
    src_r, src_s = job_sources(checkpoint_path, r_dir, s_dir, fmt, keys)
    pay_r, pay_s = _payload(payload, src_r, src_s, keys)
    groups = _group_names(group) if group is not None else None
    _check_group(groups or (), src_r, src_s)
    step: int | str | None = time_step  # the amounts as their callbacks parsed them (amount)
    axis = TimeAxis.of(kind_named(next(t for c, t in src_r.types.items() if c.strip().lower() == "time"), step), step)
    w, bounds = join_extent(axis, window, range_)
    lateness = axis.steps(allowed_lateness, "allowed_lateness")
    split = None if memory_split is None else parse_split("--memory-split", memory_split)
    m = w if memory is None else memory
    spec = JoinSpec(w, m, shedding, range=bounds, how=how, memory_split=split, shards=shards,
                    estimator="online" if estimator == "online" else "static", decay=decay, seed=seed,
                    warmup=warmup_step("--warmup", warmup, axis), strict=strict, payload_r=pay_r, payload_s=pay_s, budget=budget, lateness=lateness,
                    idle_timeout_ms=None if idle_timeout is None else timeout_ms(idle_timeout, "idle_timeout"),
                    tuning=tuning or "", max_held=max_held, group=spec_group(groups, shedding, bounds))
    job = StreamJob(src_r, src_s, out_path, checkpoint_path, spec, estimator=estimator, trigger=trigger,
                    max_files_per_trigger=max_files, master=master, key=keys, time="time", step=step, ui=ui,
                    remote=remote)
    summary = run_job(job, parse_trigger(trigger)[1], report, as_json, ui)
    if as_json:
        print(json.dumps(summary))
        return
    print_summary(summary, title(spec), outer=spec.how != "inner")
