"""What a DGR figure plots and the numbers behind it (Das, Gehrke, Riedewald, SIGMOD 2003,
section 4): the layout of an experiment's figure (x, y, the lines, the subplots) and the mean
over seeds per point with the seeds' spread, shared by the figures, the tables and the findings.

Grid fields that vary besides the x axis and the lines become subplots ("facets"). Every point is
the mean over seeds; the spread is the seeds' lowest and highest fraction of OPT or EXACT (never
the raw counts, whose spread is mostly EXACT's own).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from shedding.studies.dgr import opt_bounds

# fields that may become subplots, in the order they are tried
FACET_ORDER = ("dataset", "cell_size", "domain", "length", "window", "correlation", "skew", "skew_s", "estimator",
               "warmup", "memory")
FIELD_LABELS = {"dataset": "data", "skew": "Zipf skew", "skew_s": "S skew", "domain": "domain", "length": "length",
                "correlation": "correlation", "window": "w", "warmup": "warmup", "memory": "M",
                "estimator": "estimator", "cell_size": "cell (degrees)"}
CORRELATION_NAMES = {"independent": "uncorrelated", "same": "correlated", "reversed": "anti-correlated"}
Y_TITLES = {"outputs": "output tuples", "ratio_opt": "fraction of OPT's output",
            "ratio": "fraction of EXACT's output", "share": "R share of tuples in memory (%)",
            "gain": "variable over fixed split - 1"}
#: a variable split and the fixed split its gain is measured against (y = "gain")
FIXED_OF = {"probv": "prob", "optv": "opt", "randv": "rand", "lifev": "life"}  # the DGR suites' policies
@dataclass(frozen=True)
class Layout:
    """What a figure plots: x and y fields, the fields splitting lines, and the subplot fields."""

    x: str
    y: str
    series: tuple[str, ...]
    facets: tuple[str, ...]


def layout_of(rows: pd.DataFrame, exp: dict) -> Layout:
    """The layout of an experiment's figure; a grid field varying besides x and the lines (and not
    just a relabelling of x, like S's skew defaulting to R's) becomes a subplot."""
    figure = exp.get("figure", "memory")
    x, series = ("t", ("policy",)) if figure == "share" else ("skew" if figure == "skew" else "memory", ("policy",))
    y = "share" if figure == "share" else exp.get("y", "outputs")
    facets: list[str] = []
    first = ("domain",) if figure == "domain" else ()
    for name in first + FACET_ORDER:
        if name in facets or name == x or name in series or name not in rows:
            continue
        if _determined(rows, name, [*series, *facets]) or (x in rows and _relabels(rows, name, x)):
            continue
        facets.append(name)
    return Layout(x, y, series, tuple(facets))


def _determined(rows: pd.DataFrame, name: str, keys: list[str]) -> bool:
    """Whether ``name`` takes one value within every group of ``keys``."""
    if rows.empty:
        return True
    if not keys:
        return rows[name].nunique(dropna=False) <= 1
    return int(rows.groupby(keys, dropna=False)[name].nunique(dropna=False).max()) <= 1


def _relabels(rows: pd.DataFrame, a: str, b: str) -> bool:
    """Whether fields ``a`` and ``b`` determine each other (one is a relabelling of the other)."""
    return _determined(rows, a, [b]) and _determined(rows, b, [a])


def spread_field(y: str) -> str:
    """The per-run fraction whose spread over seeds a figure shows: y itself when y is a fraction
    (of OPT or EXACT), else the fraction of EXACT (raw counts vary mostly with EXACT)."""
    return "ratio" if y == "outputs" else y


def summarize(rows: pd.DataFrame, lay: Layout) -> pd.DataFrame:
    """Per (facets, x, series): the mean over seeds of y, the count of its known values (``n``),
    and the seeds' lowest, mean and highest fraction (``lo``, ``fmean``, ``hi``; of EXACT for
    outputs, see :func:`spread_field`): the numbers behind a line figure and its table. Where
    some OPT is only bounded (:mod:`.opt_bounds`), also ``bound_lo``, ``bound_hi`` and
    ``bounded``; a bounded point has no single mean (NaN), only the mean of its bounds."""
    keys = [*lay.facets, lay.x, *lay.series]
    if rows.empty:
        return pd.DataFrame(columns=[*keys, "mean", "lo", "fmean", "hi", "n"])
    if lay.y == "gain":
        return gain_summary(rows, keys)
    spread = spread_field(lay.y)
    stats = rows.groupby(keys, dropna=False).agg(mean=(lay.y, "mean"), lo=(spread, "min"), fmean=(spread, "mean"),
                                                 hi=(spread, "max"), n=(lay.y, "count"))
    stats = stats.reset_index()
    if opt_bounds.any_bounded(rows):
        stats = stats.merge(opt_bounds.bound_stats(rows, keys, lay.y), on=keys, how="left")
        stats.loc[stats["bounded"], ["mean", "lo", "fmean", "hi"]] = math.nan
    return stats.sort_values(keys, kind="stable").reset_index(drop=True)


def gain_summary(rows: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Per ``keys`` (the policy last, a variable split): its output over its fixed split's minus 1,
    pairing runs of the same point and seed; mean over seeds and the seeds' lowest and highest
    (``fmean`` equals ``mean``: the gain is its own spread field)."""
    point = [k for k in keys if k != "policy"]
    table = rows.pivot_table(index=[*point, "seed"], columns="policy", values="outputs", aggfunc="mean")
    frames = []
    for var, fixed in FIXED_OF.items():
        if var in table and fixed in table:
            ratio = (table[var] / table[fixed].where(table[fixed] > 0) - 1).dropna()
            frames.append(ratio.rename("gain").reset_index().assign(policy=var))
    if not frames:
        return pd.DataFrame(columns=[*keys, "mean", "lo", "fmean", "hi", "n"])
    stats = pd.concat(frames).groupby(keys, dropna=False)["gain"].agg(mean="mean", lo="min", hi="max", n="count")
    stats["fmean"] = stats["mean"]
    return stats.reset_index().sort_values(keys, kind="stable").reset_index(drop=True)


def field_text(name: str, value: object) -> str:
    """A grid value as shown in legends, subplot titles and tables (not yet HTML-escaped)."""
    if name == "correlation":
        return CORRELATION_NAMES.get(str(value), str(value))
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def w_multiple(memory: float, window: float) -> str:
    """A memory size as a multiple of a non-zero window: "0.5" for M = 200, w = 400."""
    return f"{memory / window:g}"


def memory_label(memory: int, window: int) -> str:
    """A memory size with its multiple of the window, "200 (0.5w)"; just "200" when w is 0."""
    return f"{memory} ({w_multiple(memory, window)}w)" if window else f"{memory}"


def facet_parts(frame: pd.DataFrame, facets: tuple[str, ...]) -> list[tuple[str, pd.DataFrame]]:
    """``frame`` split by the facet fields, each part with its label ("w = 400, domain = 50")."""
    if not facets:
        return [("", frame)]
    parts = []
    for values, part in frame.groupby(list(facets), sort=True, dropna=False):
        values = values if isinstance(values, tuple) else (values,)
        label = ", ".join(f"{FIELD_LABELS[f]} = {field_text(f, v)}" for f, v in zip(facets, values))
        parts.append((label, part))
    return parts


def series_name(names: tuple[str, ...], values: tuple) -> str:
    """A line's legend name: the policy in capitals, then any other splitting field."""
    return ", ".join(str(v).upper() if n == "policy" else field_text(n, v) for n, v in zip(names, values))


Line = tuple[int, str, tuple, pd.DataFrame, bool]
