"""``shed compare``: run an experiment suite and write its HTML report.

Three kinds of suite: the DGR suites (paper §4, on Spark; ``weather`` reads two report files),
the W-join suites (synthetic streams, timed one run at a time in this process) and the
bestmatch suite (generated inputs, in this process). Each kind reads its own flags; a flag the
chosen suite does not read is refused.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any, Optional

import typer
from rich.markup import escape

from shedding.cli.checks import choice, integer, named, number
from shedding.cli.output import err, out
from shedding.cli.rules import Creatable, Exists, Fits, Holds, Together, Values
from shedding.errors import ShedError

FORMATS = ("ndp", "synop")
#: the flags each kind of suite reads, besides --suite, --out and --json
READS = {
    "dgr": ("--master", "--resume", "--seeds", "--jobs", "--r", "--s", "--format", "--cell-size", "--stations",
            "--max-graph-gib"),
    "wjoin": ("--resume", "--seeds"),
    "bestmatch": (),
}
FILE_FLAGS = ("--r", "--s", "--format", "--cell-size", "--stations")
WHY = {"wjoin": "it generates its streams and times one run at a time in this process, not on Spark",
       "bestmatch": "it generates its inputs and runs in minutes in this process"}
#: bytes a planned run takes before it runs (its spec, its result row, its line in a part file): an estimate
RUN_BYTES = 4096


def suite_kind(text: str) -> tuple[str, Any]:
    """The kind of suite ``--suite`` names (dgr, wjoin or bestmatch) and the suite, loaded and checked."""
    from shedding.studies.bestmatch_suite import load_bestmatch_suite
    from shedding.studies.suites import is_bestmatch_suite, load_suite
    from shedding.studies.wjoin_suite import load_wjoin_suite

    try:
        wjoin = load_wjoin_suite(text)
        if wjoin is not None:
            return "wjoin", wjoin
        if is_bestmatch_suite(text):
            return "bestmatch", load_bestmatch_suite(text)
        return "dgr", load_suite(text)
    except ShedError as exc:  # a suite file's problem names --suite
        raise ShedError(named(exc, "--suite")) from None


def check_flags(v: Values) -> None:
    """Every flag given is one the suite reads: its kind's flags, and the file flags only for a
    suite that reads report files."""
    kind, suite = suite_kind(v.suite)
    stray = [f for f in READS["dgr"] if v.given(f) and f not in READS[kind]]
    if stray:
        name = suite["name"] if kind == "bestmatch" else suite.name
        raise ShedError(f"options {', '.join(stray)} do not apply to the {kind} suite {name}: {WHY[kind]}; "
                        f"drop them")
    if kind == "dgr" and not suite.reads_files:
        stray = [f for f in FILE_FLAGS if v.given(f)]
        if stray:
            raise ShedError(f"suite {suite.name} reads no report files; drop {', '.join(stray)} or use a suite that "
                            f"reads them (weather)")
    if kind == "dgr" and suite.reads_files and v.r_path is None:
        raise ShedError(f"suite {suite.name} reads two report files; give them with --r PATH --s PATH")
    if v.stations is not None and v.fmt != "synop":
        raise ShedError("--stations applies to SYNOP files only (--format synop); drop it")


def planned_bytes(v: Values) -> float:
    kind, suite = suite_kind(v.suite)
    return float(len(suite.runs(1))) * v.seeds * RUN_BYTES


RULES = (
    Holds(check_flags),
    Together(("--r", "--s"), " (one report file per stream)"),
    Exists(("--r", "--s", "--stations")),
    Creatable(("--out",), folder=True),
    Fits(("--seeds",), planned_bytes, "the planned runs", when=lambda v: v.seeds is not None),
)
ALIASES = {"max_graph_bytes": "--max-graph-gib"}
MAX_GRAPH_HELP = ("OPT/OPTV runs: solve exactly when the network's estimated peak memory (network plus solver "
                  "workspace) is at most this many GiB, else record and plot OPT's lower and upper bounds instead "
                  "(docs/bounds.md).  [default: 4.0]")


def compare(
    suite: str = typer.Option("quick", "--suite", help="quick, paper, weather-sample, weather (with --r/--s), "
                              "policies, wjoin, wjoin-full (W-join), bestmatch, or the path of a suite TOML "
                              "file."),
    out_dir: Path = typer.Option(..., "--out", help="Folder for report.html, results.parquet and results.csv."),
    master: str = typer.Option("local[*]", "--master", help="Spark master: local[*] (embedded) or spark://HOST:PORT."),
    resume: bool = typer.Option(False, "--resume", help="Keep the runs already in --out and run only the rest."),
    seeds: Optional[int] = typer.Option(None, "--seeds", callback=integer(1), show_default=False,
                                        help="Seeds per point (mean and spread in the report); default: the "
                                        "suite's (5 for paper, 1 for the others)."),
    jobs: Optional[int] = typer.Option(None, "--jobs", callback=integer(1), show_default=False,
                                       help="Runs in flight at once (default: Spark's parallelism)."),
    r_path: Optional[Path] = typer.Option(None, "--r", help="Stream R's report file for suites that read files "
                                          "(e.g. --suite weather).", show_default=False),
    s_path: Optional[Path] = typer.Option(None, "--s", help="Stream S's report file.", show_default=False),
    fmt: str = typer.Option("ndp", "--format", callback=choice(FORMATS), help="Format of --r/--s: ndp or synop."),
    cell_size: Optional[float] = typer.Option(None, "--cell-size", callback=number(0, above=True, high=180),
                                              show_default=False, help="Grid cell size in degrees for the weather "
                                              "suites (default: the suite's)."),
    stations: Optional[Path] = typer.Option(None, "--stations", help="SYNOP: the station table postesSynop.csv "
                                            "(default: next to the --r file).", show_default=False),
    max_graph_gib: Optional[float] = typer.Option(None, "--max-graph-gib", callback=number(0, above=True),
                                                  help=MAX_GRAPH_HELP, show_default=False),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON summary of the run and where its files went."),
) -> None:
    """Run an experiment suite on Spark and write an HTML report reproducing the paper's section 4.

    Examples: shed compare --suite quick --out out/quick;
    shed compare --suite weather --r SEP85L.Z --s SEP86L.Z --out out/weather
    """
    kind, spec = suite_kind(suite)
    command = shlex.join(["shed", *sys.argv[1:]])
    started = time.perf_counter()
    if kind == "bestmatch":
        from shedding.studies.bestmatch_suite import run_bestmatch_suite

        summary = run_bestmatch_suite(spec, out_dir, command)
        print(json.dumps(summary)) if as_json else out.print(f"report:  {escape(summary['report'])}")
        return
    if kind == "wjoin":
        from shedding.studies.wjoin_report import build_wjoin_report as build
        from shedding.studies.wjoin_runner import run_wjoin_suite

        run_wjoin_suite(spec, out_dir, resume=resume, seeds=seeds, console=err, command=command)
        where = "none (in process)"
    else:
        from shedding.studies.html import build_report as build
        from shedding.studies.runner import run_suite

        if cell_size is not None:
            spec = spec.with_cell_size(cell_size)
        run_suite(spec, out_dir, master=master, resume=resume, seeds=seeds, jobs=jobs, console=err,
                  files=None if r_path is None else (r_path, s_path, fmt), stations=stations, command=command,
                  max_graph_bytes=None if max_graph_gib is None else int(max_graph_gib * 2**30))
        where = master
    _summary(spec.name, out_dir, build, where, started, as_json)


def _summary(name: str, out_dir: Path, build: Any, master: str, started: float, as_json: bool) -> None:
    """Build the report from the stored results and say where everything went (``started``: when
    the suite started, by ``time.perf_counter``)."""
    from shedding.studies.runner import load_results

    results, suite_dict, complete = load_results(out_dir)
    path = build(results, suite_dict, complete, out_dir / "report.html")
    seconds = time.perf_counter() - started
    files = {"report": path, "results_parquet": out_dir / "results.parquet", "results_csv": out_dir / "results.csv",
             "suite_json": out_dir / "suite.json"}
    if as_json:
        print(json.dumps({"suite": name, "runs": len(results), "total_runs": suite_dict["total_runs"],
                          "complete": complete, "seeds": suite_dict["seeds"], "master": master,
                          "seconds": round(seconds, 1), "out": str(out_dir),
                          **{key: str(value) for key, value in files.items()}}))
        return
    state = "" if complete else " (INCOMPLETE)"
    out.print(f"{len(results)} runs in {seconds:.0f} s{state}", markup=False)
    out.print(f"report:  {escape(str(path))}")
    out.print(f"results: {escape(str(files['results_parquet']))}, {escape(str(files['results_csv']))}")
