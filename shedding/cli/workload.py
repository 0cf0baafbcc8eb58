"""The flags shared by ``simulate``, ``opt`` and ``explain``: the workload flags, their rules and
the Workload they describe (two files ``--r/--s``, one file ``--workload``, or the Zipf generator
of paper §4.1), and the memory split's check."""

from __future__ import annotations

import datetime as dt
import functools
import inspect
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional

import typer

from shedding.cli.checks import choice, integer, listed_in, number, parse_split, skews, value_check
from shedding.cli.event_amounts import amount, axis_of, check_range_text, given_amounts, join_extent
from shedding.cli.output import busy
from shedding.cli.rules import Conflicts, Exists, Fits, Holds, Ignored, Together, Values
from shedding.errors import ShedError

if TYPE_CHECKING:
    from shedding.model import Memory, Workload

ESTIMATORS = ("static", "online")
FILE_FORMATS = ("ndp", "synop", "csv", "parquet")
WEATHER_FORMATS = ("ndp", "synop")
CORRELATIONS = listed_in("shedding.datasets.zipf", "CORRELATIONS")
GENERATORS = listed_in("shedding.datasets.generators", "GENERATORS")
#: the registry of generated workloads, read for help texts (it imports no generator)
SOURCES = import_module("shedding.datasets.generators").GENERATORS
#: the generators that take --param (zipf takes its own flags)
PARAM_GENERATORS = tuple(n for n in SOURCES if n != "zipf")
GROUP_HELP = ("HAZARD: the payload column whose values get age curves of their own, or a comma list of columns "
              "whose value combinations do: a CSV or Parquet file's own columns beside stream, time and key "
              "(strings or integers), or --generator flights' dest, carrier and origin; at most 1,000 groups. "
              "auto: HAZARD picks the column itself, or none, as it learns (among those with at most 1,000 "
              "values, the first five). history: how soon the key's previous tuple met a partner (no column "
              "needed); auto-history: HAZARD picks between that and no group as it learns, its default under a "
              "one-sided --range (none on the window); none: no group.")
MAX_GRAPH_HELP = ("OPT/OPTV: refuse, before building it, a network whose estimated peak memory (network plus "
                  "solver workspace) is above this many GiB.")
GENERATOR_FLAGS = ("--zipf-skew", "--domain", "--length", "--seed", "--correlation", "--generator", "--param")
ZIPF_FLAGS = ("--zipf-skew", "--domain", "--correlation")
#: bytes a run takes per generated tuple (the workload's arrays, the reference and a policy's
#: schedule) and per join value (Zipf's probabilities and the S value map): an estimate
TUPLE_BYTES, VALUE_BYTES = 64, 32


def _flag(name: str, annotation: str, option: Any) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=option, annotation=annotation)


# The workload flags, shared by every command that takes a workload (see ``takes_workload``).
WORKLOAD_FLAGS = (
    _flag("workload", "Optional[Path]", typer.Option(
        None, "--workload", help="CSV or Parquet file with columns stream (R/S), time, key; replaces the Zipf "
        "generator.", show_default=False)),
    # "\\[data]": rich would read [data] as markup and drop it
    _flag("generator", "str", typer.Option("zipf", "--generator", callback=choice(GENERATORS),
                                           help="The generated workload: " + ", ".join(
                                               f"{n} ({s.summary}"
                                               + (f"; pip install 'shedding\\[{s.extra}]')" if s.extra else ")")
                                               for n, s in SOURCES.items()) + ".")),
    _flag("param", "Optional[list[str]]", typer.Option(
        None, "--param", show_default=False, help=f"A parameter of --generator {', '.join(PARAM_GENERATORS)} as "
        "NAME=VALUE (repeat the flag), e.g. --param lag_spread=20 --param background=0.25, --param months=7-12.")),
    _flag("zipf_skew", "str", typer.Option("1.0", "--zipf-skew", callback=skews(),
                                           help="Zipf parameter of both streams (0 = uniform), or R's and S's, "
                                           "e.g. 0.5,1.5.")),
    _flag("domain", "int", typer.Option(50, "--domain", callback=integer(1), help="Number of distinct join values.")),
    _flag("length", "int", typer.Option(5600, "--length", callback=integer(1),
                                        help="The generated stream's time steps: for zipf and drift the "
                                        "tuples per stream (one R and one S tuple per step); age and bursts draw "
                                        "their own number of tuples per step.")),
    _flag("seed", "int", typer.Option(0, "--seed", callback=integer(0), help="Seed of the generated workload.")),
    _flag("correlation", "str", typer.Option("independent", "--correlation", callback=choice(CORRELATIONS),
                                             help="independent (paper's uncorrelated), same (correlated) or "
                                             "reversed.")),
    _flag("window", "str", typer.Option("400", "--window", "-w", callback=amount(1),
                                        help="Window size w in time steps; for a file of timestamps a length of "
                                        "time such as '10 minutes' (a whole number of --time-step).")),
    _flag("join_range", "Optional[str]", typer.Option(
        None, "--range", callback=value_check(check_range_text), show_default=False,
        help="A time range LO,HI instead of the window: r and s join when LO <= s.time - r.time <= HI (any "
        "integers, LO <= HI; --window w is the range -(w-1),w-1), e.g. --range 0,719 for an arrival within 12 "
        "hours after its departure (for timestamps --range '0 seconds,12 hours'); a side that can meet no later "
        "arrival is never stored.")),
    _flag("time_step", "Optional[str]", typer.Option(
        None, "--time-step", callback=amount(1), show_default=False,
        help="CSV or Parquet files: how the times become steps. For timestamps (or dates) a length of time "
        "(default 1 second when --window or --range is a length; 1 day for Parquet dates), steps counted from the first; for integer times "
        "an integer k (time v is in step v // k), as shed stream-join cuts them.")),
    _flag("warmup", "Optional[str]", typer.Option(None, "--warmup", callback=amount(0), show_default=False,
                                                  help="First time step whose outputs count (default: 2w, with --range twice the longest a tuple waits, "
                                                       "2 (max(HI, -LO) + 1); 0 for the flights, which count from the first departure). With "
                                                       "timestamps step 0 is the first step of both streams, and the warmup may be "
                                                       "a length of time such as '5 minutes' (a whole number of --time-step).")),
    _flag("r_path", "Optional[Path]", typer.Option(
        None, "--r", help="Stream R from a file (with --s): NDP-026B cloud reports, Meteo-France SYNOP, or "
        "CSV/Parquet with columns time,key (one file, or a folder of files read in name order).", show_default=False)),
    _flag("s_path", "Optional[Path]", typer.Option(None, "--s", help="Stream S from a file (with --r).",
                                                   show_default=False)),
    _flag("fmt", "Optional[str]", typer.Option(None, "--format", callback=choice(FILE_FORMATS), show_default=False,
                                               help="Format of --r/--s: ndp, synop, csv or parquet (default: from "
                                               "the extension).")),
    _flag("cell_size", "float", typer.Option(10.0, "--cell-size", callback=number(0, above=True),
                                             help="Weather formats: grid cell size in degrees (the join key).")),
    _flag("stations", "Optional[Path]", typer.Option(None, "--stations", show_default=False,
                                                     help="SYNOP: the station table postesSynop.csv (default: next "
                                                     "to the --r file).")),
)
#: the library's names of the parameters these flags set, where the flags name them differently
ALIASES = {"skew": "--zipf-skew", "path": "--workload", "split": "--memory-split", "step": "--time-step",
           "time_step": "--time-step", "range": "--range",
           "max_graph_bytes": "--max-graph-gib", "params": "--param", "streams": "--r and --s"}
#: where the commands without --bounds send a user whose OPT network is too large
OPT_BOUNDS = {"bounds": "shed opt --bounds"}


def generated(v: Values) -> bool:
    """The workload comes from the Zipf generator (no file given)."""
    return v.workload is None and v.r_path is None and v.s_path is None


def check_generator(v: Values) -> None:
    """--generator's --param items parse (a generator that reads its tuples, as the flights do,
    checks them all: the month range, the key column), then its package imports (which, for the
    flights, reads their table): all before any data is used."""
    from shedding.datasets.generators import check_available, check_params, parse_params

    if not generated(v):
        return
    params = parse_params(v.generator, v.param or [])
    if not SOURCES[v.generator].drawn:
        try:
            check_params(v.generator, params, window=window_of(v))
        except ShedError as exc:
            raise ShedError(exc.template.replace("{param}", "--param " + str(exc.param))) from None
    check_available(v.generator)


ESTIMATOR_HELP = ("static: the whole stream's key frequencies (as in the paper; they read each key's future "
                  "arrivals); online: the counts of what has arrived so far. Default: static on the paper's Zipf "
                  "streams and weather data, online on CSV/Parquet files, the flights and the other generators.")


def estimator_of(v: Values) -> str:
    """The estimator the run will use, from the flags alone: --estimator, else the workload's
    default (:func:`shedding.online.estimators.default_estimator`'s rule): the generator's, online
    for CSV or Parquet files, static for the weather formats."""
    if v.estimator is not None:
        return str(v.estimator)
    if generated(v):
        return str(SOURCES[v.generator].estimator)
    if v.workload is None and file_format(v) in WEATHER_FORMATS:
        return "static"
    return "online"


def check_group(v: Values) -> None:
    """--group names payload columns the workload has, checked before any data is read: the
    generated workload's (the registry's ``payload``: the flights' dest, carrier, origin) or a
    CSV or Parquet file's own columns beside stream, time and key (both files' with --r/--s); a
    comma list combines them (:mod:`shedding.online.groups`); ``auto`` needs some payload column,
    ``history`` none."""
    if v.group is None:
        return
    from shedding.online.groups import group_columns, is_auto, payload_names

    columns = payload_names(group_columns(v.group))  # history needs no payload
    if not columns:
        return
    fix = ("give --group history (the key's history needs no column), or --group with --generator "
           + " or ".join(n for n, s in SOURCES.items() if s.payload)
           + ", or with a CSV or Parquet --workload or --r/--s file that has columns beside time and key")
    if generated(v):
        if not SOURCES[v.generator].payload:
            raise ShedError(f"--group needs payload columns per tuple, and --generator {v.generator} has none; {fix}, "
                            "or drop --group")
        available, where = list(SOURCES[v.generator].payload_columns()), f"--generator {v.generator}"
    elif file_format(v) in WEATHER_FORMATS:
        raise ShedError(f"--group needs payload columns per tuple, and the weather formats have none; {fix}")
    else:
        available_or_none, where = _file_payload(v)
        if available_or_none is None:
            return  # an unreadable header: the read says why
        available = available_or_none
    if is_auto(columns):
        if not available:
            raise ShedError(f"--group auto picks among the payload columns, and {where} has none; {fix}, or drop --group")
        return
    lower = {c.lower() for c in available}
    for c in columns:
        if c not in available and c.lower() not in lower:
            listed = ", ".join(available) if available else "none"
            raise ShedError(f"unknown --group column {c!r}; the payload columns of {where} are: {listed}")


def _file_payload(v: Values) -> tuple[list[str] | None, str]:
    """The payload columns of the workload's files (:func:`~shedding.datasets.files.payload_header`)
    and how to name the files."""
    from shedding.datasets.files import payload_header

    if v.workload is not None:
        return payload_header(v.workload, ("stream", "time", "key")), f"--workload {v.workload}"
    r, s = payload_header(v.r_path, ("time", "key")), payload_header(v.s_path, ("time", "key"))
    if r is None or s is None:
        return None, ""
    in_s = {c.lower() for c in s}
    return [c for c in r if c.lower() in in_s], f"--r {v.r_path} and --s {v.s_path} (the columns both have)"


def file_format(v: Values) -> str | None:
    """The format of --r/--s: --format, else the one the extension names (of a folder's files,
    :func:`~shedding.datasets.files.stream_files`; None without --r)."""
    if v.r_path is None:
        return None
    if v.fmt is not None:
        for flag, param, path in (("--r", "r_path", v.r_path), ("--s", "s_path", v.s_path)):
            if v.fmt in WEATHER_FORMATS and path is not None and Path(path).is_dir():
                raise ShedError(f"{flag} {path} is a folder, and the weather formats read one file per stream; give "
                                "the reports' file")
            try:
                found = stream_format(path, param) if path is not None else None
            except ShedError:
                continue  # an extension that names no format (weather files): --format decides
            if found != v.fmt and not (v.fmt == "synop" and found == "csv"):  # SYNOP files are .csv text
                raise ShedError(f"--format {v.fmt} contradicts {flag} {path}, whose extension says {found}; drop "
                                "--format or give a file of that format")
        return v.fmt
    try:
        return stream_format(v.r_path, "r_path")
    except ShedError as exc:
        if exc.param == "r_path":
            raise
        raise ShedError(f"--r {v.r_path}: unknown file format; add --format ndp, synop, csv or parquet") from None


def stream_format(path: Path, param: str) -> str:
    """The format of one stream's file, or of its folder's files
    (:func:`~shedding.datasets.files.stream_files`, refused naming ``param`` when it holds none)."""
    from shedding.datasets.files import format_of, stream_files

    return format_of(stream_files(Path(path), param)[0])


def fixed_split(name: str) -> bool:
    """Whether policy ``name`` divides memory into a fixed M_R + M_S (OPT and the fixed-split
    online policies; not EXACT, OPTV or the variable-split policies)."""
    from shedding.online.policies import POLICIES

    return name == "opt" or (name in POLICIES and not POLICIES[name].variable)


def extent(join_range: Optional[str], window: int | str, time_step: int | str | None, dates: bool = False
           ) -> tuple[int, tuple[int, int] | None, int | dt.timedelta | None]:
    """(w, bounds, step): the window in time steps (under --range the longest a tuple waits for a
    partner, plus one, :func:`~shedding.timerange.range_horizon`, which also sets the default warmup
    and M), the range in steps (None: the window) and the time step the files are read with (None:
    integer steps as written; :mod:`shedding.datasets.times`). --window, --range and --time-step are
    all integers or all lengths of time (then timestamps, by default in steps of 1 second, or of 1
    day when the files' times are ``dates``: :func:`dates_of`), as for ``shed stream-join``
    (:func:`~shedding.cli.event_amounts.join_extent`)."""
    from shedding.streaming.event_time import DATE, INTEGER, TimeAxis

    axis = axis_of(given_amounts(window, join_range, time_step), time_step)
    if dates and axis.kind != INTEGER:
        axis = TimeAxis.of(DATE, time_step)
    w, bounds = join_extent(axis, window, join_range)
    if axis.kind != INTEGER:
        return w, bounds, dt.timedelta(microseconds=axis.step)
    return w, bounds, None if time_step is None else axis.step


def dates_of(workload: Optional[Path], r_path: Optional[Path], s_path: Optional[Path]) -> bool:
    """Whether the CSV or Parquet files given hold dates as times (Parquet date columns in every
    stream: :func:`~shedding.datasets.files.dated`), which ``shed stream-join`` cuts by a day."""
    from shedding.datasets.files import dated

    paths = [p for p in (workload, r_path, s_path) if p is not None]
    return bool(paths) and all(dated(p) for p in paths)


def extent_of(v: Values) -> tuple[int, tuple[int, int] | None, int | dt.timedelta | None]:
    """:func:`extent` of the flags ``v``."""
    return extent(v.join_range, v.window, v.time_step, dates_of(v.workload, v.r_path, v.s_path))


def window_of(v: Values) -> int:
    """The workload's window w in time steps (:func:`extent`)."""
    return extent_of(v)[0]


def check_time(v: Values) -> None:
    """--window, --range and --time-step agree (:func:`extent`); lengths of time and --time-step
    are for CSV or Parquet files, whose times may be timestamps: a generated workload and the
    weather formats count integer time steps."""
    _, _, step = extent_of(v)
    weather = not generated(v) and v.workload is None and file_format(v) in WEATHER_FORMATS
    if weather and v.time_step is not None:
        raise ShedError("--time-step applies to CSV or Parquet files, not to the weather formats, whose time steps are "
                        "hours")
    if not isinstance(step, dt.timedelta):
        return
    flag = "--range" if v.join_range is not None else "--window"
    if generated(v):
        raise ShedError(f"{flag} is a length of time, but --generator {v.generator} counts integer time steps; give "
                        "it in time steps")
    if weather:
        raise ShedError(f"{flag} is a length of time, but the weather formats count integer time steps (hours); give "
                        "it in time steps")


def memory_of(v: Values) -> int:
    """M as the run will use it: --memory, else the window (:func:`window_of`)."""
    return window_of(v) if v.memory is None else v.memory


def check_split(v: Values) -> Memory:
    """M and --memory-split, checked once by the library (:meth:`~shedding.model.Memory.of`) before
    any data is read, under --range (a split giving memory to a side the range never stores is
    refused; the default split follows the range); the body takes the result
    (``checked(check_split)``) and passes it down."""
    from shedding.model import Memory

    split = None if v.memory_split is None else parse_split("--memory-split", v.memory_split)
    return Memory.of(memory_of(v), split, extent_of(v)[1])


def zipf_bytes(v: Values) -> float:
    """About what a run on the generated workload allocates: its tuples and its key domain. A
    generator beyond Zipf draws ``rate`` tuples per step (``rate_high`` in a burst) over ``length``
    steps, and the age model's S stream adds its background traffic (a share ``background`` of S),
    so its size counts those parameters too, not ``--length`` alone."""
    if v.generator == "zipf":
        return 2.0 * v.length * TUPLE_BYTES + float(v.domain) * VALUE_BYTES
    from shedding.datasets.generators import own_params, parse_params, source

    if not source(v.generator).drawn:  # read, not drawn (the flights): sized by what it reads
        return 0.0

    params = {**own_params(v.generator), **parse_params(v.generator, v.param or [])}
    number = {k: float(x) for k, x in params.items() if isinstance(x, (int, float)) and not isinstance(x, bool)}
    per_step = max([1.0] + [x for k, x in number.items() if k.startswith("rate")])
    background = min(max(number.get("background", 0.0), 0.0), 0.999999)
    tuples = v.length * per_step * (1.0 + 1.0 / (1.0 - background))
    return tuples * TUPLE_BYTES + max(number.get("domain", 0.0), 0.0) * VALUE_BYTES


#: the rules of the workload flags, in the order they are checked
WORKLOAD_RULES = (
    Together(("--r", "--s"), " (one file per stream)"),
    Conflicts(("--workload",), ("--r", "--s")),
    Conflicts(("--generator",), ("--workload", "--r", "--s"), ": a workload is generated or read from files"),
    Ignored(GENERATOR_FLAGS, generated, "applies to the generated workloads (--generator), not to --workload or "
            "--r/--s files"),
    Ignored(ZIPF_FLAGS, lambda v: v.generator == "zipf", "applies to --generator zipf only",
            "give the other generators' skew, domain or correlation as --param NAME=VALUE"),
    Ignored(("--length", "--seed"), lambda v: SOURCES[v.generator].drawn,
            f"does not apply to --generator {' or '.join(n for n, s in SOURCES.items() if not s.drawn)} (its tuples "
            "are read, not drawn)"),
    Ignored(("--param",), lambda v: v.generator in PARAM_GENERATORS,
            f"applies to --generator {', '.join(PARAM_GENERATORS)}", "zipf takes its own flags"),
    Ignored(("--time-step",), lambda v: not generated(v), "applies to CSV or Parquet files (--workload, --r/--s), "
            "not to a generated workload"),
    Holds(check_time),
    Holds(check_generator),
    Ignored(("--format",), lambda v: v.r_path is not None, "applies to the files of --r/--s only"),
    Holds(file_format),
    Ignored(("--cell-size",), lambda v: file_format(v) in WEATHER_FORMATS,
            "applies to the weather formats (ndp, synop) only"),
    Ignored(("--stations",), lambda v: file_format(v) == "synop",
            "applies to SYNOP files only (--r/--s with --format synop)"),
    Conflicts(("--range",), ("--window",), " (--window w is the range -(w-1),w-1)"),
    Exists(("--workload", "--stations")),
    Exists(("--r", "--s"), folder=None),  # a file, or a folder of one stream's files
    Fits(("--length", "--domain", "--param"), zipf_bytes, "the generated workload and its runs", when=generated),
)


def build_workload(join_range: Optional[str], window: int | str, time_step: int | str | None, **flags: Any) -> Workload:
    """The workload the (checked) flags describe, with the time range of --range."""
    w, bounds, step = extent(join_range, window, time_step, dates_of(flags["workload"], flags["r_path"], flags["s_path"]))
    flags["warmup"] = warmup_steps(flags["warmup"], step)
    wl = read_workload(window=w, time_step=step, **flags)
    return wl if bounds is None else wl.with_params(range=bounds)


def warmup_steps(warmup: int | str | None, step: int | dt.timedelta | None) -> int | None:
    """--warmup in time steps: an integer is steps as given; a length of time (``5 minutes``), for
    files of timestamps, a whole number of the time step (``step``, :func:`extent`)."""
    from shedding.streaming.event_time import TIMESTAMP, TimeAxis

    if not isinstance(warmup, str):
        return warmup
    if not isinstance(step, dt.timedelta):
        raise ShedError(f"--warmup {warmup!r} is a length of time, but these times are integer steps; give it as a "
                        "number of time steps")
    return TimeAxis(TIMESTAMP, step // dt.timedelta(microseconds=1)).steps(warmup, "--warmup")


def read_workload(workload: Optional[Path], generator: str, param: Optional[list[str]], zipf_skew: tuple[float, float],
                  domain: int, length: int, seed: int, correlation: str, window: int, warmup: Optional[int],
                  r_path: Optional[Path], s_path: Optional[Path], fmt: Optional[str], cell_size: float,
                  stations: Optional[Path], time_step: int | dt.timedelta | None = None) -> Workload:
    """The workload the (checked) flags describe, with the window ``window`` (in time steps, of
    ``time_step`` for CSV or Parquet files)."""
    from shedding.datasets import load_two_streams, load_workload, zipf_workload

    if r_path is not None and s_path is not None:
        fmt = fmt or stream_format(r_path, "r_path")
        if fmt in WEATHER_FORMATS:
            from shedding.datasets.weather import weather_workload

            with busy("preparing the weather workload (Spark; cached after the first run)..."):
                return weather_workload(r_path, s_path, fmt, window, warmup, cell_size=cell_size, stations=stations)
        return load_two_streams(r_path, s_path, window, warmup, time_step)
    if workload is not None:
        return load_workload(workload, window, warmup, time_step)
    if generator != "zipf":
        from shedding.datasets.generators import generate, parse_params

        with busy(f"generating the {generator} workload..."):
            return generate(generator, parse_params(generator, param or []), window=window, warmup=warmup,
                            length=length, seed=seed)
    return zipf_workload(zipf_skew[0], domain, length, seed, correlation, window, warmup, skew_s=zipf_skew[1])


def takes_workload(command: Callable[..., None]) -> Callable[..., None]:
    """Give ``command`` the workload flags (after its own options). It receives ``load``, a function
    that builds the Workload, so its body can read the data when it needs it."""
    own = [p for p in inspect.signature(command).parameters.values() if p.name != "load"]

    @functools.wraps(command)
    def run(**kwargs: Any) -> None:
        flags = {p.name: kwargs.pop(p.name) for p in WORKLOAD_FLAGS}
        command(load=lambda: build_workload(**flags), **kwargs)

    params = [*own, *WORKLOAD_FLAGS]
    run.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in params}
    return run
