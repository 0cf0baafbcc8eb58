"""``shed wjoin``: the multi-way window join (W-join, Hammad et al. 2002) of N stream files or N
synthetic streams: the exact join by NLW, HW and MW (or MW as the paper describes it), with an
equality or key-band predicate, its N-tuples written to a file on request, or shedding to a memory
limit."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any, Optional

import typer

from shedding.cli.checks import (choice, integer, integers, listed_in, named, names, number, parse_integers,
                                 parsed, split_list, value_check)
from shedding.cli.output import fraction, out, say, write_file
from shedding.cli.rules import Conflicts, Creatable, Exists, Fits, Holds, Ignored, Values
from shedding.errors import ShedError
from shedding.online.policies import POLICIES as REGISTRY
from shedding.online.policies import WJOIN, listing, names_for, seeded, uses

OPTIMA = ("opt", "optv")
ALGORITHMS = listed_in("shedding.wjoin.algorithms", "OPERATORS", "all")
APPROACHES = listed_in("shedding.wjoin.operator", "APPROACHES")
POLICIES = listed_in("shedding.wjoin.loadshed", "POLICIES", *OPTIMA)
#: the fixed-split policies of the W-join
FIXED = tuple(n for n in names_for(WJOIN) if not REGISTRY[n].variable)
SYNTHETIC_FLAGS = ("--n-streams", "--length", "--rates", "--zipf-skew", "--domain", "--seed")
#: bytes a synthetic W-join takes per pair of streams (bound matrices and the N^2 per-pair work of
#: the exact count) and per tuple (times, keys, the sorted index): an estimate
PAIR_BYTES, TUPLE_BYTES = 80, 32


def key_predicate(text: str) -> int:
    """The --predicate text as the library reads it."""
    from shedding.wjoin.predicates import parse_key_predicate

    return parse_key_predicate(text)


def rates(text: str) -> list[float | tuple[float, ...]]:
    """``1,0.5,10/1000`` -> [1.0, 0.5, (10.0, 1000.0)]: a slash lists rates a stream cycles through;
    each a finite number > 0 (tuples per time unit)."""
    out: list[float | tuple[float, ...]] = []
    for part in text.split(","):
        try:
            values = tuple(float(r) for r in part.split("/"))
        except ValueError:
            raise ShedError(f"--rates must be numbers separated by commas (a/b cycles rates), got {text!r}") from None
        if not all(math.isfinite(r) and r > 0 for r in values):
            raise ShedError(f"--rates must be finite numbers > 0 (tuples per time unit), got {part!r}")
        out.append(values[0] if len(values) == 1 else values)
    return out


def stream_files(flag: str, text: str) -> str:
    """A comma list of at least two stream files."""
    files = [p for p in split_list(text) if p]
    if len(files) < 2:
        raise ShedError(f"a W-join needs at least 2 streams, got {len(files)}; give two or more files to {flag}")
    return text


def chosen(v: Values) -> list[str]:
    """The --policy names that run (none without --memory)."""
    return [] if v.memory is None else v.policy.split(",")


def check_split(v: Values) -> None:
    """--memory-split has one part per stream."""
    if v.memory_split is None:
        return
    parts = len(parse_integers("--memory-split", v.memory_split))
    n = v.n_streams if v.streams is None else len([p for p in split_list(v.streams) if p])
    if parts != n:
        raise ShedError(f"--memory-split has {parts} parts for {n} streams; give one per stream")


def band_of(v: Values) -> int:
    """The key band of --predicate (0: equality)."""
    from shedding.wjoin.predicates import parse_key_predicate

    return parse_key_predicate(v.predicate)


def check_band_algorithm(v: Values) -> None:
    """HW hashes the key, so it serves equality only."""
    if v.algorithm == "hw" and band_of(v):
        raise ShedError(f"--predicate {v.predicate} needs a nested loop; HW is a hash join (equality only): "
                        f"use --algorithm nlw, mw or mw-paper")


def out_file(flag: str, text: str) -> str:
    """A CSV or Parquet file name."""
    from shedding.datasets.files import format_of

    format_of(Path(text), f"give {flag} a name ending in .csv or .parquet")
    return text


def synthetic_bytes(v: Values) -> float:
    return float(v.n_streams) ** 2 * PAIR_BYTES + float(v.n_streams) * v.length * TUPLE_BYTES


RULES = (
    Conflicts(("--window",), ("--windows",), " (one window for every pair, or one per pair)"),
    Ignored(SYNTHETIC_FLAGS, lambda v: v.streams is None, "applies to synthetic streams only, not to --streams files"),
    Ignored(("--algorithm",), lambda v: v.memory is None, "applies to the exact join; with --memory the shedding "
            "operator runs", "drop --memory or --algorithm"),
    Ignored(("--approach",), lambda v: v.windows is not None and v.memory is None,
            "applies to per-pair windows (--windows) on the exact join only"),
    Ignored(("--policy",), lambda v: v.memory is not None, "applies when shedding", "add --memory M or drop it"),
    Ignored(("--memory-split",), lambda v: any(p == "opt" or (p in REGISTRY and not REGISTRY[p].variable)
                                               for p in chosen(v)),
            f"applies to the fixed-split policies ({', '.join(FIXED)}, opt) with --memory only"),
    Ignored(("--policy-seed",), lambda v: any(map(seeded, chosen(v))),
            f"applies to the random choices of {' and '.join(n for n in uses('seed') if n in names_for(WJOIN))} "
            "(with --memory) only"),
    Ignored(("--opt-seconds",), lambda v: bool(set(OPTIMA) & set(chosen(v))),
            "applies to the optimum (--policy opt or optv with --memory) only"),
    Ignored(("--predicate",), lambda v: v.memory is None or not band_of(v),
            "band applies to the exact join; the shedding policies join equal keys", "drop --memory or --predicate"),
    Ignored(("--out",), lambda v: v.memory is None, "writes the exact join's N-tuples; with --memory the shedding "
            "operator only counts them", "drop --memory or --out"),
    Holds(check_band_algorithm),
    Holds(check_split),
    Exists(("--streams",), split=True),
    Creatable(("--out",)),
    Fits(("--n-streams", "--length"), synthetic_bytes, "the synthetic W-join", when=lambda v: v.streams is None),
)
ALIASES = {"time_limit": "--opt-seconds", "skew": "--zipf-skew", "paths": "--streams", "key_band": "--predicate"}


def wjoin(
    streams: Optional[str] = typer.Option(None, "--streams", callback=value_check(stream_files), show_default=False,
                                          help="Comma list of CSV/Parquet files, one stream each (columns time, "
                                          "key); a stream is named by its file name."),
    window: Optional[int] = typer.Option(None, "--window", "-w", callback=integer(0), show_default=False,
                                         help="One window for every pair (Form 1): |t_i - t_j| <= W. Default 10."),
    windows: Optional[str] = typer.Option(None, "--windows", show_default=False,
                                          help='Windows per pair, e.g. "a-b:5,b-c:3" (Forms 2 and 3; a missing pair '
                                          "gets the shortest-path bound)."),
    algorithm: str = typer.Option("all", "--algorithm", "-a", callback=choice(ALGORITHMS),
                                  help="nlw, hw, mw, mw-paper (MW's Mode 1 and Mode 2 as the paper's Figure 6 "
                                  "describes), or all (nlw, hw and mw, each checked equal; hw only for equal keys)."),
    approach: str = typer.Option("local", "--approach", callback=choice(APPROACHES),
                                 help="Forms 2/3: local (closure bounds; for mw-paper the paper's LCA) or global (the "
                                 "paper's GCA: widest window, then refine)."),
    predicate: str = typer.Option("eq", "--predicate", callback=parsed(key_predicate),
                                  help="The key predicate: eq (equal keys) or band:EPS (the keys of every pair differ "
                                  "by at most the integer EPS; nlw and mw only)."),
    out_path: Optional[Path] = typer.Option(None, "--out", callback=value_check(out_file), show_default=False,
                                            help="Also write the N-tuples to this CSV or Parquet file: per stream "
                                            "NAME the columns NAME_time, NAME_key, NAME_row."),
    memory: Optional[int] = typer.Option(None, "--memory", "-m", callback=integer(0), show_default=False,
                                         help="Shed to at most M tuples in all buffers."),
    policy: str = typer.Option("prob", "--policy", "-p", callback=names(POLICIES),
                               help="With --memory: comma list of " + ", ".join(names_for(WJOIN)) + ", opt (CP-SAT "
                               "optimum, small inputs), optv; " + listing(names_for(WJOIN)) + "."),
    memory_split: Optional[str] = typer.Option(None, "--memory-split", callback=integers(), show_default=False,
                                               help="Fixed split M_1,...,M_N (default M//N each, the remainder "
                                               "first)."),
    policy_seed: int = typer.Option(0, "--policy-seed", callback=integer(0), help="Seed of RAND's choices."),
    opt_seconds: float = typer.Option(10.0, "--opt-seconds", callback=number(0, above=True),
                                      help="Time limit of the CP-SAT optimum; the output says whether optimality was "
                                      "proven."),
    n_streams: int = typer.Option(3, "--n-streams", callback=integer(2), help="Synthetic: number of streams."),
    length: int = typer.Option(1000, "--length", callback=integer(1), help="Synthetic: tuples per stream."),
    rate_list: Optional[str] = typer.Option(None, "--rates", callback=parsed(rates), show_default=False,
                                            help="Synthetic: tuples per time unit per stream, e.g. 1,1,0.1; 0.01/1 "
                                            "switches between two rates every 100 tuples."),
    zipf_skew: float = typer.Option(1.0, "--zipf-skew", callback=number(0), help="Synthetic: Zipf skew of the keys."),
    domain: int = typer.Option(10, "--domain", callback=integer(1), help="Synthetic: number of distinct keys."),
    seed: int = typer.Option(0, "--seed", callback=integer(0), help="Synthetic: seed."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object per row instead of a table."),
) -> None:
    """Multi-way window join (W-join, Hammad et al. 2002) of N streams: NLW, HW, MW, shedding.

    Example: shed wjoin --streams a.csv,b.csv,c.csv --windows "a-b:5,b-c:3" --algorithm mw
    """
    from rich.table import Table

    from shedding.wjoin.exact import exact_count
    from shedding.wjoin.generator import synthetic_streams
    from shedding.wjoin.streams import read_streams
    from shedding.wjoin.windows import WindowSpec, parse_windows

    if streams is not None:
        data = read_streams([Path(p) for p in split_list(streams) if p])
    else:
        data = synthetic_streams(n_streams, length, None if rate_list is None else rates(rate_list), zipf_skew,
                                 domain, seed)
    try:
        spec = parse_windows(windows, data.names) if windows is not None else \
            WindowSpec.uniform(data.names, 10 if window is None else window)
    except ShedError as exc:  # the windows as the streams' names read them
        raise ShedError(named(exc, "--windows" if windows is not None else "--window")) from None
    band = key_predicate(predicate)
    exact = exact_count(data, spec, key_band=band)
    split = None if memory_split is None else list(parse_integers("--memory-split", memory_split))
    if memory is None:
        rows, found = _join_rows(data, spec, algorithm, approach, band, exact)
        if out_path is not None:
            from shedding.wjoin.streams import write_results

            write_file(out_path, "--out", lambda path: write_results(data, found, path))
    else:
        rows = _shed_rows(data, spec, memory, policy.split(","), split, policy_seed, exact, opt_seconds)
    if as_json:
        for row in rows:
            print(json.dumps(row))
        return
    keys = f"; keys within {band}" if band else ""
    say(f"{data.n} streams ({', '.join(f'{n}: {k:,}' for n, k in zip(data.names, data.lengths()))} tuples), "
        f"Form {spec.form}: {spec.describe()}; widest bound {spec.widest}{keys}; exact {exact:,} N-tuples")
    table = Table(show_edge=False)
    for col in rows[0]:
        if col != "exact":
            table.add_column(col, justify="left" if col in ("algorithm", "policy") else "right")
    for row in rows:
        table.add_row(*(fraction(v) if k == "ratio" else _cell(v) for k, v in row.items() if k != "exact"))
    out.print(table)
    if out_path is not None and memory is None:
        say(f"wrote {exact:,} N-tuples to {out_path}")


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


def _join_rows(data: Any, spec: Any, algo: str, approach: str, band: int, exact: int) -> tuple[list[dict], Any]:
    """One row per algorithm (``all``: NLW, HW and MW, HW only for equal keys), each checked
    against the exact count and the first; and the N-tuples."""
    from shedding.wjoin.algorithms import ALGORITHMS as RUN, make_operator
    from shedding.wjoin.operator import run

    rows, first = [], None
    total = sum(data.lengths())
    for name in ([a for a in RUN if not (band and a == "hw")] if algo == "all" else [algo]):
        started = time.perf_counter()
        found = run(make_operator(name, spec, approach=approach, key_band=band), data)
        seconds = time.perf_counter() - started
        if len(found) != exact or (first is not None and not (found == first).all()):
            raise ShedError(f"internal check failed: {name} found {len(found)} N-tuples, the exact count is {exact}")
        first = found
        rows.append({"algorithm": name, "results": len(found), "exact": exact, "seconds": round(seconds, 4),
                     "us_per_tuple": round(1e6 * seconds / max(total, 1), 2)})
    return rows, first


def _shed_rows(data: Any, spec: Any, memory: int, chosen: list[str], split: Optional[list[int]], seed: int,
               exact: int, opt_seconds: float) -> list[dict]:
    from shedding.wjoin.fastshed import shed_outputs

    rows = []
    for name in chosen:
        started = time.perf_counter()
        proven = None
        if name in OPTIMA:
            from shedding.wjoin.opt import solve_opt

            try:
                res = solve_opt(data, spec, memory, memory_split=split, time_limit=opt_seconds,
                              allocation="variable" if name == "optv" else "fixed")
            except ShedError as exc:  # the instance is too large for the exact optimum
                raise ShedError(named(exc, f"--policy {name}")) from None
            outputs, dropped, proven = res.outputs, None, res.optimal
        else:
            outputs, dropped = shed_outputs(data, spec, memory, name, memory_split=split, seed=seed, exact=exact)
        rows.append({"policy": name, "outputs": outputs, "exact": exact,
                     "ratio": round(outputs / exact if exact else 1.0, 6), "memory": memory, "dropped": dropped,
                     "proven": proven, "seconds": round(time.perf_counter() - started, 4)})
    return rows
