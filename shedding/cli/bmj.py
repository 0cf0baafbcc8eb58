"""``shed bmj``: the bestmatch joins of two files (Kemper/Stegmaier 2002), exact or under load shedding.

Registered onto the ``shed`` app in :mod:`shedding.cli.group`; numpy, pandas and numba are imported inside
the command, so ``shed`` starts as fast without it. Bad input raises ShedError, which ``shed``
prints as a one-line ``error: ...`` with exit code 2. Pair rows count data rows from 1.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Optional

import typer

from shedding.errors import ShedError


def _read(path: Path, what: str):  # noqa: ANN202 (a DataFrame; pandas is imported lazily)
    """A CSV (values kept as the text written, for exact decimals) or Parquet file."""
    import pandas as pd

    from shedding.datasets.files import check_file, format_of

    check_file(path, f"the {what} file")
    try:
        if format_of(path) == "csv":
            return pd.read_csv(path, dtype=str, skipinitialspace=True)
        return pd.read_parquet(path)
    except pd.errors.EmptyDataError:
        raise ShedError(f"{path} is empty; give a file with a header row and data rows") from None
    except (OSError, ValueError, pd.errors.ParserError) as exc:
        raise ShedError(f"cannot read {path}: {' '.join(str(exc).split())[:200]}; check the file") from None


def bmj_command(
    r_path: Path = typer.Option(..., "--r", help="The left input R: CSV or Parquet with the join attributes.",
                                show_default=False),
    s_path: Path = typer.Option(..., "--s", help="The right input S: CSV or Parquet with the join attributes.",
                                show_default=False),
    attrs: str = typer.Option(..., "--attrs", help="Join attributes y1,...,yd (in both files); MatWin reads the "
                              "inputs sorted by the first.", show_default=False),
    eps: Optional[str] = typer.Option(None, "--eps", help="Maximum distance per attribute, e.g. 0.1,0.1 (the "
                                      "constraint of section 2.3).", show_default=False),
    variant: str = typer.Option("constrained", "--variant", help="bmj, left-outer (each constrained when --eps is "
                                "given) or constrained (the constrained left-outer BMJ, LOBMJE)."),
    algorithm: Optional[str] = typer.Option(None, "--algorithm", "-a", help="nested (any order), matwin or "
                                            "matwin-ego (inputs sorted by the first attribute). Default: nested, "
                                            "or matwin with --memory.", show_default=False),
    orders: Optional[str] = typer.Option(None, "--orders", help="Order per attribute: minAttrDist (default) or "
                                         "maxAttrDist, e.g. minAttrDist,maxAttrDist.", show_default=False),
    memory: Optional[int] = typer.Option(None, "--memory", "-m", help="Shed: at most M tuples in MatWin's two "
                                         "windows; compares with the exact result.", show_default=False),
    policy: str = typer.Option("prob", "--policy", "-p", help="With --memory: comma list of rand, prob, ahead."),
    seed: int = typer.Option(0, "--seed", help="Seed of RAND's choices."),
    time_col: Optional[str] = typer.Option(None, "--time", help="Timestamp column: re-evaluate the constrained "
                                           "left-outer BMJ over the last --horizon time units at every arrival "
                                           "(section 3.5.1).", show_default=False),
    horizon: Optional[str] = typer.Option(None, "--horizon", help="With --time: the window length T in time units.",
                                          show_default=False),
    limit: int = typer.Option(20, "--limit", help="Pairs shown in the table (--json gives all)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead of a table."),
) -> None:
    """Bestmatch join (Kemper/Stegmaier 2002) of two files, exact or under load shedding.

    Variants BMJ, left-outer and constrained; nested loops or MatWin; optionally over a time window.

    Example: shed bmj --r a.csv --s b.csv --attrs y1,y2 --eps 0.1,0.1 --algorithm matwin
    """
    from shedding.bestmatch.join import ALGORITHMS, VARIANTS
    from shedding.bestmatch.values import from_frames

    variant_key = variant.strip().lower()
    if variant_key not in VARIANTS:
        raise ShedError(f"unknown variant {variant!r}; choose from {', '.join(VARIANTS)}")
    algo = (algorithm or ("matwin" if memory is not None else "nested")).strip().lower()
    if algo not in ALGORITHMS:
        raise ShedError(f"unknown algorithm {algorithm!r}; choose from {', '.join(ALGORITHMS)}")
    if limit < 0:
        raise ShedError(f"--limit must be >= 0, got {limit}")
    if (time_col is None) != (horizon is None):
        raise ShedError("give --time and --horizon together (the timestamp column and the window length)")
    if time_col is not None and memory is not None:
        raise ShedError("--time re-evaluates the exact join; drop --memory (shedding runs on MatWin)")
    names = [a for a in attrs.split(",")]
    r_frame, s_frame = _read(r_path, "--r"), _read(s_path, "--s")
    data = from_frames(r_frame, s_frame, names, eps)
    order_names = None if orders is None else orders.split(",")
    head = {"variant": variant_key, "algorithm": algo, "attrs": list(data.attrs), "eps": eps,
            "r_rows": len(data.r), "s_rows": len(data.s)}
    if time_col is not None:
        report = _time_window(data, r_frame, s_frame, time_col, horizon, order_names, variant_key, algo)
    elif memory is not None:
        report = _shed(data, memory, policy, seed, algo, order_names, variant_key)
    else:
        report = _exact(data, variant_key, algo, order_names)
    report = {**head, **report}
    if as_json:
        print(json.dumps(report))
        return
    _print(report, limit)


def _pairs(res) -> list[list[int]]:  # noqa: ANN001
    return (res.pairs + 1).tolist()


def _exact(data, variant: str, algo: str, orders) -> dict:  # noqa: ANN001
    from shedding.bestmatch.join import bestmatch

    res = bestmatch(data, variant, algo, orders)
    stats = res.stats
    return {"count": len(res.pairs), "seconds": round(res.seconds, 4), "tested": res.tested,
            "peak_memory": None if stats is None else stats.peak_memory, "pairs": _pairs(res)}


def _shed(data, memory: int, policy: str, seed: int, algo: str, orders, variant: str) -> dict:  # noqa: ANN001
    from shedding.bestmatch.join import bestmatch
    from shedding.bestmatch.shed import check_policy, quality, shed_bestmatch

    if variant != "constrained":
        raise ShedError("shedding runs the constrained left-outer BMJ on MatWin; use --variant constrained")
    if algo == "nested":
        raise ShedError("shedding bounds MatWin's windows; use --algorithm matwin or matwin-ego")
    names = [check_policy(p) for p in policy.split(",") if p.strip()]
    if not names:
        raise ShedError("--policy is empty; give one or more of rand, prob, ahead")
    exact = bestmatch(data, "constrained", algo, orders)
    truth = exact.as_set()
    runs = []
    for name in names:
        started = time.perf_counter()
        res = shed_bestmatch(data, memory, name, seed=seed, ego=algo == "matwin-ego", orders=orders)
        runs.append({"policy": name, **quality(truth, res.as_set()), "dropped": res.stats.dropped,
                     "seconds": round(time.perf_counter() - started, 4), "pairs_found": _pairs(res)})
    return {"memory": memory, "peak_memory": exact.stats.peak_memory, "count": len(truth), "runs": runs}


def _time_window(data, r_frame, s_frame, time_col: str, horizon: str, orders, variant: str,  # noqa: ANN001
                 algo: str) -> dict:
    from shedding.bestmatch.join import order_signs
    from shedding.bestmatch.timewindow import time_window_bestmatch
    from shedding.bestmatch.values import parse_eps, scale_columns

    if variant != "constrained" or algo != "nested":
        raise ShedError("--time re-evaluates the constrained left-outer BMJ by nested loops; drop --variant and "
                        "--algorithm")
    for name, frame in (("R", r_frame), ("S", s_frame)):
        if time_col not in frame.columns:
            raise ShedError(f"unknown --time column {time_col!r} in {name}; its columns are "
                            f"{', '.join(map(str, frame.columns))}")
    [limit] = parse_eps(horizon, 1, "--horizon")
    (tr, ts), [t_horizon], [t_scale] = scale_columns([(time_col, [r_frame[time_col].tolist(),
                                                                  s_frame[time_col].tolist()])], [limit])
    started = time.perf_counter()
    rows = time_window_bestmatch(data, tr[:, 0], ts[:, 0], int(t_horizon), order_signs(orders, data.dims))
    seconds = time.perf_counter() - started
    triples = [[t / t_scale, r + 1, s + 1] for t, r, s in rows.tolist()]
    return {"horizon": horizon, "count": len(triples), "seconds": round(seconds, 4), "triples": triples}


def _print(report: dict, limit: int) -> None:
    from rich.console import Console
    from rich.table import Table

    out = Console()
    eps = f" with eps {report['eps']}" if report["eps"] else " (unconstrained)"
    out.print(f"{report['variant']} bestmatch join of R ({report['r_rows']:,} rows) and S ({report['s_rows']:,} "
              f"rows) on {','.join(report['attrs'])}{eps}, {report['algorithm']}", markup=False, highlight=False)
    if "runs" in report:
        out.print(f"exact: {report['count']:,} pairs, peak window memory {report['peak_memory']:,} tuples; "
                  f"shedding to M = {report['memory']:,}", markup=False, highlight=False)
        table = Table(show_edge=False)
        for col in ("policy", "pairs", "true", "false", "missed", "precision", "recall", "symdiff", "dropped"):
            table.add_column(col, justify="left" if col == "policy" else "right")
        for run in report["runs"]:
            table.add_row(run["policy"].upper(), *(f"{run[c]:,}" for c in ("pairs", "true", "false", "missed")),
                          f"{run['precision']:.3f}", f"{run['recall']:.3f}", f"{run['symdiff']:,}",
                          f"{run['dropped']:,}")
        out.print(table)
        return
    if "triples" in report:
        out.print(f"{report['count']:,} (time, r row, s row) results over all evaluations (horizon "
                  f"{report['horizon']}) in {report['seconds']:.3f} s", markup=False, highlight=False)
        rows, columns = report["triples"], ("time", "r row", "s row")
    else:
        out.print(f"{report['count']:,} pairs in {report['seconds']:.3f} s ({report['tested']:,} pairs tested)",
                  markup=False, highlight=False)
        rows, columns = report["pairs"], ("r row", "s row")
    table = Table(show_edge=False)
    for col in columns:
        table.add_column(col, justify="right")
    for row in rows[:limit]:
        table.add_row(*(f"{v:g}" if isinstance(v, float) else str(v) for v in row))
    if rows[:limit]:
        out.print(table)
    if len(rows) > limit:
        out.print(f"(first {limit} of {len(rows):,}; --limit N shows more, --json all)", markup=False,
                  highlight=False)
