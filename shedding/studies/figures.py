"""The report's plotly figures, in the forms of Das, Gehrke, Riedewald (SIGMOD 2003), section 4.

* ``memory``: output (or a fraction) against memory M, one line per policy (Figures 3-5, 7).
* ``skew``: fraction of OPT against the Zipf skew, one line per policy, one subplot per correlation
  (Figure 6 plots uncorrelated streams; correlated ones are shown beside them, not mixed in).
* ``domain``: fraction of OPT against M, one subplot per domain size (Figures 9-11).
* ``share``: R's share of memory over time under a variable split (Figure 8).

Grid fields that vary besides the x axis and the lines become subplots ("facets"). Every point is
the mean over seeds; error bars span the seeds' lowest and highest fraction of OPT or EXACT (never
the raw counts, whose spread is mostly EXACT's own), and lines with bars are set slightly apart
sideways so that overlapping ones stay visible. Each policy has its own colour (Okabe-Ito, safe
for colour-blind readers), marker and dash; the paper's numbers are reference lines (96% of OPT,
Figure 6; 90% of EXACT, 4.5-4.6; 75% share, 4.3) and OPT's own 100% line is one reference line.
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

from shedding.studies import opt_bounds

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
# policy: (Okabe-Ito colour, marker, dash); a variable split has its fixed split's colour, open markers
STYLES = {"exact": ("#000000", "x", "dashdot"), "opt": ("#009E73", "diamond", "dash"),
          "optv": ("#009E73", "diamond-open", "longdashdot"), "prob": ("#0072B2", "circle", "solid"),
          "probv": ("#0072B2", "circle-open", "6px,2px"), "life": ("#E69F00", "square", "dot"),
          "lifev": ("#E69F00", "square-open", "2px,6px"), "rand": ("#D55E00", "triangle-up", "longdash"),
          "randv": ("#D55E00", "triangle-up-open", "12px,4px,2px,4px"),
          "surv": ("#CC79A7", "star", "dot"), "survv": ("#CC79A7", "star-open", "2px,6px"),
          "dual": ("#56B4E9", "hexagon", "solid"), "dualv": ("#56B4E9", "hexagon-open", "6px,2px"),
          "fluid": ("#999999", "cross", "dash"), "fluidv": ("#999999", "cross-open", "4px,4px")}
OFFSET = 0.012  # sideways step between lines with error bars, as a fraction of the x range
# the paper's numbers, as reference lines: (y, label)
SKEW_REFERENCE = (0.96, "paper: PROB over 96% of OPT (4.3)")
EXACT_REFERENCE = (0.90, "paper: 90% of EXACT at M = w (4.5, 4.6)")
SHARE_REFERENCE = (75.0, "paper: up to 75% (4.3)")
REFERENCE = "reference"  # the ``meta`` of reference-line traces
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
    spread = spread_field(lay.y)
    stats = rows.groupby(keys, dropna=False).agg(mean=(lay.y, "mean"), lo=(spread, "min"), fmean=(spread, "mean"),
                                                 hi=(spread, "max"), n=(lay.y, "count"))
    stats = stats.reset_index()
    if opt_bounds.any_bounded(rows):
        stats = stats.merge(opt_bounds.bound_stats(rows, keys, lay.y), on=keys, how="left")
        stats.loc[stats["bounded"], ["mean", "lo", "fmean", "hi"]] = math.nan
    return stats.sort_values(keys, kind="stable").reset_index(drop=True)


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


def _style(policy: str) -> tuple[dict, dict]:
    """(line, marker) of a policy's line: its colour, marker and dash."""
    color, symbol, dash = STYLES.get(policy, ("#7f7f7f", "circle", "solid"))
    return {"color": color, "dash": dash}, {"symbol": symbol, "size": 8, "color": color}


def _grid(count: int, titles: list[str], shared: bool) -> go.Figure:
    """An empty figure with one subplot per facet, at most MAX_COLS per row; ``shared`` y axes for
    fractions, which compare across subplots (Figures 9-11)."""
    cols = min(MAX_COLS, max(count, 1))
    rows = math.ceil(max(count, 1) / cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[escape(t) for t in titles] if any(titles) else None,
                        shared_yaxes="all" if shared else False, horizontal_spacing=0.08,
                        vertical_spacing=0.12 if rows > 1 else 0.0)
    fig.update_layout(template="plotly_white", height=ROW_HEIGHT * rows + 100, margin={"t": 90, "b": 60},
                      hovermode="x unified")
    return fig


def _cell(index: int) -> dict:
    return {"row": index // MAX_COLS + 1, "col": index % MAX_COLS + 1}


def _error_bars(line: pd.DataFrame) -> dict | None:
    """Error bars spanning the seeds' lowest and highest fraction (:func:`summarize`), drawn
    around the mean (scaled to outputs for an outputs figure); None with one seed per point."""
    if not (line["n"] > 1).any():
        return None
    scale = line["mean"] / line["fmean"].where(line["fmean"] > 0)
    return {"type": "data", "symmetric": False, "array": (line["hi"] * scale - line["mean"]).fillna(0).tolist(),
            "arrayminus": (line["mean"] - line["lo"] * scale).fillna(0).tolist(), "thickness": 1, "width": 4}


def _x_ticks(part: pd.DataFrame, rows: pd.DataFrame) -> dict:
    """Memory ticks at every M of a subplot, each with its multiple of w ("40<br>0.1w"), when the
    subplot has one window."""
    windows = rows.loc[rows["memory"].isin(part["memory"]), "window"].unique()
    memories = sorted(part["memory"].unique())
    if len(windows) != 1 or not windows[0]:
        return {}
    return {"tickvals": memories, "ticktext": [f"{m}<br>{w_multiple(m, windows[0])}w" for m in memories]}


def line_figure(rows: pd.DataFrame, exp: dict) -> go.Figure:
    """A memory, skew or domain figure (Figures 3-6, 9-11): mean over seeds per point. OPT is one
    reference line at 100% in a fraction-of-OPT figure; domain figures have a log y axis (EXACT
    reaches several times OPT at domain 10, which would squeeze PROB's few percent below it)."""
    lay = plan(rows, exp)
    parts = facet_parts(summarize(rows, lay), lay.facets)
    ratio = lay.y != "outputs"
    if lay.y == "ratio_opt":
        parts = [(label, part[part["policy"] != "opt"]) for label, part in parts]
    fig = _grid(len(parts), [label for label, _ in parts], shared=ratio)
    lines = list(_lines(parts, lay, exp))
    barred = [name for _, name, _, line, first in lines if first and (line["n"] > 1).any()]
    span = float(rows[lay.x].max() - rows[lay.x].min()) if lay.x in rows and len(rows) else 0.0
    bounds_shown: set[str] = set()
    legend: set[str] = set()
    for index, name, values, line, _ in lines:
        shift = OFFSET * span * (barred.index(name) - (len(barred) - 1) / 2) if name in barred else 0.0
        style, marker = _style(str(values[0]))
        bounded = line["bounded"] if "bounded" in line else pd.Series(False, index=line.index)
        if not bounded.all():  # a line known only by its bounds is drawn by them alone
            fig.add_trace(go.Scatter(
                x=(line[lay.x] + shift).tolist(), y=line["mean"].tolist(), customdata=line[lay.x].tolist(),
                name=escape(name), legendgroup=name, showlegend=name not in legend, mode="lines+markers", line=style,
                marker=marker, error_y=_error_bars(line),
                hovertemplate=f"{escape(name)}: %{{y:{'.1%' if ratio else ',.0f'}}} at "
                              f"{FIELD_LABELS.get(lay.x, lay.x)} = %{{customdata}}<extra></extra>"), **_cell(index))
            legend.add(name)
        if bounded.any():
            label = opt_bounds.series_label(name, str(values[0]), lay.y)
            for trace in _bounds_traces(line[line["bounded"]], lay, label, shift, label not in bounds_shown):
                fig.add_trace(trace, **_cell(index))
            bounds_shown.add(label)
    for index, (_, part) in enumerate(parts):
        xs = sorted(part[lay.x].unique())
        refs = [(label, [y] * len(xs)) for y, label in _references(lay, exp)]
        if lay.x == "memory" and "exact" in set(part["policy"]) and lay.y == "outputs":
            exact = part[part["policy"] == "exact"].groupby("memory")["mean"].mean()
            refs.append((EXACT_REFERENCE[1], (EXACT_REFERENCE[0] * exact.reindex(xs)).tolist()))
        for k, (label, ys) in enumerate(refs):  # traces, not shapes: data coordinates on log axes too
            fig.add_trace(go.Scatter(x=xs, y=ys, name=escape(label), legendgroup=label, showlegend=index == 0,
                                     mode="lines", line={"color": ("#666", "#aaa")[k % 2], "dash": "dot", "width": 1.5},
                                     hoverinfo="skip", meta=REFERENCE), **_cell(index))
        if lay.x == "memory":
            fig.update_xaxes(**_x_ticks(part, rows), **_cell(index))
    log = exp.get("figure") == "domain"
    fig.update_yaxes(tickformat=".0%" if ratio else ",", **({"type": "log"} if log else {"rangemode": "tozero"}))
    fig.update_yaxes(title_text=Y_TITLES[lay.y] + (" (log scale)" if log else ""), col=1)
    fig.update_xaxes(title_text=X_TITLES[lay.x] + (" and M/w" if lay.x == "memory" else ""),
                     unifiedhovertitle={"text": X_TITLES[lay.x]})
    return _titled(fig, exp)


def _bounds_traces(points: pd.DataFrame, lay: Layout, label: str, shift: float, legend: bool) -> list[go.Scatter]:
    """A line's bounded points (:mod:`.opt_bounds`): a bar from the mean lower to the mean upper
    end at each, and a translucent band between them, both in the policy's colour and named
    ``label`` ("OPT bounds")."""
    color = _style(str(points["policy"].iloc[0]))[0]["color"]
    xs, lo, hi = (points[lay.x] + shift).tolist(), points["bound_lo"].tolist(), points["bound_hi"].tolist()
    fmt = ".1%" if lay.y != "outputs" else ",.0f"
    bars = go.Scatter(
        x=xs, y=lo, customdata=hi, name=escape(label), legendgroup=label, showlegend=legend, mode="markers",
        marker={"symbol": "line-ew-open", "size": 14, "color": color, "line": {"width": 2}},
        error_y={"type": "data", "symmetric": False, "array": (points["bound_hi"] - points["bound_lo"]).tolist(),
                 "arrayminus": [0] * len(xs), "thickness": 2, "width": 7, "color": color},
        hovertemplate=f"{escape(label)}: %{{y:{fmt}}} to %{{customdata:{fmt}}}<extra></extra>")
    band = go.Scatter(x=xs + xs[::-1], y=lo + hi[::-1], fill="toself", fillcolor=_translucent(color), mode="lines",
                      line={"width": 0}, name=escape(label), legendgroup=label, showlegend=False, hoverinfo="skip")
    return [band, bars]


def _translucent(color: str, alpha: float = 0.18) -> str:
    """A "#rrggbb" colour as rgba with ``alpha``."""
    return f"rgba({int(color[1:3], 16)}, {int(color[3:5], 16)}, {int(color[5:7], 16)}, {alpha})"


def _references(lay: Layout, exp: dict) -> list[tuple[float, str]]:
    """Horizontal reference lines of a line subplot: OPT's 100% in a fraction-of-OPT figure, and
    the paper's 96% in Figure 6."""
    refs = [(1.0, "OPT = 100%")] if lay.y == "ratio_opt" else []
    return refs + ([SKEW_REFERENCE] if exp.get("figure") == "skew" else [])


def _titled(fig: go.Figure, exp: dict) -> go.Figure:
    """The experiment's title inside the figure, so that an exported PNG keeps it."""
    fig.update_layout(title={"text": escape(str(exp.get("title", exp.get("id", "")))), "x": 0.01, "y": 0.99,
                             "yanchor": "top", "font": {"size": 15}})
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
        style, _ = _style(str(values[0]))
        fig.add_trace(go.Scatter(
            x=line["t"].tolist(), y=line["pct"].tolist(), customdata=line["r"].tolist(), name=escape(name),
            legendgroup=name, showlegend=first, mode="lines", line=style,
            hovertemplate=f"{escape(name)}: R share %{{y:.1f}}% of tuples held (%{{customdata:.1f}} R tuples)"
                          "<extra></extra>"), **_cell(index))
    skews = rows["skew"].ne(rows["skew_s"]).any() if {"skew", "skew_s"} <= set(rows) else False
    for index, (_, part) in enumerate(parts):
        fig.add_hline(y=50, line={"dash": "dot", "color": "#888"}, annotation_text="50%", **_cell(index))
        if skews:
            fig.add_hline(y=SHARE_REFERENCE[0], line={"dash": "dot", "color": "#666"},
                          annotation_text=SHARE_REFERENCE[1], **_cell(index))
        warmups = part["warmup"].dropna().unique()
        if len(warmups) == 1:
            fig.add_vline(x=float(warmups[0]), line={"dash": "dash", "color": "#bbb"},
                          annotation_text="end of warmup", **_cell(index))
    fig.update_yaxes(range=[0, 100])
    fig.update_yaxes(title_text=Y_TITLES["share"], col=1)
    fig.update_xaxes(title_text=X_TITLES["t"], unifiedhovertitle={"text": "time step %{x}"})
    return _titled(fig, exp)


def build_figure(rows: pd.DataFrame, exp: dict) -> go.Figure:
    """The figure of one experiment, in the form its ``figure`` field names."""
    return share_figure(rows, exp) if exp.get("figure") == "share" else line_figure(rows, exp)


def has_data(fig: go.Figure) -> bool:
    """Whether any trace of ``fig`` but the reference lines has a finite y value."""
    return any(isinstance(v, (int, float)) and math.isfinite(v) for trace in fig.data if trace.meta != REFERENCE
               for v in (trace.y or ()))


def figure_json(fig: go.Figure) -> str:
    """The figure as JSON safe inside a <script> element ("<" escaped, NaN as null)."""
    return fig.to_json().replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
