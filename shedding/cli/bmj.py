"""``shed bmj``: the bestmatch joins of two files (Kemper/Stegmaier 2002), exact or under load shedding.

Pair rows count data rows from 1.
"""

from __future__ import annotations

import json
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional

import typer

from shedding.cli.checks import choice, columns, decimals, integer, listed_in, names, parse_decimals
from shedding.cli.rules import Exists, Holds, Ignored, SameCount, Together, Values
from shedding.errors import ShedError
from shedding.online.policies import BESTMATCH, names_for, seeded, uses

ORDERS = ("minattrdist", "maxattrdist")
VARIANTS = listed_in("shedding.bestmatch.join", "VARIANTS")
ALGORITHMS = listed_in("shedding.bestmatch.join", "ALGORITHMS")
POLICIES = listed_in("shedding.bestmatch.shed", "POLICIES")
DOMINANCE = listed_in("shedding.bestmatch.skyline", "DOMINANCE")


def algorithm_of(v: Values) -> str:
    """--algorithm, else matwin when shedding and nested otherwise."""
    return v.algorithm or ("matwin" if v.memory is not None else "nested")


def check_mode(v: Values) -> None:
    """The variant and algorithm the chosen mode runs: shedding runs the constrained left-outer BMJ
    on MatWin; --time re-evaluates it by nested loops; both need --eps, as MatWin does."""
    algo = algorithm_of(v)
    if v.memory is not None and v.variant != "constrained":
        raise ShedError("shedding runs the constrained left-outer BMJ on MatWin; use --variant constrained")
    if v.memory is not None and algo == "nested":
        raise ShedError("shedding bounds MatWin's windows; use --algorithm matwin or matwin-ego")
    if v.time_col is not None and (v.variant != "constrained" or algo != "nested"):
        raise ShedError("--time re-evaluates the constrained left-outer BMJ by nested loops; drop --variant and "
                        "--algorithm")
    if v.eps is None and (v.variant == "constrained" or algo != "nested"):
        what = "the constrained variant" if v.variant == "constrained" else f"--algorithm {algo}"
        raise ShedError(f"{what} needs --eps (one maximum distance per attribute, e.g. --eps 0.1,0.1)")


RULES = (
    Together(("--time", "--horizon"), " (the timestamp column and the window length)"),
    Ignored(("--memory",), lambda v: v.time_col is None, "sheds on MatWin, but --time re-evaluates the exact join",
            "drop --time or --memory"),
    Ignored(("--policy",), lambda v: v.memory is not None, "applies when shedding", "add --memory M or drop it"),
    Ignored(("--seed",), lambda v: v.memory is not None and any(map(seeded, v.policy.split(","))),
            f"seeds the random choices of {' and '.join(n for n in uses('seed') if n in names_for(BESTMATCH))} "
            "(with --memory) only"),
    Ignored(("--limit",), lambda v: not v.as_json, "sets the rows of the table; --json prints them all"),
    Holds(check_mode),
    SameCount("--eps", "--attrs", "attribute"),
    SameCount("--orders", "--attrs", "attribute"),
    Exists(("--r", "--s")),
)


@contextmanager
def _values_named(eps_flag: str = "--eps") -> Iterator[None]:
    """A library error about a value of R or S names the flag of its file (--r, --s), one about
    eps the flag that gave it (``eps_flag``)."""
    try:
        yield
    except ShedError as exc:
        if exc.param in ("R", "S"):
            raise ShedError(f"--{exc.param.lower()}: {exc}") from None
        if exc.param == "eps":
            raise ShedError(exc.naming(eps_flag)) from None
        raise


def _read(path: Path, what: str):  # noqa: ANN202 (a DataFrame; pandas is imported lazily)
    """A CSV (values kept as the text written, for exact decimals) or Parquet file."""
    import pandas as pd

    from shedding.datasets.files import format_of

    fmt = format_of(path)
    try:
        if fmt == "csv":
            return pd.read_csv(path, dtype=str, skipinitialspace=True)
        return pd.read_parquet(path)
    except pd.errors.EmptyDataError:
        raise ShedError(f"{what} {path} is empty; give a file with a header row and data rows") from None
    except (OSError, ValueError, pd.errors.ParserError):
        raise ShedError(f"{what} {path} cannot be read as {fmt.upper()}; check the file") from None


def bmj(
    r_path: Path = typer.Option(..., "--r", help="The left input R: CSV or Parquet with the join attributes.",
                                show_default=False),
    s_path: Path = typer.Option(..., "--s", help="The right input S: CSV or Parquet with the join attributes.",
                                show_default=False),
    attrs: str = typer.Option(..., "--attrs", callback=columns(), show_default=False,
                              help="Join attributes y1,...,yd (in both files); MatWin reads the inputs sorted by "
                              "the first."),
    eps: Optional[str] = typer.Option(None, "--eps", callback=decimals(), show_default=False,
                                      help="Maximum distance per attribute, e.g. 0.1,0.1 (the constraint of section "
                                      "2.3)."),
    variant: str = typer.Option("constrained", "--variant", callback=choice(VARIANTS),
                                help="bmj, left-outer, right-outer, full-outer (each constrained when --eps is "
                                "given) or constrained (the constrained left-outer BMJ, LOBMJE)."),
    algorithm: Optional[str] = typer.Option(None, "--algorithm", "-a", callback=choice(ALGORITHMS),
                                            show_default=False, help="nested (any order), matwin or matwin-ego "
                                            "(inputs sorted by the first attribute). Default: nested, or matwin with "
                                            "--memory."),
    orders: Optional[str] = typer.Option(None, "--orders", callback=names(ORDERS, "order"), show_default=False,
                                         help="Order per attribute: minAttrDist (default) or maxAttrDist, e.g. "
                                         "minAttrDist,maxAttrDist."),
    memory: Optional[int] = typer.Option(None, "--memory", "-m", callback=integer(0), show_default=False,
                                         help="Shed: at most M tuples in MatWin's two windows; compares with the "
                                         "exact result."),
    policy: str = typer.Option("prob", "--policy", "-p", callback=names(POLICIES),
                               help="With --memory: comma list of " + ", ".join((*names_for(BESTMATCH), "ahead"))
                               + " (ahead, the bestmatch join's own: prob's density times the share of the "
                               "partner range still ahead)."),
    seed: int = typer.Option(0, "--seed", callback=integer(0), help="Seed of RAND's choices."),
    dominance: Optional[str] = typer.Option(None, "--dominance", callback=choice(DOMINANCE), show_default=False,
                                            help="How a pair dominates another (section 2.1): pareto (at least as "
                                            "good everywhere and better somewhere; the default) or literal (at "
                                            "least as good everywhere and the pairs differ, so ties leave)."),
    time_col: Optional[str] = typer.Option(None, "--time", show_default=False,
                                           help="Timestamp column: re-evaluate the constrained left-outer BMJ over "
                                           "the last --horizon time units at every arrival (section 3.5.1)."),
    horizon: Optional[str] = typer.Option(None, "--horizon", callback=decimals(several=False), show_default=False,
                                          help="With --time: the window length T in time units."),
    limit: int = typer.Option(20, "--limit", callback=integer(0), help="Pairs shown in the table (--json gives all)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead of a table."),
) -> None:
    """Bestmatch join (Kemper/Stegmaier 2002) of two files, exact or under load shedding.

    Variants BMJ, left-, right- and full-outer, and constrained; nested loops or MatWin; optionally over a
    time window.

    Example: shed bmj --r left.csv --s right.csv --attrs y1,y2 --eps 0.1,0.1 --algorithm matwin
    """
    from shedding.bestmatch.values import from_frames

    algo = algorithm or ("matwin" if memory is not None else "nested")
    r_frame, s_frame = _read(r_path, "--r"), _read(s_path, "--s")
    with _values_named():
        data = from_frames(r_frame, s_frame, attrs.split(","), eps)
    order_names = None if orders is None else orders.split(",")
    head = {"variant": variant, "algorithm": algo, "attrs": list(data.attrs), "eps": eps,
            "r_rows": len(data.r), "s_rows": len(data.s), **({} if dominance is None else {"dominance": dominance})}
    reading = dominance or "pareto"
    if time_col is not None:
        assert horizon is not None  # RULES: --time and --horizon come together
        report = _time_window(data, r_frame, s_frame, time_col, horizon, order_names, reading)
    elif memory is not None:
        report = _shed(data, memory, policy, seed, algo, order_names, reading)
    else:
        report = _exact(data, variant, algo, order_names, reading)
    report = {**head, **report}
    if as_json:
        print(json.dumps(report))
        return
    _print(report, limit)


def _pairs(res) -> list[list[int]]:  # noqa: ANN001
    return (res.pairs + 1).tolist()


def _exact(data, variant: str, algo: str, orders, dominance: str) -> dict:  # noqa: ANN001
    from shedding.bestmatch.join import bestmatch

    res = bestmatch(data, variant, algo, orders, dominance)
    stats = res.stats
    return {"count": len(res.pairs), "seconds": round(res.seconds, 4), "tested": res.tested,
            "peak_memory": None if stats is None else stats.peak_memory, "pairs": _pairs(res)}


def _shed(data, memory: int, policy: str, seed: int, algo: str, orders, dominance: str) -> dict:  # noqa: ANN001
    from shedding.bestmatch.join import bestmatch
    from shedding.bestmatch.shed import quality, shed_bestmatch

    exact = bestmatch(data, "constrained", algo, orders, dominance)
    assert exact.stats is not None  # check_mode: shedding runs on MatWin, which reports its statistics
    truth = exact.as_set()
    runs = []
    for name in policy.split(","):
        started = time.perf_counter()
        res = shed_bestmatch(data, memory, name, seed=seed, ego=algo == "matwin-ego", orders=orders,
                             dominance=dominance)
        assert res.stats is not None  # MatWin reports its statistics
        runs.append({"policy": name, **quality(truth, res.as_set()), "dropped": res.stats.dropped,
                     "seconds": round(time.perf_counter() - started, 4), "pairs_found": _pairs(res)})
    return {"memory": memory, "peak_memory": exact.stats.peak_memory, "count": len(truth), "runs": runs}


def _time_window(data, r_frame, s_frame, time_col: str, horizon: str, orders, dominance: str) -> dict:  # noqa: ANN001
    from shedding.bestmatch.join import order_signs
    from shedding.bestmatch.timewindow import time_window_bestmatch
    from shedding.bestmatch.values import scale_columns

    for name, frame in (("R", r_frame), ("S", s_frame)):
        if time_col not in frame.columns:
            raise ShedError(f"unknown --time column {time_col!r} in {name}; its columns are "
                            f"{', '.join(map(str, frame.columns))}")
    [limit] = parse_decimals("--horizon", horizon, several=False)
    with _values_named("--horizon"):
        (tr, ts), t_horizons, [t_scale] = scale_columns([(time_col, [r_frame[time_col].tolist(),
                                                                     s_frame[time_col].tolist()])], [limit])
    assert t_horizons is not None  # the horizon was passed as the eps to scale, so it comes back scaled
    [t_horizon] = t_horizons
    started = time.perf_counter()
    rows = time_window_bestmatch(data, tr[:, 0], ts[:, 0], int(t_horizon), order_signs(orders, data.dims), dominance)
    seconds = time.perf_counter() - started
    triples = [[t / t_scale, r + 1, s + 1] for t, r, s in rows.tolist()]
    return {"horizon": horizon, "count": len(triples), "seconds": round(seconds, 4), "triples": triples}


def _print(report: dict, limit: int) -> None:
    from rich.table import Table
    from rich.text import Text

    from shedding.cli.output import fraction, out, print_fitted

    eps = f" with eps {report['eps']}" if report["eps"] else " (unconstrained)"
    reading = f", {report['dominance']} dominance" if "dominance" in report else ""
    out.print(f"{report['variant']} bestmatch join of R ({report['r_rows']:,} rows) and S ({report['s_rows']:,} "
              f"rows) on {','.join(report['attrs'])}{eps}, {report['algorithm']}{reading}", markup=False,
              highlight=False)
    if "runs" in report:
        out.print(f"exact: {report['count']:,} pairs, peak window memory {report['peak_memory']:,} tuples; "
                  f"shedding to M = {report['memory']:,}", markup=False, highlight=False)
        names = ("policy", "pairs", "true", "false", "missed", "precision", "recall", "symdiff", "dropped")
        rows = [[run["policy"].upper(), *(f"{run[c]:,}" for c in ("pairs", "true", "false", "missed")),
                 fraction(run["precision"]), fraction(run["recall"]), f"{run['symdiff']:,}", f"{run['dropped']:,}"]
                for run in report["runs"]]
        print_fitted([(n, "left" if n == "policy" else "right") for n in names], rows,  # never a cut number
                     optional=("dropped", "symdiff", "missed", "false"))
        return
    if "triples" in report:
        out.print(f"{report['count']:,} (time, r row, s row) results over all evaluations (horizon "
                  f"{report['horizon']}) in {report['seconds']:.3f} s", markup=False, highlight=False)
        columns: tuple[str, ...]
        rows, columns = report["triples"], ("time", "r row", "s row")
    else:
        out.print(f"{report['count']:,} pairs in {report['seconds']:.3f} s ({report['tested']:,} pairs tested)",
                  markup=False, highlight=False)
        rows, columns = report["pairs"], ("r row", "s row")
    table = Table(show_edge=False)
    for col in columns:
        table.add_column(col, justify="right")
    for row in rows[:limit]:
        table.add_row(*(Text(f"{v:g}" if isinstance(v, float) else str(v)) for v in row))
    if rows[:limit]:
        out.print(table)
    if len(rows) > limit:
        out.print(f"(first {limit} of {len(rows):,}; --limit N shows more, --json all)", markup=False,
                  highlight=False)
