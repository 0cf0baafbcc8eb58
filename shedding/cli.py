"""The ``shed`` command line.

Every command shares the workload flags; bad input ends with a one-line ``error: ...`` on stderr
and exit code 2, never a traceback.
"""

from __future__ import annotations

import functools
import inspect
import json
import sys
import time
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any, Callable, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .errors import ShedError
from .model import Workload

app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    no_args_is_help=True,
    help="Semantic load shedding for sliding-window stream joins (Das, Gehrke, Riedewald, SIGMOD 2003): "
    "how much join output a memory budget loses, per policy, against EXACT and OPT.",
)
out = Console()
err = Console(stderr=True)

ONLINE_POLICIES = ["exact", "rand", "prob", "life", "randv", "probv", "lifev", "opt", "optv"]


@app.callback()
def _root(version: bool = typer.Option(False, "--version", help="Print the version and exit.")) -> None:
    if version:
        from . import __version__

        print(__version__)
        raise typer.Exit()


def _parse_split(text: Optional[str]) -> Optional[tuple[int, int]]:
    if text is None:
        return None
    parts = text.replace(":", ",").split(",")
    try:
        m_r, m_s = (int(p) for p in parts)
    except ValueError:
        raise ShedError(f"--memory-split must be two integers M_R,M_S such as 200,200, got {text!r}") from None
    return m_r, m_s


def _policies(text: str) -> list[str]:
    names = [p.strip().lower() for p in text.split(",") if p.strip()]
    if not names:
        raise ShedError("--policy is empty; give one or more of " + ", ".join(ONLINE_POLICIES))
    for name in names:
        if name not in ONLINE_POLICIES:
            raise ShedError(f"unknown policy {name!r}; choose from {', '.join(ONLINE_POLICIES)}")
    return names


def _workload(workload: Optional[Path], zipf_skew: float, domain: int, length: int, seed: int,
              correlation: str, window: int, warmup: Optional[int], r_path: Optional[Path],
              s_path: Optional[Path], fmt: Optional[str], cell_size: float) -> Workload:
    """The workload the shared flags describe: two files (--r/--s), one file (--workload), or Zipf."""
    from .datasets import load_two_streams, load_workload, zipf_workload
    from .datasets.files import format_of

    if (r_path is None) != (s_path is None):
        raise ShedError("give both --r and --s (one file per stream)")
    if r_path is not None:
        if workload is not None:
            raise ShedError("give either --workload or --r/--s, not both")
        fmt = (fmt or format_of(r_path, fix="add --format ndp, synop, csv or parquet")).lower()
        if fmt in ("ndp", "synop"):
            from .datasets.weather import weather_workload

            with _busy("preparing the weather workload (Spark; cached after the first run)..."):
                return weather_workload(r_path, s_path, fmt, window, warmup, cell_size=cell_size)
        if fmt not in ("csv", "parquet"):
            raise ShedError(f"unknown --format {fmt!r}; choose ndp, synop, csv or parquet")
        return load_two_streams(r_path, s_path, window, warmup)
    if workload is not None:
        return load_workload(workload, window, warmup)
    return zipf_workload(zipf_skew, domain, length, seed, correlation, window, warmup)


def _flag(name: str, annotation: str, option: typer.models.OptionInfo) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=option, annotation=annotation)


# The workload flags, shared by every command that takes a workload (see ``takes_workload``).
WORKLOAD_FLAGS = (
    _flag("workload", "Optional[Path]", typer.Option(
        None, "--workload", help="CSV or Parquet file with columns stream (R/S), time, key; replaces the Zipf "
        "generator.", show_default=False)),
    _flag("zipf_skew", "float", typer.Option(1.0, "--zipf-skew", help="Zipf parameter of both streams (0 = uniform).")),
    _flag("domain", "int", typer.Option(50, "--domain", help="Number of distinct join values.")),
    _flag("length", "int", typer.Option(5600, "--length", help="Tuples per stream (one R and one S tuple per time "
                                        "step).")),
    _flag("seed", "int", typer.Option(0, "--seed", help="Seed of the generated workload.")),
    _flag("correlation", "str", typer.Option("independent", "--correlation", help="independent (paper's "
                                             "uncorrelated), same (correlated) or reversed.")),
    _flag("window", "int", typer.Option(400, "--window", "-w", help="Window size w in time steps.")),
    _flag("warmup", "Optional[int]", typer.Option(None, "--warmup", help="First time step whose outputs count "
                                                  "(default: 2w).", show_default=False)),
    _flag("r_path", "Optional[Path]", typer.Option(
        None, "--r", help="Stream R from a file (with --s): NDP-026B cloud reports, Meteo-France SYNOP, or "
        "CSV/Parquet with columns time,key.", show_default=False)),
    _flag("s_path", "Optional[Path]", typer.Option(None, "--s", help="Stream S from a file (with --r).",
                                                   show_default=False)),
    _flag("fmt", "Optional[str]", typer.Option(None, "--format", help="Format of --r/--s: ndp, synop, csv or "
                                               "parquet (default: from the extension).", show_default=False)),
    _flag("cell_size", "float", typer.Option(10.0, "--cell-size", help="Weather formats: grid cell size in degrees "
                                             "(the join key).")),
)


def takes_workload(command: Callable[..., None]) -> Callable[..., None]:
    """Give ``command`` the workload flags (after its own options). It receives ``load``, a function
    that builds the Workload, so it can check its own options before any data is read."""
    own = [p for p in inspect.signature(command).parameters.values() if p.name != "load"]

    @functools.wraps(command)
    def run(**kwargs: Any) -> None:
        flags = {p.name: kwargs.pop(p.name) for p in WORKLOAD_FLAGS}
        command(load=lambda: _workload(**flags), **kwargs)

    params = [*own, *WORKLOAD_FLAGS]
    run.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in params}
    return run


@app.command()
@takes_workload
def simulate(
    load: Callable[[], Workload],
    policy: str = typer.Option("exact,rand,prob,life", "--policy", "-p",
                               help="Comma list of: " + ", ".join(ONLINE_POLICIES) + "."),
    memory: Optional[int] = typer.Option(None, "--memory", "-m",
                                         help="Join memory M in tuples (default: w, half of what EXACT needs).",
                                         show_default=False),
    memory_split: Optional[str] = typer.Option(
        None, "--memory-split", help="Fixed split M_R,M_S for prob/life/rand (default: M//2, M-M//2).",
        show_default=False),
    estimator: str = typer.Option("static", "--estimator",
                                  help="static: key frequencies of the whole stream (as in the paper); "
                                  "online: counts of what has arrived so far."),
    decay: float = typer.Option(1.0, "--decay", help="Online estimator: weight an arrival keeps per time step."),
    policy_seed: int = typer.Option(0, "--policy-seed", help="Seed of RAND's choices."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object per policy instead of a table."),
    out_path: Optional[Path] = typer.Option(None, "--out", help="Also write the JSON rows to this file.",
                                            show_default=False),
) -> None:
    """Run shedding policies on one workload and compare their output with EXACT.

    Example: shed simulate --policy exact,rand,prob,life --window 400 --memory 200
    """
    from .online import Reference, simulate as run

    names = _policies(policy)
    split = _parse_split(memory_split)
    wl = load()
    m = wl.window if memory is None else memory
    ref = Reference.of(wl)
    rows = []
    with _busy("running the policies..."):
        for name in names:
            if name in ("opt", "optv"):
                from .offline import solve_opt

                opt = solve_opt(wl, m, split if name == "opt" else None,
                                allocation="variable" if name == "optv" else "fixed")
                rows.append(opt.as_dict() | {"policy": name, "seconds": opt.build_seconds + opt.solve_seconds}
                            | _workload_params(wl))
                continue
            res = run(wl, name, m, memory_split=split, estimator=estimator, decay=decay, seed=policy_seed,
                      reference=ref)
            rows.append(res.as_dict())
    if out_path is not None:
        _write_rows(out_path, rows)
    if as_json:
        for row in rows:
            print(json.dumps(row))
    else:
        _print_table(wl, m, rows)
        if out_path is not None:
            out.print(f"results written to {out_path}")


@app.command()
@takes_workload
def opt(
    load: Callable[[], Workload],
    memory: Optional[int] = typer.Option(None, "--memory", "-m", help="Join memory M in tuples (default: w).",
                                         show_default=False),
    memory_split: Optional[str] = typer.Option(None, "--memory-split", help="Fixed split M_R,M_S "
                                               "(default: M//2, M-M//2).", show_default=False),
    allocation: str = typer.Option("fixed", "--allocation",
                                   help="fixed (OPT: M_R and M_S) or variable (OPTV: M in all)."),
    graph: str = typer.Option("compact", "--graph", help="compact (timeline network, default), keyed, or paper "
                              "(the paper's Figure 2 network); all give the same optimum."),
    solver: str = typer.Option("ssp", "--solver", help="ssp (specialized exact solver) or ortools (OR-Tools "
                               "SimpleMinCostFlow, the reference)."),
    max_graph_gib: float = typer.Option(4.0, "--max-graph-gib", help="Refuse networks estimated above this size."),
    schedule_out: Optional[Path] = typer.Option(None, "--schedule-out", help="Write the optimal schedule "
                                                "(per tuple: admitted, left) as Parquet.", show_default=False),
    as_json: bool = typer.Option(False, "--json", help="Print the result as one JSON object."),
) -> None:
    """OPT-offline (paper section 3.2): the best keep/evict schedule's output, by min-cost flow.

    Knowing the future, the most join output any schedule can produce, and the schedule.

    Example: shed opt --window 400 --memory 200 --allocation variable
    """
    from .offline.opt import check_options, solve_opt

    check_options(allocation, graph, solver)
    if max_graph_gib <= 0:
        raise ShedError(f"--max-graph-gib must be > 0, got {max_graph_gib}")
    split = _parse_split(memory_split)
    wl = load()
    m = wl.window if memory is None else memory
    with _busy(f"solving {'OPTV' if allocation == 'variable' else 'OPT'} ({len(wl):,} tuples)..."):
        res = solve_opt(wl, m, split, allocation=allocation, graph=graph, solver=solver,
                        max_graph_bytes=int(max_graph_gib * 2**30))
    row = res.as_dict() | _workload_params(wl)
    if schedule_out is not None:
        _write_schedule(schedule_out, wl, res.schedule)
    if as_json:
        print(json.dumps(row))
        return
    _print_header(wl, m)
    table = Table(show_edge=False)
    for col in ("policy", "outputs", "EXACT", "ratio", "ArM", "nodes", "arcs", "build s", "solve s"):
        table.add_column(col, justify="left" if col == "policy" else "right")
    table.add_row(row["policy"], f"{row['outputs']:,}", f"{row['exact']:,}", f"{row['ratio']:.3f}", f"{row['arm']:,}",
                  f"{row['nodes']:,}", f"{row['arcs']:,}", f"{row['build_seconds']:.2f}", f"{row['solve_seconds']:.2f}")
    out.print(table)
    if schedule_out is not None:
        out.print(f"schedule written to {schedule_out}")


def _busy(text: str) -> AbstractContextManager:
    """A spinner on stderr while a long step runs (only on a terminal, so pipes and logs stay clean)."""
    return err.status(text, spinner="dots") if err.is_terminal else nullcontext()


def _workload_params(wl: Workload) -> dict:
    return {"window": wl.window, "warmup": wl.warmup, "workload": wl.name}


def _write_schedule(path: Path, wl: Workload, schedule) -> None:
    import pandas as pd

    frame = pd.DataFrame({"seq": range(len(wl)), "stream": pd.Categorical.from_codes(wl.side, ["R", "S"]),
                          "time": wl.time, "key": wl.key, "admitted": schedule.admitted, "left": schedule.left})
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        frame.to_parquet(path, index=False)
    except OSError as exc:
        raise ShedError(f"cannot write {path}: {exc.strerror}; choose a writable --schedule-out path") from None


@app.command()
def static(
    components: Optional[str] = typer.Option(None, "--components", "-c",
                                             help='Kuratowski components as "MxN,...", e.g. "3x2,4x4".',
                                             show_default=False),
    relation_a: Optional[Path] = typer.Option(None, "--relation-a", help="CSV or Parquet file of relation A "
                                              "with its join keys in column key.",
                                              show_default=False),
    relation_b: Optional[Path] = typer.Option(None, "--relation-b", help="The same for relation B.",
                                              show_default=False),
    keep: Optional[int] = typer.Option(None, "--keep", help="Keep k tuples in all.", show_default=False),
    drop: Optional[int] = typer.Option(None, "--drop", help="Drop k tuples in all.", show_default=False),
    drop_a: Optional[int] = typer.Option(None, "--drop-a", help="Drop k_A tuples of A (with --drop-b).",
                                         show_default=False),
    drop_b: Optional[int] = typer.Option(None, "--drop-b", help="Drop k_B tuples of B (with --drop-a).",
                                         show_default=False),
    method: str = typer.Option("fast", "--method", help="fast (convexity + shape knapsack) or dp (the paper's "
                               "O(c k^2) dynamic program); both are exact."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as one JSON object."),
) -> None:
    """Static k-truncation (paper section 3.1): the tuples to drop before a two-relation join.

    Chosen so that the most join output survives.

    Example: shed static --components "3x2,4x4,1x5" --drop 3
    """
    from .datasets.files import read_keys
    from .offline.static import components_from_keys, parse_components, static_truncation

    if (components is None) == (relation_a is None and relation_b is None):
        raise ShedError("give either --components or both --relation-a and --relation-b")
    if components is not None:
        comps = parse_components(components)
    else:
        if relation_a is None or relation_b is None:
            raise ShedError("give both --relation-a and --relation-b")
        comps = components_from_keys(read_keys(relation_a), read_keys(relation_b))
    res = static_truncation(comps, keep=keep, drop=drop, drop_a=drop_a, drop_b=drop_b, method=method)
    if as_json:
        print(json.dumps(res.as_dict()))
        return
    head = res.summary()
    out.print(f"{head['components']} components, A = {head['tuples_a']:,}, B = {head['tuples_b']:,} tuples; "
              f"kept A = {head['kept_a']:,}, B = {head['kept_b']:,} ({head['method']})")
    out.print(f"output kept: {head['output']:,} of {head['total_output']:,} "
              f"({100 * head['retained_fraction']:.1f}%)")
    rows = res.rows()
    table = Table(show_edge=False)
    for col in ("key", "m", "n", "kept A", "kept B", "output"):
        table.add_column(col, justify="right")
    for r in sorted(rows, key=lambda r: -r["m"] * r["n"])[:20]:
        table.add_row(str(r["key"]), str(r["m"]), str(r["n"]), str(r["kept_a"]), str(r["kept_b"]), f"{r['output']:,}")
    out.print(table)
    if len(rows) > 20:
        out.print(f"(largest 20 of {len(rows)} components shown; --json gives all)")


@app.command()
def compare(
    suite: str = typer.Option("quick", "--suite", help="quick, paper, weather-sample, weather (with --r/--s), "
                              "or the path of a suite TOML file."),
    out_dir: Path = typer.Option(..., "--out", help="Folder for report.html, results.parquet and results.csv."),
    master: str = typer.Option("local[*]", "--master", help="Spark master: local[*] (embedded) or spark://HOST:PORT."),
    resume: bool = typer.Option(False, "--resume", help="Keep the runs already in --out and run only the rest."),
    seeds: int = typer.Option(1, "--seeds", help="Seeds per point (mean and spread in the report)."),
    jobs: Optional[int] = typer.Option(None, "--jobs", help="Runs in flight at once (default: Spark's parallelism).",
                                       show_default=False),
    r_path: Optional[Path] = typer.Option(None, "--r", help="Stream R's report file for suites that read files "
                                          "(e.g. --suite weather).", show_default=False),
    s_path: Optional[Path] = typer.Option(None, "--s", help="Stream S's report file.", show_default=False),
    fmt: str = typer.Option("ndp", "--format", help="Format of --r/--s: ndp or synop."),
    cell_size: Optional[float] = typer.Option(None, "--cell-size", help="Grid cell size in degrees for the weather "
                                              "suites (default: the suite's).", show_default=False),
) -> None:
    """Run an experiment suite on Spark and write an HTML report reproducing the paper's section 4.

    Examples: shed compare --suite quick --out out/quick;
    shed compare --suite weather --r SEP85L.Z --s SEP86L.Z --out out/weather
    """
    from .reports.html import build_report
    from .reports.runner import load_results, run_suite
    from .reports.suites import load_suite

    spec = load_suite(suite)
    if cell_size is not None:
        spec = spec.with_cell_size(cell_size)
    if (r_path is None) != (s_path is None):
        raise ShedError("give both --r and --s (one report file per stream)")
    files = None if r_path is None else (r_path, s_path, fmt.lower())
    if files is not None and files[2] not in ("ndp", "synop"):
        raise ShedError(f"unknown --format {fmt!r} for a suite; choose ndp or synop")
    if jobs is not None and jobs < 1:
        raise ShedError(f"--jobs must be >= 1, got {jobs}")
    started = time.perf_counter()
    _, complete = run_suite(spec, out_dir, master=master, resume=resume, seeds=seeds, jobs=jobs, console=err,
                            files=files)
    results, suite_dict, complete = load_results(out_dir)
    path = build_report(results, suite_dict, complete, out_dir / "report.html")
    state = "" if complete else " (INCOMPLETE)"
    out.print(f"{len(results)} runs in {time.perf_counter() - started:.0f} s{state}")
    out.print(f"report:  {path}")
    out.print(f"results: {out_dir / 'results.parquet'}, {out_dir / 'results.csv'}")


@app.command()
def report(out_dir: Path = typer.Argument(..., help="A folder written by shed compare.")) -> None:
    """Rebuild report.html from the results stored by shed compare."""
    from .reports.html import build_report
    from .reports.runner import load_results

    results, suite_dict, complete = load_results(out_dir)
    path = build_report(results, suite_dict, complete, out_dir / "report.html")
    out.print(f"report: {path}" + ("" if complete else " (INCOMPLETE results)"))


def _write_rows(path: Path, rows: list[dict]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    except OSError as exc:
        raise ShedError(f"cannot write {path}: {exc.strerror}; choose a writable --out path") from None


def _print_header(wl: Workload, memory: int) -> None:
    out.print(f"[bold]{escape(wl.name)}[/bold]: {wl.n_r} R + {wl.n_s} S tuples, w = {wl.window}, "
              f"warmup = {wl.warmup}, M = {memory}")
    if wl.meta.get("summary"):
        out.print(wl.meta["summary"], markup=False, highlight=False)


def _print_table(wl: Workload, memory: int, rows: list[dict]) -> None:
    _print_header(wl, memory)
    table = Table(show_edge=False)
    for col, justify in (("policy", "left"), ("outputs", "right"), ("EXACT", "right"), ("ratio", "right"),
                         ("ArM", "right"), ("memory", "right"), ("seconds", "right")):
        table.add_column(col, justify=justify)
    for r in rows:
        mem = str(r["memory"]) if r["memory_r"] is None else f"{r['memory_r']}+{r['memory_s']}"
        if r["policy"] == "exact":
            mem = f">= {r['memory']}"
        table.add_row(r["policy"].upper(), f"{r['outputs']:,}", f"{r['exact']:,}", f"{r['ratio']:.3f}",
                      f"{r['arm']:,}", mem, f"{r['seconds']:.2f}")
    out.print(table)


from .wjoin.cli import register as _register_wjoin  # noqa: E402 - `shed wjoin` lives in its own module

_register_wjoin(app)


def main() -> None:
    """Entry point: runs the app and turns bad input into a one-line error with exit code 2."""
    try:
        app()
    except ShedError as exc:
        err.print(f"error: {exc}", markup=False, highlight=False, soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt:
        err.print("interrupted", markup=False)
        sys.exit(130)


if __name__ == "__main__":
    main()
