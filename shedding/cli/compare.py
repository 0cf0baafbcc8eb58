"""``shed compare``: run an experiment suite and write its HTML report.

A suite file's ``kind`` names its study (:mod:`shedding.studies.registry`): the DGR suites (paper
§4, on Spark; ``weather`` reads two report files), the W-join suites (synthetic streams, timed one
run at a time in this process), the bestmatch suite (generated inputs, in this process) and the
beyond-i.i.d. suites (AGE and HAZARD on age-based, drifting, bursty and flights streams, in this
process). Each study reads its own inputs; a flag the chosen suite's study does not read is refused.
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

from shedding.cli.checks import choice, gib, integer, named, number, spark_master, value_check
from shedding.cli.output import err, out
from shedding.cli.rules import Creatable, Exists, Fits, Holds, Together, Values
from shedding.errors import ShedError

FORMATS = ("ndp", "synop")
#: the study input each suite flag sets (a study reads the inputs it lists, Study.inputs)
INPUT_OF = {"--seeds": "seeds", "--r": "files", "--s": "files", "--format": "files", "--cell-size": "cell_size",
            "--stations": "stations", "--max-graph-gib": "max_graph_bytes"}
FILE_FLAGS = ("--r", "--s", "--format", "--cell-size", "--stations")
#: bytes a planned run takes before it runs (its spec, its result row, its line in a part file): an estimate
RUN_BYTES = 4096


def suite_of(text: str) -> tuple[Any, Any]:
    """The study and the suite ``--suite`` names (a shipped name or a TOML file whose ``kind``
    names the study), loaded and checked."""
    from shedding.studies.registry import load_suite

    try:
        return load_suite(text)
    except ShedError as exc:  # a suite file's problem names --suite
        raise ShedError(named(exc, "--suite")) from None


def check_flags(v: Values) -> None:
    """Every flag given is one the suite's study reads: its inputs, Spark's flags only for a study
    that runs on Spark, and the file flags only for a suite that reads report files."""
    study, suite = suite_of(v.suite)
    stray = [f for f, name in INPUT_OF.items() if v.given(f) and name not in study.inputs]
    if not study.spark:
        stray += [f for f in ("--master", "--jobs") if v.given(f)]
    if stray:
        why = "" if study.spark else ": it runs one run at a time in this process, not on Spark"
        raise ShedError(f"options {', '.join(stray)} do not apply to the {study.label} suite {suite.name}{why}; "
                        f"drop them")
    reads_files = getattr(suite, "reads_files", False)
    if "files" in study.inputs and not reads_files:
        stray = [f for f in FILE_FLAGS if v.given(f)]
        if stray:
            raise ShedError(f"suite {suite.name} reads no report files; drop {', '.join(stray)} or use a suite that "
                            f"reads them (weather)")
    if reads_files and v.r_path is None:
        raise ShedError(f"suite {suite.name} reads two report files; give them with --r PATH --s PATH")
    if v.stations is not None and v.fmt != "synop":
        raise ShedError("--stations applies to SYNOP files only (--format synop); drop it")


def planned_bytes(v: Values) -> float:
    _, suite = suite_of(v.suite)
    return float(len(suite.runs(1))) * v.seeds * RUN_BYTES


RULES = (
    Holds(check_flags),
    Together(("--r", "--s"), " (one report file per stream)"),
    Exists(("--r", "--s", "--stations")),
    Creatable(("--out",), folder=True),
    Fits(("--seeds",), planned_bytes, "the planned runs", when=lambda v: v.seeds is not None),
)
ALIASES = {"max_graph_bytes": "--max-graph-gib", "out": "--out", "files": "--r/--s"}
SUITE_HELP = ("quick, paper, weather-sample, weather (with --r/--s), policies, wjoin, wjoin-full (W-join), "
              "bestmatch, beyond-iid, beyond-iid-quick (AGE and HAZARD beyond i.i.d. streams), or the path of a "
              "suite TOML file.")
SEEDS_HELP = ("Seeds per point (mean and spread in the report); default: the suite's (5 for paper; 3 for wjoin "
              "and wjoin-full; 2 for policies and beyond-iid; 1 for the others; bestmatch takes its seeds from its "
              "file).")
MAX_GRAPH_HELP = ("OPT/OPTV runs: solve exactly when the network's estimated peak memory (network plus solver "
                  "workspace) is at most this many GiB, else record and plot OPT's lower and upper bounds instead "
                  "(docs/bounds.md).  [default: 4.0]")


def compare(
    suite: str = typer.Option("quick", "--suite", help=SUITE_HELP),
    out_dir: Path = typer.Option(..., "--out", help="Folder for report.html, results.parquet and results.csv."),
    master: str = typer.Option("local[*]", "--master", callback=value_check(spark_master),
                               help="Spark master: local[*] (embedded) or spark://HOST:PORT."),
    resume: bool = typer.Option(False, "--resume", help="Keep the runs already in --out and run only the rest."),
    seeds: Optional[int] = typer.Option(None, "--seeds", callback=integer(1), show_default=False,
                                        help=SEEDS_HELP),
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
    max_graph_gib: Optional[float] = typer.Option(None, "--max-graph-gib", callback=gib(),
                                                  help=MAX_GRAPH_HELP, show_default=False),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON summary of the run and where its files went."),
) -> None:
    """Run an experiment suite and write its HTML report: the paper's section 4 (on Spark), the W-join,
    bestmatch and beyond-i.i.d. studies (in this process).

    Examples: shed compare --suite quick --out out/quick;
    shed compare --suite weather --r SEP85L.Z --s SEP86L.Z --out out/weather;
    shed compare --suite beyond-iid-quick --out out/beyond
    """
    from shedding.studies.registry import build_report, load_results
    from shedding.studies.runner import run_study
    from shedding.studies.store import runs_in

    study, spec = suite_of(suite)
    started = time.perf_counter()
    inputs = {"seeds": seeds, "files": None if r_path is None else (r_path, s_path, fmt), "stations": stations,
              "cell_size": cell_size,
              "max_graph_bytes": None if max_graph_gib is None else int(max_graph_gib * 2**30)}
    outcome = run_study(study, spec, out_dir, master=master, resume=resume, jobs=jobs, console=err,
                        command=shlex.join(["shed", *sys.argv[1:]]),
                        **{k: v for k, v in inputs.items() if v is not None})
    results, suite_dict, complete = load_results(out_dir)
    try:
        path = build_report(results, suite_dict, complete, out_dir / "report.html")
    except KeyboardInterrupt:  # every run is on disk by now: only the page is missing
        raise ShedError(f"interrupted while writing the report; all {runs_in(results):,} runs are kept in "
                        f"{out_dir}, write the page with: shed report {shlex.quote(str(out_dir))}") from None
    seconds = time.perf_counter() - started
    files = {"report": path, "results_parquet": out_dir / "results.parquet", "results_csv": out_dir / "results.csv",
             "suite_json": out_dir / "suite.json"}
    runs = runs_in(results)
    if as_json:
        print(json.dumps({"suite": spec.name, "runs": runs, "total_runs": suite_dict["total_runs"],
                          "complete": complete, "seeds": suite_dict["seeds"],
                          "master": master if study.spark else "none (in process)", "seconds": round(seconds, 1),
                          "out": str(out_dir), **{key: str(value) for key, value in files.items()}}))
        return
    state = "" if complete else " (INCOMPLETE)"
    kept = f" ({runs - outcome.ran} stored before)" if runs > outcome.ran else ""
    out.print(f"{outcome.ran} runs in {seconds:.0f} s{kept}{state}", markup=False)
    out.print(f"report:  {escape(str(path))}")
    out.print(f"results: {escape(str(files['results_parquet']))}, {escape(str(files['results_csv']))}")
