"""Run an experiment suite on Spark and collect one results table.

Runs are spread over Spark tasks (a few per task: scheduling a Python task costs more than a
small run). Each run regenerates its workload from its seed inside the task (Zipf data is cheap
to make and deterministic), runs the policy through the same library calls a user would make,
and returns one row, so the numbers do not depend on how runs are partitioned. The driver writes
each finished wave of runs to ``DIR/parts/`` at once, so an interrupted suite loses nothing and
``--resume`` skips what is there; at the end the parts become ``results.parquet`` and
``results.csv``, and OPT's output at each point gives every run its fraction of OPT (paper §4,
Figures 6 and 9-11).
"""

from __future__ import annotations

import json
import math
import os
import platform
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import nullcontext
from dataclasses import asdict
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from shedding.errors import ShedError
from shedding.model import Workload
from shedding.spark import spark_session
from shedding.studies.suites import POINT_FIELDS, RunSpec, Suite

if TYPE_CHECKING:
    from shedding.offline.opt import OptResult

SHARE_SAMPLES = 400


def workload_of(s: RunSpec, streams: dict | None = None) -> Workload:
    """The run's workload: Zipf from its seed, the bundled SYNOP sample, or (dataset ``files``)
    the streams the driver prepared on Spark, per cell size."""
    if s.dataset == "zipf":
        from shedding.datasets import zipf_workload

        return zipf_workload(s.skew, s.domain, s.length, s.seed, s.correlation, s.window, s.warmup, skew_s=s.skew_s)
    if s.dataset == "synop-sample":
        from shedding.datasets.weather import synop_sample_workload

        return synop_sample_workload(s.cell_size, s.window, s.warmup)
    side, time_, key, name = streams[s.cell_size]
    return Workload(side, time_, key, s.window, s.warmup, name)


def solve_or_bound(wl: Workload, memory: int, policy: str, max_graph_bytes: int | None = None
                   ) -> tuple[OptResult | None, dict]:
    """OPT or OPTV (``policy``) solved exactly (paper §3.2) when its network's size estimate is
    within ``max_graph_bytes`` (default 4 GiB; :func:`~shedding.offline.opt.check_size`, decided
    before anything is built), else bounded (:func:`~shedding.offline.opt.bound_opt`, docs/bounds.md). Returns
    (the exact result or None, the row's OPT columns: ``opt_kind`` "exact" or "bounds",
    ``opt_lower`` <= OPT <= ``opt_upper`` (equal when exact), and ``exact``, EXACT's count)."""
    from shedding.offline.opt import DEFAULT_MAX_GRAPH_BYTES, GraphTooLarge, bound_opt, solve_opt

    max_graph_bytes = DEFAULT_MAX_GRAPH_BYTES if max_graph_bytes is None else max_graph_bytes
    allocation = "variable" if policy == "optv" else "fixed"
    try:  # solve_opt refuses (GraphTooLarge) before it builds anything
        opt = solve_opt(wl, memory, allocation=allocation, max_graph_bytes=max_graph_bytes)
    except GraphTooLarge:  # too large to solve exactly within the limit: bound it instead
        b = bound_opt(wl, memory, allocation=allocation)
        return None, {"opt_kind": "bounds", "opt_lower": float(b.lower), "opt_upper": float(b.upper), "exact": b.exact}
    return opt, {"opt_kind": "exact", "opt_lower": float(opt.outputs), "opt_upper": float(opt.outputs),
                 "exact": opt.exact}


def _count(value: float) -> int | float:
    """A count as an int, NaN (unknown: OPT's output and ArM where OPT is only bounded) as NaN."""
    return value if isinstance(value, float) and math.isnan(value) else int(value)


def execute(spec: dict, streams: dict | None = None, max_graph_bytes: int | None = None) -> dict:
    """One run, from its parameters to its results row (runs inside a Spark task). Weather runs
    record their real shape: ``domain`` is the number of distinct grid cells and ``length`` the
    reports per stream (the grid leaves both to the data). An OPT/OPTV run whose exact network
    would exceed ``max_graph_bytes`` records OPT's bounds (:func:`solve_or_bound`) with
    ``outputs``, ``ratio`` and ``arm`` unknown (NaN): ``outputs`` is OPT's output only when
    ``opt_kind`` is "exact"."""
    from shedding.online import simulate
    from shedding.run import run_policy

    s = RunSpec(**spec)
    wl = workload_of(s, streams)
    started = time.perf_counter()
    share = None
    bounds = {"opt_kind": "", "opt_lower": math.nan, "opt_upper": math.nan}
    if s.policy in ("opt", "optv"):
        opt, bounds = solve_or_bound(wl, s.memory, s.policy, max_graph_bytes)
        exact = bounds.pop("exact")
        outputs, arm = (math.nan, math.nan) if opt is None else (opt.outputs, opt.arm)
        if s.share and opt is not None:
            replay = simulate(wl, f"{s.policy}-schedule", s.memory, schedule=opt.schedule, samples=SHARE_SAMPLES)
            share = replay.share_time, replay.share_r, replay.share_s
    else:
        res = run_policy(wl, s.policy, s.memory, seed=s.seed, estimator=s.estimator, samples=SHARE_SAMPLES)
        outputs, exact, arm = res.outputs, res.exact, res.arm
        if s.share and res.share_time is not None:
            share = res.share_time, res.share_r, res.share_s
    shape = {} if s.dataset == "zipf" else {"domain": int(len(np.unique(wl.key))),
                                             "length": int(np.bincount(wl.side, minlength=2).max(initial=0))}
    return {
        **spec,
        **shape,
        "run_id": s.run_id,
        "outputs": _count(outputs),
        "exact": int(exact),
        "ratio": outputs / exact if exact else 1.0,
        "arm": _count(arm),
        **bounds,
        "seconds": time.perf_counter() - started,
        "share_t": json.dumps(share[0].tolist()) if share else "",
        "share_r": json.dumps(share[1].tolist()) if share else "",
        "share_s": json.dumps(share[2].tolist()) if share else "",
    }


def _parts_dir(out: Path) -> Path:
    return out / "parts"


def read_parts(out: Path) -> pd.DataFrame:
    """Every run finished so far in ``out``."""
    parts = sorted(_parts_dir(out).glob("part-*.parquet"))
    if not parts:
        return pd.DataFrame()
    return pd.concat([pd.read_parquet(p) for p in parts], ignore_index=True).drop_duplicates("run_id")


def with_opt_columns(results: pd.DataFrame) -> pd.DataFrame:
    """``results`` with the OPT columns of :func:`solve_or_bound`; results stored before they
    existed hold only exact OPT/OPTV runs (kind "exact", both bounds equal to ``outputs``)."""
    results = results.copy()
    solved = results.policy.isin(["opt", "optv"])
    if "opt_kind" not in results:
        results["opt_kind"] = np.where(solved, "exact", "")
    for column in ("opt_lower", "opt_upper"):
        if column not in results:
            results[column] = results.outputs.where(solved).astype(float)
    return results


def _fraction(part: pd.Series, whole: pd.Series, opt_zero: pd.Series) -> pd.Series:
    """``part / whole``; 1.0 for 0 of an OPT of 0 (as the exact ``ratio_opt``), NaN where
    ``whole`` is 0 or unknown otherwise."""
    out = part / whole.where(whole > 0)
    out[opt_zero & part.eq(0)] = 1.0
    return out


def with_opt_ratio(results: pd.DataFrame) -> pd.DataFrame:
    """Add ``ratio_opt``: outputs over OPT's outputs at the same point (same workload, seed,
    window and memory); NaN where the point has no OPT run or where OPT, or this run's own
    OPT/OPTV output, is only bounded. ``ratio_opt_low`` and ``ratio_opt_high`` bracket the
    fraction: this run's lowest known output over OPT's upper bound and its highest over OPT's
    lower bound (equal to ``ratio_opt`` where everything is exact; 1 for the OPT run itself)."""
    fractions = ("ratio_opt", "ratio_opt_low", "ratio_opt_high")
    if results.empty:
        return results.assign(**{name: pd.Series(dtype=float) for name in fractions})
    results = with_opt_columns(results)
    point = [c for c in POINT_FIELDS if c in results]  # results stored before cell_size and source existed lack them
    opt = results[results.policy == "opt"][point + ["outputs", "opt_lower", "opt_upper"]].rename(
        columns={"outputs": "opt_outputs", "opt_lower": "ref_lower", "opt_upper": "ref_upper"})
    merged = results.drop(columns=list(fractions), errors="ignore").merge(opt, on=point, how="left")
    zero = merged.ref_upper.eq(0)  # OPT is 0, so every run's output is 0
    bounded = merged.opt_kind.eq("bounds")
    merged["ratio_opt"] = _fraction(merged.outputs, merged.opt_outputs, zero)
    merged["ratio_opt_low"] = _fraction(merged.opt_lower.where(bounded, merged.outputs), merged.ref_upper, zero)
    merged["ratio_opt_high"] = _fraction(merged.opt_upper.where(bounded, merged.outputs), merged.ref_lower, zero)
    merged.loc[merged.policy.eq("opt") & merged.ref_upper.notna(), ["ratio_opt_low", "ratio_opt_high"]] = 1.0
    return merged.drop(columns=["opt_outputs", "ref_lower", "ref_upper"])


def _prepare_out(out: Path, resume: bool, suite: Suite) -> None:
    if out.exists() and not out.is_dir():
        raise ShedError(f"--out {out} is a file; give a folder (it will hold report.html and the results)")
    stored = out / "suite.json"
    if resume and stored.is_file():
        name = json.loads(stored.read_text()).get("name")
        if name != suite.name:
            raise ShedError(f"{out} holds the results of suite {name!r}, not {suite.name!r}; "
                            f"resume that suite or choose another --out")
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise ShedError(f"cannot write to {out} ({exc.strerror}); choose a writable --out folder") from None
    has_results = any(_parts_dir(out).glob("part-*.parquet")) or (out / "results.parquet").exists()
    if has_results and not resume:
        raise ShedError(f"{out} already holds results; pass --resume to continue them or choose another --out")


def run_suite(suite: Suite, out: Path, *, master: str = "local[*]", resume: bool = False, seeds: int | None = None,
              jobs: int | None = None, console: Console | None = None, spark=None,
              files: tuple[Path, Path, str] | None = None, stations: Path | None = None, command: str = "",
              max_graph_bytes: int | None = None) -> tuple[pd.DataFrame, bool]:
    """Run every pending run of ``suite`` on Spark; returns (results, complete).

    ``seeds``: seeds per point, default the suite's. ``spark``: an existing SparkSession to use (it
    is left running); otherwise one is started on ``master`` and stopped at the end. ``files``:
    (R path, S path, format) for dataset ``files``, ``stations`` the SYNOP station table.
    ``command``: the command line, for the report's provenance (with the versions, cores and this
    invocation's wall time, in ``suite.json``). ``max_graph_bytes``: the OPT size limit (default
    4 GiB, ``shed compare --max-graph-gib``); an OPT/OPTV run above it records OPT's bounds
    (:func:`execute`). A folder this call created is removed again if it
    fails before any run is stored; Ctrl-C stops at once and keeps the finished runs."""
    console = console or Console(stderr=True)
    seeds = suite.seeds if seeds is None else seeds
    invoked = time.perf_counter()
    out = Path(out)
    if suite.reads_files and files is None:
        raise ShedError(f"suite {suite.name} reads two report files; give them with --r PATH --s PATH")
    if files is not None and not suite.reads_files:
        raise ShedError(f"suite {suite.name} reads no report files; drop --r/--s or use a suite that reads them "
                        f"(e.g. --suite weather)")
    if files is not None:
        from shedding.datasets.weather import check_inputs

        check_inputs(files[0], files[1], files[2], stations)  # before Spark starts and before --out is made
    source = "" if files is None else f"{Path(files[0]).resolve()}|{Path(files[1]).resolve()}|{files[2]}"
    specs = suite.runs(seeds, source)
    created = not out.exists()
    _prepare_out(out, resume, suite)
    info = provenance(command)
    if max_graph_bytes is not None:
        info["max_graph_gib"] = max_graph_bytes / 2**30
    try:
        _run_pending(suite, out, specs, seeds, master, jobs, console, spark, files, stations, info, max_graph_bytes)
    except BaseException:
        if created and not any(_parts_dir(out).glob("part-*.parquet")):
            shutil.rmtree(out, ignore_errors=True)
        raise
    results = _select(with_opt_ratio(read_parts(out)), {s.run_id for s in specs})
    complete = len(results) == len(specs)
    write_results(out, results)
    info["wall_seconds"] = round(time.perf_counter() - invoked, 1)
    write_suite_json(out, suite, seeds, specs, master, info)
    return results, complete


def _run_pending(suite: Suite, out: Path, specs: list[RunSpec], seeds: int, master: str, jobs: int | None,
                 console: Console, spark, files: tuple[Path, Path, str] | None, stations: Path | None,
                 info: dict, max_graph_bytes: int | None = None) -> None:
    """Run the specs not yet stored in ``out``, wave by wave (OPT above ``max_graph_bytes`` bounded)."""
    write_suite_json(out, suite, seeds, specs, master, info)
    done = set(read_parts(out).get("run_id", pd.Series(dtype=str)))
    pending = [s for s in specs if s.run_id not in done]
    # the slow OPT solves first, so the last wave is not one long straggler
    pending.sort(key=lambda s: (s.policy not in ("opt", "optv"), -s.length * s.window))
    if pending:
        _parts_dir(out).mkdir(exist_ok=True)
        with nullcontext(spark) if spark is not None else spark_session(master) as session:
            sc = session.sparkContext
            streams = _prepare_files(session, pending, files, stations) if files is not None else None
            shared = sc.broadcast(streams)
            width = jobs or max(2, sc.defaultParallelism)
            # one Spark job per wave, its runs spread over ``width`` tasks: a Python task costs
            # about a quarter of a second to schedule, more than a small run
            wave = max(width * 8, 16)
            n_parts = len(list(_parts_dir(out).glob("part-*.parquet")))
            columns = [TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                       TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn()]
            with Progress(*columns, console=console, transient=False, disable=not console.is_terminal) as bar:
                task = bar.add_task(f"{escape(suite.name)}: runs", total=len(specs), completed=len(specs) - len(pending))
                started = time.perf_counter()
                for start in range(0, len(pending), wave):
                    chunk = [asdict(s) for s in pending[start:start + wave]]
                    rows = _collect_interruptibly(sc, chunk, min(len(chunk), width), shared, out, max_graph_bytes)
                    pd.DataFrame(rows).to_parquet(_parts_dir(out) / f"part-{n_parts:05d}.parquet", index=False)
                    n_parts += 1
                    bar.advance(task, len(rows))
                    if not console.is_terminal:
                        done_now = start + len(rows)
                        left = (time.perf_counter() - started) / done_now * (len(pending) - done_now)
                        console.print(f"{suite.name}: {len(specs) - len(pending) + done_now}/{len(specs)} runs done, "
                                      f"about {left:.0f} s left", highlight=False, markup=False)


def _collect_interruptibly(sc, chunk: list[dict], slices: int, shared, out: Path,
                           max_graph_bytes: int | None = None) -> list[dict]:
    """:func:`_collect` in a helper thread, so that Ctrl-C reaches this thread outside py4j (a
    KeyboardInterrupt inside a py4j call prints pages of tracebacks): it cancels the Spark job and
    ends with one line saying how many runs are kept."""
    with ThreadPoolExecutor(1) as pool:
        wave = pool.submit(_collect, sc, chunk, slices, shared, max_graph_bytes)
        try:
            return wave.result()
        except KeyboardInterrupt:
            sc.cancelAllJobs()
            wait([wave])  # its job fails as cancelled; the waves already written are the result
            raise ShedError(f"interrupted; {len(read_parts(out))} runs kept, continue with --resume") from None


def provenance(command: str) -> dict:
    """What produced a suite's results: the command, shedding's version and git commit (when run
    from a checkout), the Python, Spark, numba, plotly, pandas and numpy versions, and the cores."""
    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "not installed"

    try:
        here = Path(__file__).resolve().parent
        commit = subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True, text=True,
                                timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        commit = commit + (" (with uncommitted changes)" if commit and dirty else "")
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return {"command": command, "shedding": version("shedding"), "commit": commit or "unknown (not a git checkout)",
            "python": platform.python_version(), "spark": version("pyspark"), "numba": version("numba"),
            "plotly": version("plotly"), "pandas": version("pandas"), "numpy": version("numpy"),
            "cores": os.cpu_count() or 1}


def _select(results: pd.DataFrame, run_ids: set[str]) -> pd.DataFrame:
    """The rows of ``results`` whose run is one of ``run_ids`` (runs of other suites may share ``out``)."""
    return results if results.empty else results[results.run_id.isin(run_ids)].reset_index(drop=True)


def _prepare_files(spark, specs: list[RunSpec], files: tuple[Path, Path, str], stations: Path | None) -> dict:
    """Read and grid the report files once per cell size on Spark, for broadcasting."""
    from shedding.datasets.weather import weather_workload

    streams = {}
    for cell in sorted({s.cell_size for s in specs if s.dataset == "files"}):
        wl = weather_workload(files[0], files[1], files[2], 1, 0, cell_size=cell, spark=spark, stations=stations)
        streams[cell] = (wl.side, wl.time, wl.key, wl.name)
    return streams


def _collect(sc, chunk: list[dict], slices: int, shared, max_graph_bytes: int | None = None) -> list[dict]:
    """Run one wave; a failed run becomes a one-line error (finished waves stay on disk)."""
    try:
        return sc.parallelize(chunk, slices).map(lambda spec: execute(spec, shared.value, max_graph_bytes)).collect()
    except Exception as exc:  # Py4JJavaError carries the Python worker's traceback as text
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        cause = next((line for line in reversed(lines) if "Error:" in line and "at " not in line[:3]),
                     lines[-1] if lines else "")
        raise ShedError(f"a run failed on Spark: {cause[:300]}; finished runs are kept, "
                        "fix it and use --resume") from None


def write_suite_json(out: Path, suite: Suite, seeds: int, specs: list[RunSpec], master: str,
                     info: dict) -> None:
    """The suite as run, with its provenance ``info`` (``shed report`` rebuilds the report from it
    and the parts)."""
    data = {
        "name": suite.name, "description": suite.description, "seeds": seeds, "total_runs": len(specs),
        "master": master, "provenance": info, "run_ids": [s.run_id for s in specs],
        "experiments": [asdict(e) for e in suite.experiments],
    }
    (out / "suite.json").write_text(json.dumps(data, indent=1))


def write_results(out: Path, results: pd.DataFrame) -> None:
    """``results.parquet`` and ``results.csv``, one row per run, sorted stably."""
    if not results.empty:
        results = results.sort_values(["experiment", "policy", "skew", "skew_s", "domain", "correlation", "cell_size",
                                       "window", "memory", "seed"], kind="stable").reset_index(drop=True)
    results.to_parquet(out / "results.parquet", index=False)
    results.to_csv(out / "results.csv", index=False)


def load_results(out: Path) -> tuple[pd.DataFrame, dict, bool]:
    """Stored results of ``out`` for ``shed report``: (results, suite dict, complete)."""
    out = Path(out)
    if not (out / "suite.json").is_file():
        raise ShedError(f"{out} holds no suite results (no suite.json); run shed compare --out {out} first")
    suite = json.loads((out / "suite.json").read_text())
    if _parts_dir(out).is_dir():  # the runs themselves, as written wave by wave
        results = with_opt_ratio(read_parts(out))
    elif (out / "results.parquet").is_file():
        results = pd.read_parquet(out / "results.parquet")
    else:
        results = pd.DataFrame()
    results = _select(results, set(suite["run_ids"]))
    return results, suite, len(results) == suite["total_runs"]
