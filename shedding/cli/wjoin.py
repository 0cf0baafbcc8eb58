"""``shed wjoin``: the multi-way window join of N stream files (or N synthetic streams).

Registered onto the ``shed`` app in :mod:`shedding.cli.group`; everything heavy is imported inside the
command, so ``shed`` starts as fast without it. Bad input raises ShedError, which ``shed`` prints as
a one-line ``error: ...`` with exit code 2.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Optional

import typer

from shedding.errors import ShedError

ALGORITHM_CHOICES = ("nlw", "hw", "mw", "all")


def _floats(text: str, what: str) -> list[float | tuple[float, ...]]:
    """``1,0.5,10/1000`` -> [1.0, 0.5, (10.0, 1000.0)]: a slash lists rates a stream cycles through."""
    out: list[float | tuple[float, ...]] = []
    for part in text.split(","):
        try:
            rates = tuple(float(r) for r in part.split("/"))
        except ValueError:
            raise ShedError(f"{what} must be numbers separated by commas (a/b cycles rates), got {text!r}") from None
        out.append(rates[0] if len(rates) == 1 else rates)
    return out


def _ints(text: str, what: str) -> list[int]:
    try:
        return [int(p) for p in text.replace(":", ",").split(",")]
    except ValueError:
        raise ShedError(f"{what} must be integers separated by commas, got {text!r}") from None


def wjoin_command(
    streams: Optional[str] = typer.Option(None, "--streams", help="Comma list of CSV/Parquet files, one stream each "
                                          "(columns time, key); a stream is named by its file name.",
                                          show_default=False),
    window: Optional[int] = typer.Option(None, "--window", "-w", help="One window for every pair (Form 1): "
                                         "|t_i - t_j| <= W. Default 10.", show_default=False),
    windows: Optional[str] = typer.Option(None, "--windows", help='Windows per pair, e.g. "a-b:5,b-c:3" (Forms 2 '
                                          "and 3; a missing pair gets the shortest-path bound).", show_default=False),
    algorithm: str = typer.Option("all", "--algorithm", "-a", help="nlw, hw, mw, or all (each, checked equal)."),
    approach: str = typer.Option("local", "--approach", help="Forms 2/3: local (closure bounds) or global "
                                 "(the paper's GCA: widest window, then refine)."),
    memory: Optional[int] = typer.Option(None, "--memory", "-m", help="Shed to at most M tuples in all buffers.",
                                         show_default=False),
    policy: str = typer.Option("prob", "--policy", "-p", help="With --memory: comma list of rand, prob, life, randv, "
                               "probv, lifev, opt (CP-SAT optimum, small inputs), optv."),
    memory_split: Optional[str] = typer.Option(None, "--memory-split", help="Fixed split M_1,...,M_N (default "
                                               "M//N each, the remainder first).", show_default=False),
    policy_seed: int = typer.Option(0, "--policy-seed", help="Seed of RAND's choices."),
    opt_seconds: float = typer.Option(10.0, "--opt-seconds", help="Time limit of the CP-SAT optimum; the output "
                                      "says whether optimality was proven."),
    n_streams: int = typer.Option(3, "--n-streams", help="Synthetic: number of streams."),
    length: int = typer.Option(1000, "--length", help="Synthetic: tuples per stream."),
    rates: Optional[str] = typer.Option(None, "--rates", help="Synthetic: tuples per time unit per stream, e.g. "
                                        "1,1,0.1; 0.01/1 switches between two rates every 100 tuples.",
                                        show_default=False),
    zipf_skew: float = typer.Option(1.0, "--zipf-skew", help="Synthetic: Zipf skew of the keys."),
    domain: int = typer.Option(10, "--domain", help="Synthetic: number of distinct keys."),
    seed: int = typer.Option(0, "--seed", help="Synthetic: seed."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object per row instead of a table."),
) -> None:
    """Multi-way window join (W-join, Hammad et al. 2002) of N streams: NLW, HW, MW, shedding.

    Example: shed wjoin --streams a.csv,b.csv,c.csv --windows "a-b:5,b-c:3" --algorithm mw
    """
    from rich.console import Console
    from rich.table import Table

    from shedding.wjoin.exact import exact_count
    from shedding.wjoin.windows import WindowSpec, parse_windows

    algo = algorithm.strip().lower()
    if algo not in ALGORITHM_CHOICES:
        raise ShedError(f"unknown algorithm {algorithm!r}; choose from {', '.join(ALGORITHM_CHOICES)}")
    if window is not None and windows is not None:
        raise ShedError("give either --window (one for all pairs) or --windows (per pair), not both")
    names = _policies(policy) if memory is not None else []
    split = None if memory_split is None else _ints(memory_split, "--memory-split")
    data = _streams(streams, n_streams, length, rates, zipf_skew, domain, seed)
    spec = parse_windows(windows, data.names) if windows is not None else \
        WindowSpec.uniform(data.names, 10 if window is None else window)
    exact = exact_count(data, spec)
    rows = _join_rows(data, spec, algo, approach, exact) if memory is None else \
        _shed_rows(data, spec, memory, names, split, policy_seed, exact, opt_seconds)
    if as_json:
        for row in rows:
            print(json.dumps(row))
        return
    out = Console()
    out.print(f"{data.n} streams ({', '.join(f'{n}: {k:,}' for n, k in zip(data.names, data.lengths()))} tuples), "
              f"Form {spec.form}: {spec.describe()}; widest bound {spec.widest}; exact {exact:,} N-tuples",
              markup=False, highlight=False)
    table = Table(show_edge=False)
    for col in rows[0]:
        if col != "exact":
            table.add_column(col, justify="left" if col in ("algorithm", "policy") else "right")
    for row in rows:
        table.add_row(*(_cell(v) for k, v in row.items() if k != "exact"))
    out.print(table)


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _policies(text: str) -> list[str]:
    """The --policy names; each is checked by the shedding module (opt and optv are the optimum)."""
    from shedding.wjoin.loadshed import POLICIES, check_policy

    names = [p.strip().lower() for p in text.split(",") if p.strip()]
    if not names:
        raise ShedError("--policy is empty; give one or more of " + ", ".join((*POLICIES, "opt", "optv")))
    for name in names:
        if name not in ("opt", "optv"):
            check_policy(name, also=("opt", "optv"))
    return names


def _streams(paths: Optional[str], n: int, length: int, rates: Optional[str], skew: float, domain: int, seed: int):
    from shedding.wjoin.generator import synthetic_streams
    from shedding.wjoin.streams import read_streams

    if paths is not None:
        files = [Path(p.strip()) for p in paths.split(",") if p.strip()]
        if len(files) < 2:
            raise ShedError(f"a W-join needs at least 2 streams, got {len(files)}; give two or more files to --streams")
        return read_streams(files)
    return synthetic_streams(n, length, None if rates is None else _floats(rates, "--rates"), skew, domain, seed)


def _join_rows(data, spec, algo: str, approach: str, exact: int) -> list[dict]:  # noqa: ANN001
    from shedding.wjoin.algorithms import ALGORITHMS, make_operator
    from shedding.wjoin.operator import run

    rows, first = [], None
    total = sum(data.lengths())
    for name in (ALGORITHMS if algo == "all" else [algo]):
        started = time.perf_counter()
        found = run(make_operator(name, spec, approach=approach), data)
        seconds = time.perf_counter() - started
        if len(found) != exact or (first is not None and not (found == first).all()):
            raise ShedError(f"internal check failed: {name} found {len(found)} N-tuples, the exact count is {exact}")
        first = found
        rows.append({"algorithm": name, "results": len(found), "exact": exact, "seconds": round(seconds, 4),
                     "us_per_tuple": round(1e6 * seconds / max(total, 1), 2)})
    return rows


def _shed_rows(data, spec, memory: int, names: list[str], split, seed: int, exact: int,  # noqa: ANN001
               opt_seconds: float) -> list[dict]:
    from shedding.wjoin.fastshed import shed_count
    from shedding.wjoin.loadshed import shed_wjoin

    rows = []
    for name in names:
        started = time.perf_counter()
        proven = None
        if name in ("opt", "optv"):
            from shedding.wjoin.opt import optimum

            res = optimum(data, spec, memory, memory_split=split, time_limit=opt_seconds,
                          allocation="variable" if name == "optv" else "fixed")
            outputs, dropped, proven = res.outputs, None, res.optimal
        elif spec.uniform_bound is not None:  # Form 1: the compiled count
            outputs, dropped = shed_count(data, spec, memory, name, memory_split=split, seed=seed)
        else:
            res = shed_wjoin(data, spec, memory, name, memory_split=split, seed=seed, exact=exact)
            outputs, dropped = res.outputs, res.dropped
        rows.append({"policy": name, "outputs": outputs, "exact": exact,
                     "ratio": round(outputs / exact if exact else 1.0, 6), "memory": memory, "dropped": dropped,
                     "proven": proven, "seconds": round(time.perf_counter() - started, 4)})
    return rows
