"""The report's plotly figures, in the forms of Das, Gehrke, Riedewald (SIGMOD 2003), section 4.

* ``memory``: output (or a fraction) against memory M, one line per policy (Figures 3-5, 7).
* ``skew``: fraction of OPT against the Zipf skew, one line per policy and correlation (Figure 6).
* ``domain``: fraction of OPT against M, one subplot per domain size (Figures 9-11).
* ``share``: R's share of memory over time under a variable split (Figure 8).

Grid fields that vary besides the x axis and the lines become subplots ("facets"). Every point is
the mean over seeds; error bars span the seeds' min and max.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from html import escape

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

# fields that may become subplots, in the order they are tried
FACET_ORDER = ("dataset", "cell_size", "domain", "length", "window", "correlation", "skew", "skew_s", "estimator",
               "warmup", "memory")
FIELD_LABELS = {"dataset": "data", "skew": "Zipf skew", "skew_s": "S skew", "domain": "domain", "length": "length",
                "correlation": "correlation", "window": "w", "warmup": "warmup", "memory": "M",
                "estimator": "estimator", "cell_size": "cell (degrees)"}
CORRELATION_NAMES = {"independent": "uncorrelated", "same": "correlated", "reversed": "anti-correlated"}
Y_TITLES = {"outputs": "output tuples", "ratio_opt": "fraction of OPT's output",
            "ratio": "fraction of EXACT's output", "share": "R share of tuples in memory (%)"}
X_TITLES = {"memory": "memory M (tuples)", "skew": "Zipf skew", "t": "time step"}
COLORS = {"exact": "#222222", "opt": "#2ca02c", "optv": "#2ca02c", "prob": "#1f77b4", "probv": "#1f77b4",
          "life": "#ff7f0e", "lifev": "#ff7f0e", "rand": "#d62728", "randv": "#d62728"}
CORRELATION_DASH = {"independent": "solid", "same": "dot", "reversed": "dashdot"}
MAX_COLS = 3
ROW_HEIGHT = 400


@dataclass(frozen=True)
class Layout:
    """What a figure plots: x and y fields, the fields splitting lines, and the subplot fields."""

    x: str
    y: str
    series: tuple[str, ...]
    facets: tuple[str, ...]


def plan(rows: pd.DataFrame, exp: dict) -> Layout:
    """The layout of an experiment's figure; a grid field varying besides x and the lines (and not
    just a relabelling of x, like S's skew defaulting to R's) becomes a subplot."""
    figure = exp.get("figure", "memory")
    x, series = {"share": ("t", ("policy",)), "skew": ("skew", ("policy", "correlation"))}.get(
        figure, ("memory", ("policy",)))
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


def summarize(rows: pd.DataFrame, lay: Layout) -> pd.DataFrame:
    """Mean, min and max over seeds of y, and the count of its known values (``n``), per (facets,
    x, series): the numbers behind a line figure and its table."""
    keys = [*lay.facets, lay.x, *lay.series]
    if rows.empty:
        return pd.DataFrame(columns=[*keys, "mean", "lo", "hi", "n"])
    grouped = rows.groupby(keys, dropna=False)[lay.y]
    stats = grouped.agg(mean="mean", lo="min", hi="max", n="count")
    return stats.reset_index().sort_values(keys, kind="stable").reset_index(drop=True)


def field_text(name: str, value: object) -> str:
    """A grid value as shown in legends, subplot titles and tables (not yet HTML-escaped)."""
    if name == "correlation":
        return CORRELATION_NAMES.get(str(value), str(value))
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def pct(value: float | None) -> str:
    """A fraction as a percentage (0.123 -> "12.3%"), "-" when unknown."""
    return "-" if value is None or not math.isfinite(float(value)) else f"{100 * value:.1f}%"


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


def _lines(parts: list[tuple[str, pd.DataFrame]], lay: Layout, exp: dict) -> Iterator[Line]:
    """Every line of a faceted figure as (subplot index, legend name, series values, its rows,
    whether its name is new to the legend); in each subplot, ordered as the experiment lists its
    policies."""
    rank = {p: i for i, p in enumerate(exp.get("policies", []))}
    shown: set[str] = set()
    for index, (_, part) in enumerate(parts):
        groups = [((k if isinstance(k, tuple) else (k,)), g) for k, g in part.groupby(list(lay.series), dropna=False)]
        groups.sort(key=lambda kg: (rank.get(kg[0][0], len(rank)), [str(v) for v in kg[0][1:]]))
        for values, line in groups:
            name = series_name(lay.series, values)
            yield index, name, values, line, name not in shown
            shown.add(name)


def _style(names: tuple[str, ...], values: tuple) -> dict:
    """Colour by policy; dashes for variable-split policies, or for correlation (Figure 6)."""
    info = dict(zip(names, values))
    policy = str(info["policy"])
    dash = CORRELATION_DASH.get(str(info["correlation"]), "dash") if "correlation" in info else (
        "dash" if policy.endswith("v") else "solid")
    return {"color": COLORS.get(policy, "#7f7f7f"), "dash": dash}


def _grid(count: int, titles: list[str], shared: bool) -> go.Figure:
    """An empty figure with one subplot per facet, at most MAX_COLS per row; ``shared`` y axes for
    fractions, which compare across subplots (Figures 9-11)."""
    cols = min(MAX_COLS, max(count, 1))
    rows = math.ceil(max(count, 1) / cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[escape(t) for t in titles] if any(titles) else None,
                        shared_yaxes="all" if shared else False, horizontal_spacing=0.08,
                        vertical_spacing=0.12 if rows > 1 else 0.0)
    fig.update_layout(template="plotly_white", height=ROW_HEIGHT * rows + 60, margin={"t": 50, "b": 60},
                      hovermode="closest")
    return fig


def _cell(index: int) -> dict:
    return {"row": index // MAX_COLS + 1, "col": index % MAX_COLS + 1}


def _error_bars(line: pd.DataFrame) -> dict | None:
    """Min-max error bars over seeds, when any point has more than one seed."""
    if not (line["n"] > 1).any():
        return None
    return {"type": "data", "symmetric": False, "array": (line["hi"] - line["mean"]).tolist(),
            "arrayminus": (line["mean"] - line["lo"]).tolist(), "thickness": 1, "width": 3}


def line_figure(rows: pd.DataFrame, exp: dict) -> go.Figure:
    """A memory, skew or domain figure (Figures 3-6, 9-11): mean over seeds per point."""
    lay = plan(rows, exp)
    parts = facet_parts(summarize(rows, lay), lay.facets)
    ratio = lay.y != "outputs"
    fig = _grid(len(parts), [label for label, _ in parts], shared=ratio)
    for index, name, values, line, first in _lines(parts, lay, exp):
        fig.add_trace(go.Scatter(
            x=line[lay.x].tolist(), y=line["mean"].tolist(), name=escape(name), legendgroup=name,
            showlegend=first, mode="lines+markers", line=_style(lay.series, values),
            error_y=_error_bars(line)), **_cell(index))
    fig.update_yaxes(tickformat=".0%" if ratio else ",", rangemode="tozero")
    fig.update_yaxes(title_text=Y_TITLES[lay.y], col=1)
    fig.update_xaxes(title_text=X_TITLES[lay.x])
    return fig


def share_curves(rows: pd.DataFrame, lay: Layout) -> pd.DataFrame:
    """R tuples in memory after admission at each sampled time step (``share_t``, ``share_r``),
    mean over seeds, and R's percentage of the tuples held (``share_s`` holds S's count; without
    it, of M) (Figure 8)."""
    keys = _share_keys(lay)
    frames = []
    for _, run in rows.iterrows():
        if not isinstance(run.get("share_t"), str) or not run["share_t"]:
            continue
        t, r = json.loads(run["share_t"]), json.loads(run["share_r"])
        held = ([a + b for a, b in zip(r, json.loads(run["share_s"]))] if run.get("share_s")
                else [run["memory"]] * len(r))
        frames.append(pd.DataFrame({**{k: run[k] for k in keys}, "t": t, "r": r, "held": held}))
    if not frames:
        return pd.DataFrame(columns=[*keys, "t", "r", "seeds", "pct"])
    runs = pd.concat(frames, ignore_index=True)
    curves = runs.groupby([*keys, "t"], dropna=False).agg(r=("r", "mean"), held=("held", "mean"),
                                                         seeds=("r", "size")).reset_index()
    curves["pct"] = 100.0 * curves["r"] / curves["held"].where(curves["held"] > 0)
    return curves.sort_values([*keys, "t"], kind="stable").reset_index(drop=True)


def _share_keys(lay: Layout) -> list[str]:
    """The fields of one share curve: facets, policy, and what bounds its steady part."""
    return list(dict.fromkeys([*lay.facets, "policy", "memory", "warmup", "window", "length"]))


def steady_part(curves: pd.DataFrame, lay: Layout) -> pd.DataFrame:
    """The samples from the end of the warmup (outputs count from then on, section 4.1) to w steps
    before the end of the stream: in the last w steps a tuple can meet only partners that arrive
    before the end, so OPT lets memory drain (the end is the stream length, or for results that
    lack it the last sample + 1)."""
    last = curves.groupby(_share_keys(lay), dropna=False)["t"].transform("max") + 1
    end = curves["length"].where(curves["length"] > 0, last)
    return curves[(curves["t"] >= curves["warmup"]) & (curves["t"] < end - curves["window"])]


def share_stats(curves: pd.DataFrame, lay: Layout) -> pd.DataFrame:
    """Per (facets, policy): R's mean, min and max share of memory over the steady part of the
    mean-over-seeds curve (:func:`steady_part`)."""
    keys = _share_keys(lay)
    steady = steady_part(curves, lay)
    if steady.empty:
        return pd.DataFrame(columns=[*keys, "r_mean", "mean", "lo", "hi", "seeds"])
    stats = steady.groupby(keys, dropna=False).agg(r_mean=("r", "mean"), mean=("pct", "mean"), lo=("pct", "min"),
                                                   hi=("pct", "max"), seeds=("seeds", "max"))
    return stats.reset_index()


def share_figure(rows: pd.DataFrame, exp: dict) -> go.Figure:
    """R's share of memory over time per policy, with the 50% mark and the end of the warmup
    (Figure 8)."""
    lay = plan(rows, exp)
    parts = facet_parts(share_curves(rows, lay), lay.facets)
    fig = _grid(len(parts), [label for label, _ in parts], shared=True)
    for index, name, values, line, first in _lines(parts, lay, exp):
        fig.add_trace(go.Scatter(
            x=line["t"].tolist(), y=line["pct"].tolist(), customdata=line["r"].tolist(), name=escape(name),
            legendgroup=name, showlegend=first, mode="lines", line=_style(lay.series, values),
            hovertemplate="t = %{x}<br>R tuples = %{customdata:.1f}<br>%{y:.1f}% of tuples held"), **_cell(index))
    for index, (_, part) in enumerate(parts):
        fig.add_hline(y=50, line={"dash": "dot", "color": "#888"}, annotation_text="50%", **_cell(index))
        warmups = part["warmup"].dropna().unique()
        if len(warmups) == 1:
            fig.add_vline(x=float(warmups[0]), line={"dash": "dash", "color": "#bbb"},
                          annotation_text="end of warmup", **_cell(index))
    fig.update_yaxes(range=[0, 100])
    fig.update_yaxes(title_text=Y_TITLES["share"], col=1)
    fig.update_xaxes(title_text=X_TITLES["t"])
    return fig


def build_figure(rows: pd.DataFrame, exp: dict) -> go.Figure:
    """The figure of one experiment, in the form its ``figure`` field names."""
    return share_figure(rows, exp) if exp.get("figure") == "share" else line_figure(rows, exp)


def has_data(fig: go.Figure) -> bool:
    """Whether any trace of ``fig`` has a finite y value."""
    return any(isinstance(v, (int, float)) and math.isfinite(v) for trace in fig.data for v in (trace.y or ()))


def figure_json(fig: go.Figure) -> str:
    """The figure as JSON safe inside a <script> element ("<" escaped, NaN as null)."""
    return fig.to_json().replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
