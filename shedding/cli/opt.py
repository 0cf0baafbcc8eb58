"""``shed opt``: OPT-offline by min-cost flow (paper §3.2), or bounds on it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

import typer

from shedding.cli.checks import choice, gib, integer, integers, listed_in, table_file
from shedding.cli.output import busy, fraction, out, print_fitted, print_header, say, warn_naive_times, warn_counts_nothing, write_file
from shedding.cli.rows import bounds_row, row, warm_up
from shedding.cli.rules import Creatable, Holds, Ignored, checked
from shedding.cli.workload import MAX_GRAPH_HELP, WORKLOAD_RULES, check_split, takes_workload

if TYPE_CHECKING:
    from shedding.model import Memory, Schedule, Workload


ALLOCATIONS = listed_in("shedding.offline.opt", "ALLOCATIONS")
GRAPHS = listed_in("shedding.offline.opt", "GRAPH_CHOICES")
SOLVERS = listed_in("shedding.offline.opt", "SOLVERS")

RULES = (
    Ignored(("--memory-split",), lambda v: v.allocation == "fixed", "applies to --allocation fixed (OPT) only; "
            "OPTV splits memory freely", "use --allocation fixed or drop it"),
    Ignored(("--schedule-out",), lambda v: not v.bounds, "needs the exact OPT schedule, which --bounds does not "
            "compute", "drop --bounds or --schedule-out"),
    Ignored(("--graph", "--solver", "--max-graph-gib"), lambda v: not v.bounds,
            "applies to solving OPT exactly, not to --bounds", "drop it or --bounds"),
    Holds(check_split),
    Creatable(("--schedule-out",)),
    Holds(lambda v: v.schedule_out is None or table_file("--schedule-out", str(v.schedule_out))),  # a folder: above
    *WORKLOAD_RULES,
)


@takes_workload
def opt(
    load: Callable[[], Workload],
    memory: Optional[int] = typer.Option(None, "--memory", "-m", callback=integer(0), show_default=False,
                                         help="Join memory M in tuples (default: w)."),
    memory_split: Optional[str] = typer.Option(None, "--memory-split", callback=integers(2), show_default=False,
                                               help="Fixed split M_R,M_S (default: M//2, M-M//2; all of M to R or S "
                                               "on a --range that stores one side)."),
    allocation: str = typer.Option("fixed", "--allocation", callback=choice(ALLOCATIONS),
                                   help="fixed (OPT: M_R and M_S) or variable (OPTV: M in all)."),
    graph: str = typer.Option("auto", "--graph", callback=choice(GRAPHS),
                              help="auto (the smaller of compact and keyed), compact (one exit per partner pair), "
                              "keyed (one lane per side and key, O(N) arcs), or paper (the paper's Figure 2 "
                              "network); all give the same optimum."),
    solver: str = typer.Option("ssp", "--solver", callback=choice(SOLVERS),
                               help="ssp (specialized exact solver) or ortools (OR-Tools SimpleMinCostFlow, the "
                               "reference)."),
    max_graph_gib: float = typer.Option(4.0, "--max-graph-gib", callback=gib(), help=MAX_GRAPH_HELP),
    schedule_out: Optional[Path] = typer.Option(None, "--schedule-out", show_default=False,
                                                help="Write the optimal schedule (per tuple: admitted, left) as "
                                                "CSV or Parquet, by the file's extension."),
    bounds: bool = typer.Option(False, "--bounds", help="Print a lower and an upper bound on OPT and their gap "
                                "instead of solving it exactly (any workload size; docs/bounds.md)."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as one JSON object."),
) -> None:
    """OPT-offline (paper section 3.2): the best keep/evict schedule's output, by min-cost flow.

    Knowing the future, the most join output any schedule can produce, and the schedule.

    Example: shed opt --window 400 --memory 200 --allocation variable
    """
    from shedding.offline.opt import solve_opt

    budget = checked(check_split)  # M (--memory, else the window) and its split, checked by the rules
    wl = load()
    warn_counts_nothing(wl)
    warn_naive_times(wl)
    m = budget.total
    if bounds:
        _print_bounds(wl, budget, allocation, as_json)
        return
    warm_up(["opt"])
    with busy(f"solving {'OPTV' if allocation == 'variable' else 'OPT'} ({len(wl):,} tuples)..."):
        res = solve_opt(wl, budget, None, allocation=allocation, graph=graph, solver=solver,
                        max_graph_bytes=int(max_graph_gib * 2**30))
    result = row(wl, m, res.as_dict())
    if schedule_out is not None:
        _write_schedule(schedule_out, wl, res.schedule)
    if as_json:
        print(json.dumps(result))
        return
    print_header(wl, m)
    print_fitted(
        [("policy", "left"), ("outputs", "right"), ("EXACT", "right"), ("ratio", "right"), ("ArM", "right"),
         ("nodes", "right"), ("arcs", "right"), ("build s", "right"), ("solve s", "right")],
        [[result["policy"].upper(), f"{result['outputs']:,}", f"{result['exact']:,}", fraction(result['ratio']),
          f"{result['arm']:,}", f"{result['nodes']:,}", f"{result['arcs']:,}", f"{result['build_seconds']:.2f}",
          f"{result['solve_seconds']:.2f}"]],
        optional=("build s", "solve s", "nodes", "arcs"))
    if schedule_out is not None:
        say(f"schedule written to {schedule_out}")


def _print_bounds(wl: Workload, budget: Memory, allocation: str, as_json: bool) -> None:
    """``shed opt --bounds``: lower and upper bound on OPT / OPTV and their gap (docs/bounds.md)."""
    from shedding.offline import bound_opt

    with busy(f"bounding {'OPTV' if allocation == 'variable' else 'OPT'} ({len(wl):,} tuples)..."):
        b = bound_opt(wl, budget, None, allocation=allocation)
    memory = budget.total
    result = bounds_row(wl, memory, b.as_dict())
    if as_json:
        print(json.dumps(result))
        return
    print_header(wl, memory)
    name = result["policy"].upper()
    print_fitted(
        [("bound", "left"), ("outputs", "right"), ("EXACT", "right"), ("from", "left")],
        [[f"{name} >=", f"{b.lower:,}", f"{b.exact:,}", b.lower_policy],
         [f"{name} <=", f"{b.upper:,}", f"{b.exact:,}", f"Lagrangian, {b.iterations} step{'' if b.iterations == 1 else 's'}"]])
    out.print(f"gap {b.gap:.2%} of the upper bound; {b.seconds:.1f} s", markup=False)


def _write_schedule(path: Path, wl: Workload, schedule: Schedule) -> None:
    import pandas as pd

    from shedding.datasets.files import format_of

    frame = pd.DataFrame({"seq": range(len(wl)), "stream": pd.Categorical.from_codes(wl.side, ["R", "S"]),
                          "time": wl.time, "key": wl.key, "admitted": schedule.admitted, "left": schedule.left})
    labels = wl.meta.get("key_labels")
    if labels is not None:  # text keys (the flights' tail numbers) as the data names them, beside their numbers
        frame.insert(4, "label", [str(labels[k]) for k in wl.key])
    if "source_row" in wl.meta:  # files: each tuple's data row in its stream, to join the schedule back to the data
        frame.insert(2, "row", wl.meta["source_row"])
    csv = format_of(path) == "csv"  # the extension, checked by the flag, picks the format
    write_file(path, "--schedule-out", lambda target: frame.to_csv(target, index=False) if csv else
               frame.to_parquet(target, index=False))
