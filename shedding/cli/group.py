"""The ``shed`` command line.

Every command shares the workload flags; bad input ends with a one-line ``error: ...`` on stderr
and exit code 2, never a traceback. Only typer and rich are imported up front, so ``--help``
is instant: a command imports numpy, pandas, numba or Spark inside its body, when it runs.
Choice flags match in any case (:func:`_choice`); every path printed is escaped for rich.
"""

from __future__ import annotations

import functools
import inspect
import json
import math
import shlex
import sys
import time
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from shedding.cli.bmj import bmj_command
from shedding.errors import ShedError
from shedding.run import POLICY_NAMES
from shedding.cli.stream_join import stream_join
from shedding.cli.wjoin import wjoin_command

if TYPE_CHECKING:
    from shedding.model import Workload


def _no_flag_type(params: list) -> list:
    """Flags (--json, --help, ...) take no value: show no ``<bool>`` type for them in --help."""
    for param in params:
        if getattr(param, "is_flag", False):
            param.metavar = ""
    return params


class _Group(typer.core.TyperGroup):
    """The ``shed`` group; applies :func:`_no_flag_type` to itself and to every command."""

    def get_params(self, ctx: Any) -> list:
        return _no_flag_type(super().get_params(ctx))

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            _no_flag_type(command.get_params(ctx))
        return command


app = typer.Typer(
    cls=_Group,
    add_completion=False,
    pretty_exceptions_enable=False,
    no_args_is_help=True,
    help="Semantic load shedding for sliding-window stream joins (Das, Gehrke, Riedewald, SIGMOD 2003): "
    "how much join output a memory budget loses, per policy, against EXACT and OPT.",
)
out = Console()
err = Console(stderr=True)

#: every --policy name, from the one registry (shedding.run)
ONLINE_POLICIES = list(POLICY_NAMES)
#: The keys of every JSON row of simulate and opt, in order (docs/shed-output.schema.json).
ROW_FIELDS = ("policy", "outputs", "exact", "ratio", "arm", "memory", "memory_r", "memory_s", "seconds",
              "window", "warmup", "workload", "dataset", "skew", "domain", "length", "seed", "correlation",
              "estimator", "decay", "policy_seed", "allocation", "graph", "solver", "nodes", "arcs",
              "build_seconds", "solve_seconds")


def _version(value: bool) -> None:
    if value:
        from shedding import __version__

        print(__version__)
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit.")) -> None:
    pass  # the group's own option; --version exits in its callback


STATIONS_ONLY = "--stations applies to SYNOP files only (--r/--s with --format synop); drop it"


def _choice(value: str) -> str:
    """A choice flag's value, matched in any case (--policy PROB, --graph KEYED)."""
    return value.strip().lower()


def _parse_split(text: Optional[str]) -> Optional[tuple[int, int]]:
    if text is None:
        return None
    parts = text.replace(":", ",").split(",")
    try:
        m_r, m_s = (int(p) for p in parts)
    except ValueError:
        raise ShedError(f"--memory-split must be two integers M_R,M_S such as 200,200, got {text!r}") from None
    return m_r, m_s


def _max_graph_bytes(max_graph_gib: float) -> int:
    """The --max-graph-gib limit in bytes (the OPT network's estimated peak, solver workspace
    included, is refused above it)."""
    if not math.isfinite(max_graph_gib) or max_graph_gib <= 0:
        raise ShedError(f"--max-graph-gib must be a finite number > 0, got {max_graph_gib}")
    return int(max_graph_gib * 2**30)


MAX_GRAPH_HELP = ("OPT/OPTV: refuse, before building it, a network whose estimated peak memory (network plus "
                  "solver workspace) is above this many GiB.")
COMPARE_MAX_GRAPH_HELP = ("OPT/OPTV runs: solve exactly when the network's estimated peak memory (network plus "
                          "solver workspace) is at most this many GiB, else record and plot OPT's lower and upper "
                          "bounds instead (docs/bounds.md).  [default: 4.0]")


def _policies(text: str) -> list[str]:
    from shedding.run import check_policies

    return check_policies(text, "--policy")


def _workload(workload: Optional[Path], zipf_skew: float, domain: int, length: int, seed: int,
              correlation: str, window: int, warmup: Optional[int], r_path: Optional[Path],
              s_path: Optional[Path], fmt: Optional[str], cell_size: float, stations: Optional[Path]) -> Workload:
    """The workload the shared flags describe: two files (--r/--s), one file (--workload), or Zipf."""
    from shedding.datasets import load_two_streams, load_workload, zipf_workload
    from shedding.datasets.files import format_of

    if (r_path is None) != (s_path is None):
        raise ShedError("give both --r and --s (one file per stream)")
    if r_path is not None:
        fmt = _choice(fmt or format_of(r_path, fix="add --format ndp, synop, csv or parquet"))
    if stations is not None and fmt != "synop":
        raise ShedError(STATIONS_ONLY)
    if r_path is not None:
        if workload is not None:
            raise ShedError("give either --workload or --r/--s, not both")
        if fmt in ("ndp", "synop"):
            from shedding.datasets.weather import weather_workload

            with _busy("preparing the weather workload (Spark; cached after the first run)..."):
                return weather_workload(r_path, s_path, fmt, window, warmup, cell_size=cell_size, stations=stations)
        if fmt not in ("csv", "parquet"):
            raise ShedError(f"unknown --format {fmt!r}; choose ndp, synop, csv or parquet")
        return load_two_streams(r_path, s_path, window, warmup)
    if workload is not None:
        return load_workload(workload, window, warmup)
    return zipf_workload(zipf_skew, domain, length, seed, _choice(correlation), window, warmup)


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
    _flag("stations", "Optional[Path]", typer.Option(None, "--stations", help="SYNOP: the station table "
                                                     "postesSynop.csv (default: next to the --r file).",
                                                     show_default=False)),
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
                               help="Comma list of: " + ", ".join(ONLINE_POLICIES) + ". surv: expected output over "
                               "the realistic survival; dual: surplus over a memory price learned from OPT; fluid: "
                               "the same at the fluid price (issue 11; a v suffix = variable split)."),
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
    max_graph_gib: float = typer.Option(4.0, "--max-graph-gib", help=MAX_GRAPH_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object per policy instead of a table."),
    out_path: Optional[Path] = typer.Option(None, "--out", help="Also write the JSON rows to this file.",
                                            show_default=False),
    predicate: str = typer.Option("equi", "--predicate", help="equi (equal keys) or band (|r.a - s.a| <= eps on "
                                  "every attribute of --attrs)."),
    eps: Optional[str] = typer.Option(None, "--eps", help="Band joins: one band width per attribute, e.g. 0.5 or "
                                      "0.5,2 (compared exactly as decimals).", show_default=False),
    attrs: Optional[str] = typer.Option(None, "--attrs", help="Band joins: the numeric columns to compare "
                                        "(default: key).", show_default=False),
    bins: int = typer.Option(1024, "--bins", help="Band joins: histogram bins per attribute for PROB/LIFE."),
) -> None:
    """Run shedding policies on one workload and compare their output with EXACT.

    Example: shed simulate --policy exact,rand,prob,life --window 400 --memory 200
    """
    from shedding.cli.band import check_band_options
    from shedding.online import Reference
    from shedding.online.estimators import check_estimator
    from shedding.run import run_policy

    names = _policies(policy)
    split = _parse_split(memory_split)
    estimator = check_estimator(estimator, decay)
    band = check_band_options(predicate, eps, attrs, bins, estimator, decay)
    max_graph_bytes = _max_graph_bytes(max_graph_gib)
    wl = load()
    _warn_past_end(wl)
    m = wl.window if memory is None else memory
    rows = []
    if band is not None:
        from shedding.cli.band import band_results

        with _busy("running the policies on the band join..."):
            rows = [_row(wl, m, r, **r.get("options", {}), **{k: r[k] for k in ("predicate", "eps", "attrs")})
                    for r in band_results(wl, band, names, m, split, policy_seed)]
        names = []
    ref = Reference.of(wl) if names else None
    _warm_up(names)
    with _busy("running the policies..."):
        for name in names:
            res = run_policy(wl, name, m, memory_split=split, estimator=estimator, decay=decay, seed=policy_seed,
                             reference=ref, max_graph_bytes=max_graph_bytes)
            options = {} if name in ("exact", "opt", "optv") else {
                "estimator": estimator, "decay": decay if estimator == "online" else None,
                "policy_seed": policy_seed if name.startswith("rand") else None}
            rows.append(_row(wl, m, res.as_dict(), **options))
    if out_path is not None:
        _write(out_path, "--out", lambda path: path.write_text("".join(json.dumps(r) + "\n" for r in rows)))
    if as_json:
        for row in rows:
            print(json.dumps(row))
    else:
        _print_table(wl, m, rows)
        if band is not None:
            out.print("band join: " + ", ".join(f"|r.{a} - s.{a}| <= {e}" for a, e in zip(rows[0]["attrs"], rows[0]["eps"]))
                      if rows else "band join", markup=False, highlight=False)
        if out_path is not None:
            out.print(f"results written to {escape(str(out_path))}")


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
    graph: str = typer.Option("auto", "--graph", help="auto (the smaller of compact and keyed), compact (one "
                              "exit per partner pair), keyed (one lane per side and key, O(N) arcs), or paper "
                              "(the paper's Figure 2 network); all give the same optimum."),
    solver: str = typer.Option("ssp", "--solver", help="ssp (specialized exact solver) or ortools (OR-Tools "
                               "SimpleMinCostFlow, the reference)."),
    max_graph_gib: float = typer.Option(4.0, "--max-graph-gib", help=MAX_GRAPH_HELP),
    schedule_out: Optional[Path] = typer.Option(None, "--schedule-out", help="Write the optimal schedule "
                                                "(per tuple: admitted, left) as Parquet.", show_default=False),
    bounds: bool = typer.Option(False, "--bounds", help="Print a lower and an upper bound on OPT and their gap "
                                "instead of solving it exactly (any workload size; docs/bounds.md)."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as one JSON object."),
) -> None:
    """OPT-offline (paper section 3.2): the best keep/evict schedule's output, by min-cost flow.

    Knowing the future, the most join output any schedule can produce, and the schedule.

    Example: shed opt --window 400 --memory 200 --allocation variable
    """
    from shedding.offline.opt import check_options, solve_opt

    allocation, graph, solver = _choice(allocation), _choice(graph), _choice(solver)
    check_options(allocation, graph, solver)
    max_graph_bytes = _max_graph_bytes(max_graph_gib)
    if bounds and schedule_out is not None:
        raise ShedError("--schedule-out needs the exact OPT schedule; drop --bounds or --schedule-out")
    split = _parse_split(memory_split)
    wl = load()
    _warn_past_end(wl)
    m = wl.window if memory is None else memory
    if bounds:
        _print_bounds(wl, m, split, allocation, as_json)
        return
    _warm_up(["opt"])
    with _busy(f"solving {'OPTV' if allocation == 'variable' else 'OPT'} ({len(wl):,} tuples)..."):
        res = solve_opt(wl, m, split, allocation=allocation, graph=graph, solver=solver,
                        max_graph_bytes=max_graph_bytes)
    row = _row(wl, m, res.as_dict())
    if schedule_out is not None:
        _write_schedule(schedule_out, wl, res.schedule)
    if as_json:
        print(json.dumps(row))
        return
    _print_header(wl, m)
    _print_fitted(
        [("policy", "left"), ("outputs", "right"), ("EXACT", "right"), ("ratio", "right"), ("ArM", "right"),
         ("nodes", "right"), ("arcs", "right"), ("build s", "right"), ("solve s", "right")],
        [[row["policy"].upper(), f"{row['outputs']:,}", f"{row['exact']:,}", f"{row['ratio']:.3f}", f"{row['arm']:,}",
          f"{row['nodes']:,}", f"{row['arcs']:,}", f"{row['build_seconds']:.2f}", f"{row['solve_seconds']:.2f}"]],
        optional=("build s", "solve s", "nodes", "arcs"))
    if schedule_out is not None:
        out.print(f"schedule written to {escape(str(schedule_out))}")


def _print_bounds(wl: Workload, memory: int, split: Optional[tuple[int, int]], allocation: str,
                  as_json: bool) -> None:
    """``shed opt --bounds``: lower and upper bound on OPT / OPTV and their gap (docs/bounds.md)."""
    from shedding.offline import bound_opt

    with _busy(f"bounding {'OPTV' if allocation == 'variable' else 'OPT'} ({len(wl):,} tuples)..."):
        b = bound_opt(wl, memory, split, allocation=allocation)
    row = {**b.as_dict(), **_workload_params(wl), "memory": memory}
    if as_json:
        print(json.dumps(row))
        return
    _print_header(wl, memory)
    name = row["policy"].upper()
    _print_fitted(
        [("bound", "left"), ("outputs", "right"), ("EXACT", "right"), ("from", "left")],
        [[f"{name} >=", f"{b.lower:,}", f"{b.exact:,}", b.lower_policy],
         [f"{name} <=", f"{b.upper:,}", f"{b.exact:,}", f"Lagrangian, {b.iterations} steps"]])
    out.print(f"gap {b.gap:.2%} of the upper bound; {b.seconds:.1f} s", markup=False)


def _busy(text: str) -> AbstractContextManager:
    """A spinner on stderr while a long step runs (only on a terminal, so pipes and logs stay clean)."""
    return err.status(text, spinner="dots") if err.is_terminal else nullcontext()


def _warn_past_end(wl: Workload) -> None:
    """A warmup after the last arrival counts nothing: every output is 0 and every ratio 1.000."""
    if len(wl) and wl.warmup > int(wl.time[-1]):
        err.print(f"warning: the warmup {wl.warmup} (--warmup, default 2w) is after the last arrival time "
                  f"{int(wl.time[-1])}, so nothing is counted and every ratio is 1.000; give a smaller --warmup "
                  f"or a longer workload", markup=False, highlight=False, soft_wrap=True)


def _warm_up(names: list[str]) -> None:
    """Load the compiled join engine (and OPT's solver) on a tiny workload, so that no policy's
    ``seconds`` includes that one-time cost."""
    from shedding.model import Workload
    from shedding.online import simulate

    tiny = Workload.synchronous([0, 0], [0, 0], window=2, warmup=0)
    if set(names) - {"exact", "opt", "optv"}:
        simulate(tiny, "prob", 1)
    if {"opt", "optv"} & set(names):
        from shedding.offline import solve_opt

        solve_opt(tiny, 2)


#: The measured fields a JSON row takes from a policy's result (the rest come from the workload
#: and the flags).
_MEASURED = ("outputs", "exact", "ratio", "arm", "memory_r", "memory_s", "seconds", "allocation", "graph", "solver",
             "nodes", "arcs", "build_seconds", "solve_seconds")


def _row(wl: Workload, memory: int, result: dict, **options: Any) -> dict:
    """One JSON row of simulate or opt (docs/shed-output.schema.json): every key of ROW_FIELDS,
    null where it does not apply; ``memory`` is the M given (EXACT needs no limit)."""
    row = dict.fromkeys(ROW_FIELDS)
    row.update({key: result[key] for key in _MEASURED if key in result})
    row.update(_workload_params(wl), policy=result["policy"], memory=memory, **options)
    return row


def _workload_params(wl: Workload) -> dict:
    """The workload's fields of a JSON row: the generator's parameters for Zipf; for files their
    format, distinct keys and the longer stream's length."""
    meta = wl.meta
    if meta.get("generator") == "zipf":
        params = {key: meta[key] for key in ("skew", "domain", "length", "seed", "correlation")} | {"dataset": "zipf"}
    else:
        fmt = meta.get("format")
        params = {"dataset": "+".join(dict.fromkeys(fmt)) if isinstance(fmt, (tuple, list)) else fmt,
                  "domain": len(wl.key_counts()[0]), "length": max(wl.n_r, wl.n_s)}
    return {"window": wl.window, "warmup": wl.warmup, "workload": wl.name, **params}


def _write(path: Path, flag: str, write: Callable[[Path], None]) -> None:
    """Write an output file with ``write``; a folder or an unwritable path is a one-line error naming ``flag``."""
    if path.is_dir():
        raise ShedError(f"{flag} {path} is a folder; give the path of a file to write")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write(path)
    except OSError as exc:
        raise ShedError(f"cannot write {path}: {exc.strerror}; choose a writable {flag} path") from None


def _write_schedule(path: Path, wl: Workload, schedule) -> None:
    import pandas as pd

    frame = pd.DataFrame({"seq": range(len(wl)), "stream": pd.Categorical.from_codes(wl.side, ["R", "S"]),
                          "time": wl.time, "key": wl.key, "admitted": schedule.admitted, "left": schedule.left})
    _write(path, "--schedule-out", lambda target: frame.to_parquet(target, index=False))


@app.command()
@takes_workload
def explain(
    load: Callable[[], Workload],
    policy: str = typer.Option("prob", "--policy", "-p", help="The online policy to explain (one of: "
                               + ", ".join(p for p in ONLINE_POLICIES if p not in ("exact", "opt", "optv")) + ")."),
    against: Optional[str] = typer.Option(None, "--against", help="opt, optv or exact (default: opt for a fixed "
                                          "split, optv for a variable one).", show_default=False),
    memory: Optional[int] = typer.Option(None, "--memory", "-m", help="Join memory M in tuples (default: w).",
                                         show_default=False),
    memory_split: Optional[str] = typer.Option(None, "--memory-split", help="Fixed split M_R,M_S for the policy "
                                               "and OPT (default: M//2, M-M//2).", show_default=False),
    estimator: str = typer.Option("static", "--estimator", help="static or online (as for shed simulate)."),
    decay: float = typer.Option(1.0, "--decay", help="Online estimator: weight an arrival keeps per time step."),
    policy_seed: int = typer.Option(0, "--policy-seed", help="Seed of RAND's choices."),
    buckets: int = typer.Option(40, "--buckets", help="Time buckets of the per-key tables and figures."),
    top: int = typer.Option(15, "--top", help="Keys shown in the ranked table."),
    max_graph_gib: float = typer.Option(4.0, "--max-graph-gib", help="Refuse OPT networks estimated above this size."),
    out_dir: Optional[Path] = typer.Option(None, "--out", help="Folder for explain.html and explain.json.",
                                           show_default=False),
    as_json: bool = typer.Option(False, "--json", help="Print the explanation as one JSON object."),
) -> None:
    """Explain where an online policy loses output against OPT (or OPTV, EXACT), and why.

    Per key and time bucket: outputs lost and gained, tuples kept by one schedule only, memory shares;
    a ranked key table with the reason (never admitted, evicted before partners came, kept but never
    matched); with --out a self-contained HTML page (heat map, memory composition, cumulative gap).

    Example: shed explain --policy prob --against opt --window 400 --memory 400 --out out/explain
    """
    from shedding.studies.explain import check_request, explain as run
    from shedding.online.estimators import check_estimator

    name, against = check_request(policy, None if against is None else _choice(against), buckets)
    estimator = check_estimator(estimator, decay)
    if not math.isfinite(max_graph_gib) or max_graph_gib <= 0:
        raise ShedError(f"--max-graph-gib must be a finite number > 0, got {max_graph_gib}")
    if top < 1:
        raise ShedError(f"--top must be >= 1, got {top}")
    if out_dir is not None and out_dir.exists() and not out_dir.is_dir():
        raise ShedError(f"--out {out_dir} is a file; give a folder for explain.html and explain.json")
    split = _parse_split(memory_split)
    wl = load()
    _warn_past_end(wl)
    m = wl.window if memory is None else memory
    _warm_up([name, "opt"])
    with _busy(f"explaining {name.upper()} against {against.upper()} ({len(wl):,} tuples)..."):
        ex = run(wl, name, m, against=against, memory_split=split, estimator=estimator, decay=decay,
                 seed=policy_seed, buckets=buckets, max_graph_bytes=int(max_graph_gib * 2**30))
    doc = ex.as_dict()
    if out_dir is not None:
        from shedding.studies.explain_page import write_explain_html

        _write(out_dir / "explain.json", "--out", lambda path: path.write_text(json.dumps(doc)))
        write_explain_html(ex, out_dir / "explain.html", top)
    if as_json:
        print(json.dumps(ex.as_dict(top)))
        return
    s = ex.summary
    _print_header(wl, m)
    out.print(f"{name.upper()} {s['policy_outputs']:,} vs {against.upper()} {s['reference_outputs']:,} outputs "
              f"({100 * s['ratio']:.2f}%): {s['lost_outputs']:,} lost, {s['gained_outputs']:,} gained; lost tuples "
              f"{s['tuples_never_admitted']:,} never admitted, {s['tuples_evicted_before_partners_came']:,} evicted "
              f"early; {s['tuples_kept_but_never_matched']:,} kept but never matched", markup=False, highlight=False)
    _print_fitted(
        [("key", "right"), ("net lost", "right"), ("lost", "right"), ("gained", "right"), ("mem % pol", "right"),
         ("mem % ref", "right"), ("reason", "left")],
        [[str(r.key), f"{r.net_lost:,}", f"{r.lost:,}", f"{r.gained:,}", f"{100 * r.policy_memory_share:.1f}",
          f"{100 * r.reference_memory_share:.1f}", r.reason] for r in ex.keys.head(top).itertuples()],
        optional=("mem % ref", "mem % pol", "gained"))
    if out_dir is not None:
        out.print(f"page: {escape(str(out_dir / 'explain.html'))}, data: {escape(str(out_dir / 'explain.json'))}")


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
    from shedding.datasets.files import read_keys
    from shedding.offline.static import components_from_keys, parse_components, static_truncation

    if (components is None) == (relation_a is None and relation_b is None):
        raise ShedError("give either --components or both --relation-a and --relation-b")
    if (drop_a is None) != (drop_b is None):
        raise ShedError("give --drop-a and --drop-b together (--drop-b 0 drops from A only)")
    if components is not None:
        comps = parse_components(components)
    else:
        if relation_a is None or relation_b is None:
            raise ShedError("give both --relation-a and --relation-b")
        comps = components_from_keys(read_keys(relation_a), read_keys(relation_b))
    res = static_truncation(comps, keep=keep, drop=drop, drop_a=drop_a, drop_b=drop_b, method=_choice(method))
    if as_json:
        print(json.dumps(res.as_dict()))
        return
    head = res.summary()
    out.print(f"{head['components']} components, A = {head['tuples_a']:,}, B = {head['tuples_b']:,} tuples; "
              f"kept A = {head['kept_a']:,}, B = {head['kept_b']:,} ({head['method']})")
    out.print(f"output kept: {head['output']:,} of {head['total_output']:,} "
              f"({100 * head['retained_fraction']:.1f}%)")
    rows = res.rows()
    _print_fitted([(col, "right") for col in ("key", "m", "n", "kept A", "kept B", "output")],
                  [[str(r["key"]), str(r["m"]), str(r["n"]), str(r["kept_a"]), str(r["kept_b"]), f"{r['output']:,}"]
                   for r in sorted(rows, key=lambda r: -r["m"] * r["n"])[:20]])
    if len(rows) > 20:
        out.print(f"(largest 20 of {len(rows)} components shown; --json gives all)")


@app.command()
def compare(
    suite: str = typer.Option("quick", "--suite", help="quick, paper, weather-sample, weather (with --r/--s), "
                              "policies, wjoin, wjoin-full (W-join), bestmatch, or the path of a suite TOML "
                              "file."),
    out_dir: Path = typer.Option(..., "--out", help="Folder for report.html, results.parquet and results.csv."),
    master: str = typer.Option("local[*]", "--master", help="Spark master: local[*] (embedded) or spark://HOST:PORT."),
    resume: bool = typer.Option(False, "--resume", help="Keep the runs already in --out and run only the rest."),
    seeds: Optional[int] = typer.Option(None, "--seeds", help="Seeds per point (mean and spread in the report); "
                                        "default: the suite's (5 for paper, 1 for the others).", show_default=False),
    jobs: Optional[int] = typer.Option(None, "--jobs", help="Runs in flight at once (default: Spark's parallelism).",
                                       show_default=False),
    r_path: Optional[Path] = typer.Option(None, "--r", help="Stream R's report file for suites that read files "
                                          "(e.g. --suite weather).", show_default=False),
    s_path: Optional[Path] = typer.Option(None, "--s", help="Stream S's report file.", show_default=False),
    fmt: str = typer.Option("ndp", "--format", help="Format of --r/--s: ndp or synop."),
    cell_size: Optional[float] = typer.Option(None, "--cell-size", help="Grid cell size in degrees for the weather "
                                              "suites (default: the suite's).", show_default=False),
    stations: Optional[Path] = typer.Option(None, "--stations", help="SYNOP: the station table postesSynop.csv "
                                            "(default: next to the --r file).", show_default=False),
    max_graph_gib: Optional[float] = typer.Option(None, "--max-graph-gib", help=COMPARE_MAX_GRAPH_HELP,
                                                  show_default=False),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON summary of the run and where its files went."),
) -> None:
    """Run an experiment suite on Spark and write an HTML report reproducing the paper's section 4.

    Examples: shed compare --suite quick --out out/quick;
    shed compare --suite weather --r SEP85L.Z --s SEP86L.Z --out out/weather
    """
    from shedding.studies.registry import build_report, load_results, load_suite
    from shedding.studies.runner import run_study
    from shedding.studies.store import runs_in

    max_graph_bytes = None if max_graph_gib is None else _max_graph_bytes(max_graph_gib)
    study, spec = load_suite(suite)
    given = {"--r": r_path, "--s": s_path, "--cell-size": cell_size, "--stations": stations,
             "--max-graph-gib": max_graph_gib, "--seeds": seeds}
    inputs = {"--r": "files", "--s": "files", "--cell-size": "cell_size", "--stations": "stations",
              "--max-graph-gib": "max_graph_bytes", "--seeds": "seeds"}
    unused = [flag for flag, value in given.items() if value is not None and inputs[flag] not in study.inputs]
    if unused:
        raise ShedError(f"{', '.join(unused)} do not apply to the {study.label} suite {spec.name}; drop them")
    if not study.spark and (master != "local[*]" or jobs is not None):
        raise ShedError(f"the {study.label} suite {spec.name} runs one run at a time in this process, not on Spark; "
                        "drop --master and --jobs")
    if (r_path is None) != (s_path is None):
        raise ShedError("give both --r and --s (one report file per stream)")
    files = None if r_path is None else (r_path, s_path, _choice(fmt))
    if files is not None and files[2] not in ("ndp", "synop"):
        raise ShedError(f"unknown --format {fmt!r} for a suite; choose ndp or synop")
    if stations is not None and (files is None or files[2] != "synop"):
        raise ShedError(STATIONS_ONLY)
    if jobs is not None and jobs < 1:
        raise ShedError(f"--jobs must be >= 1, got {jobs}")
    started = time.perf_counter()
    options = {"seeds": seeds, "files": files, "stations": stations, "cell_size": cell_size,
               "max_graph_bytes": max_graph_bytes}
    outcome = run_study(study, spec, out_dir, master=master, resume=resume, jobs=jobs, console=err,
                        command=shlex.join(["shed", *sys.argv[1:]]),
                        **{k: v for k, v in options.items() if v is not None})
    results, suite_dict, complete = load_results(out_dir)
    path = build_report(results, suite_dict, complete, out_dir / "report.html")
    seconds = time.perf_counter() - started
    files_written = {"report": path, "results_parquet": out_dir / "results.parquet",
                     "results_csv": out_dir / "results.csv", "suite_json": out_dir / "suite.json"}
    runs = runs_in(results)
    if as_json:
        print(json.dumps({"suite": spec.name, "runs": runs, "total_runs": suite_dict["total_runs"],
                          "complete": complete, "seeds": suite_dict["seeds"],
                          "master": master if study.spark else "none (in process)", "seconds": round(seconds, 1),
                          "out": str(out_dir), **{key: str(value) for key, value in files_written.items()}}))
        return
    state = "" if complete else " (INCOMPLETE)"
    kept = f" ({runs - outcome.ran} stored before)" if runs > outcome.ran else ""
    out.print(f"{outcome.ran} runs in {seconds:.0f} s{kept}{state}", markup=False)
    out.print(f"report:  {escape(str(path))}")
    out.print(f"results: {escape(str(files_written['results_parquet']))}, {escape(str(files_written['results_csv']))}")


@app.command()
def report(out_dir: Path = typer.Argument(..., help="A folder written by shed compare.")) -> None:
    """Rebuild report.html from the results stored by shed compare."""
    from shedding.studies.registry import build_report, load_results

    results, suite_dict, complete = load_results(out_dir)
    path = build_report(results, suite_dict, complete, out_dir / "report.html")
    out.print(f"report: {escape(str(path))}" + ("" if complete else " (INCOMPLETE results)"))


app.command("stream-join")(stream_join)
app.command("wjoin")(wjoin_command)
app.command("bmj")(bmj_command)


def _print_header(wl: Workload, memory: int) -> None:
    out.print(f"[bold]{escape(wl.name)}[/bold]: {wl.n_r} R + {wl.n_s} S tuples, w = {wl.window}, "
              f"warmup = {wl.warmup}, M = {memory}")
    if wl.meta.get("summary"):
        out.print(wl.meta["summary"], markup=False, highlight=False)


def _print_table(wl: Workload, memory: int, rows: list[dict]) -> None:
    _print_header(wl, memory)
    cells = []
    for r in rows:
        mem = str(r["memory"]) if r["memory_r"] is None else f"{r['memory_r']}+{r['memory_s']}"
        if r["policy"] == "exact":
            mem = f">= {2 * wl.window - 2}"
        cells.append([r["policy"].upper(), f"{r['outputs']:,}", f"{r['exact']:,}", f"{r['ratio']:.3f}",
                      f"{r['arm']:,}", mem, f"{r['seconds']:.2f}"])
    _print_fitted([("policy", "left"), ("outputs", "right"), ("EXACT", "right"), ("ratio", "right"),
                   ("ArM", "right"), ("memory", "right"), ("seconds", "right")], cells,
                  optional=("seconds", "memory", "EXACT"))


def _print_fitted(columns: list[tuple[str, str]], rows: list[list[str]], optional: tuple[str, ...] = ()) -> None:
    """Print a table that never cuts a number: while it is wider than the terminal, the
    ``optional`` columns are left out (first named first); what still does not fit wraps."""
    shown = [name for name, _ in columns]
    while True:
        table = Table(show_edge=False)
        for name, justify in columns:
            if name in shown:
                table.add_column(name, justify=justify, overflow="fold")
        for row in rows:
            table.add_row(*(cell for (name, _), cell in zip(columns, row) if name in shown))
        droppable = [name for name in optional if name in shown]
        natural = out.measure(table, options=out.options.update_width(sys.maxsize)).maximum
        if not droppable or natural <= out.width:
            break
        shown.remove(droppable[0])
    out.print(table)
    left_out = [name for name, _ in columns if name not in shown]
    if left_out:
        out.print(f"({', '.join(left_out)} left out to fit {out.width} columns; --json gives every field)",
                  markup=False, highlight=False)


def main() -> None:
    """Entry point: runs the app and turns bad input into a one-line error with exit code 2."""
    try:
        app()
    except ShedError as exc:
        err.print(f"error: {exc}", markup=False, highlight=False, soft_wrap=True)
        sys.exit(2)
    except MemoryError as exc:
        err.print(f"error: not enough memory ({' '.join(str(exc).split())}); use a smaller --length, --domain or "
                  f"--window", markup=False, highlight=False, soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt:
        err.print("interrupted", markup=False)
        sys.exit(130)


if __name__ == "__main__":
    main()
