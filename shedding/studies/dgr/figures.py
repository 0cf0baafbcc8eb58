"""The DGR report's plotly figures, in the forms of Das, Gehrke, Riedewald (SIGMOD 2003), section 4.

* ``memory``: output (or a fraction) against memory M, one line per policy (Figures 3-5, 7).
* ``skew``: fraction of OPT against the Zipf skew, one line per policy, one subplot per correlation
  (Figure 6 plots uncorrelated streams; correlated ones are shown beside them, not mixed in).
* ``domain``: what section 4.4 claims of Figures 9-11, on a linear axis: PROB's shortfall from OPT
  (1 - PROB/OPT) and OPT's from EXACT (1 - OPT/EXACT) against M, one line per domain size; without
  EXACT (the policies suite), fraction of OPT against M, one subplot per domain size.
* ``share``: R's share of memory over time under a variable split (Figure 8).
* y ``gain`` (any x): each variable split's output over its fixed split's minus 1, the ratio
  section 4.3's claim is about, with the claim's 0% and +10% as reference lines.

The subplots and the numbers are those of :mod:`.summary`. Error bars span the seeds' lowest and
highest fraction of OPT or EXACT, and lines with bars are set slightly apart sideways so that
overlapping ones stay visible. Each policy has its colour, marker and dash
(:func:`shedding.studies.page.figures.policy_style`); the paper's numbers are reference lines where
the experiment's claim states them (96% of OPT, Figure 6; 90% of EXACT, 4.5-4.6; 75% share and
10% gain, 4.3) and OPT's own 100% line is one reference line.
"""

from __future__ import annotations

from collections.abc import Iterator
from html import escape

import pandas as pd
import plotly.graph_objects as go

from shedding.studies.dgr import opt_bounds
from shedding.studies.dgr.findings.registry import claim_kind
from shedding.studies.dgr.findings.stats import per_seed
from shedding.studies.dgr.shares import share_curves
from shedding.studies.dgr.summary import (FIELD_LABELS, Y_TITLES, Layout, facet_parts, layout_of, series_name,
                                          summarize, w_multiple)
from shedding.studies.page.figures import REFERENCE, cell, policy_style, subplots, titled

X_TITLES = {"memory": "memory M (tuples)", "skew": "Zipf skew", "t": "time step"}
DOMAIN_COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7")
OFFSET = 0.012  # sideways step between lines with error bars, as a fraction of the x range
# the paper's numbers, as reference lines: (y, label)
SKEW_REFERENCE = (0.96, "paper: PROB over 96% of OPT (4.3)")
EXACT_REFERENCE = (0.90, "paper: 90% of EXACT at M = w (4.5, 4.6)")
SHARE_REFERENCE = (75.0, "paper: up to 75% (4.3)")
GAIN_REFERENCES = ((0.0, "no gain"), (0.10, "paper: never exceeded 10% (4.3)"))
#: the claims that state PROB's 90% of EXACT (so their figures draw it)
EXACT_CLAIMS = ("memory", "weather")

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


def _error_bars(line: pd.DataFrame, y: str) -> dict | None:
    """Error bars spanning the seeds' lowest and highest fraction (:func:`summarize`), drawn
    around the mean (scaled to outputs for an outputs figure); None with one seed per point."""
    if not (line["n"] > 1).any():
        return None
    scale = line["mean"] / line["fmean"].where(line["fmean"] > 0) if y == "outputs" else 1.0
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
    """A memory, skew or domain figure (Figures 3-7, 9-11) or a gain figure: mean over seeds per
    point. OPT is one reference line at 100% in a fraction-of-OPT figure; 90% of EXACT is drawn
    only where the experiment's claim states it."""
    lay = layout_of(rows, exp)
    parts = facet_parts(summarize(rows, lay), lay.facets)
    ratio = lay.y != "outputs"
    if lay.y == "ratio_opt":
        parts = [(label, part[part["policy"] != "opt"]) for label, part in parts]
    fig = subplots(len(parts), [label for label, _ in parts], shared=ratio)
    lines = list(_lines(parts, lay, exp))
    barred = [name for _, name, _, line, first in lines if first and (line["n"] > 1).any()]
    span = float(rows[lay.x].max() - rows[lay.x].min()) if lay.x in rows and len(rows) else 0.0
    bounds_shown: set[str] = set()
    legend: set[str] = set()
    exact_mark = claim_kind(rows, exp) in EXACT_CLAIMS
    for index, name, values, line, _ in lines:
        shift = OFFSET * span * (barred.index(name) - (len(barred) - 1) / 2) if name in barred else 0.0
        style, marker = policy_style(str(values[0]))
        bounded = line["bounded"] if "bounded" in line else pd.Series(False, index=line.index)
        if not bounded.all():  # a line known only by its bounds is drawn by them alone
            fig.add_trace(go.Scatter(
                x=(line[lay.x] + shift).tolist(), y=line["mean"].tolist(), customdata=line[lay.x].tolist(),
                name=escape(name), legendgroup=name, showlegend=name not in legend, mode="lines+markers", line=style,
                marker=marker, error_y=_error_bars(line, lay.y),
                hovertemplate=f"{escape(name)}: %{{y:{'.1%' if ratio else ',.0f'}}} at "
                              f"{FIELD_LABELS.get(lay.x, lay.x)} = %{{customdata}}<extra></extra>"), **cell(index))
            legend.add(name)
        if bounded.any():
            label = opt_bounds.series_label(name, str(values[0]), lay.y)
            for trace in _bounds_traces(line[line["bounded"]], lay, label, shift, label not in bounds_shown):
                fig.add_trace(trace, **cell(index))
            bounds_shown.add(label)
    for index, (_, part) in enumerate(parts):
        xs = sorted(part[lay.x].unique())
        refs = [(label, [y] * len(xs)) for y, label in _references(lay, exp)]
        if lay.x == "memory" and "exact" in set(part["policy"]) and lay.y == "outputs" and exact_mark:
            exact = part[part["policy"] == "exact"].groupby("memory")["mean"].mean()
            refs.append((EXACT_REFERENCE[1], (EXACT_REFERENCE[0] * exact.reindex(xs)).tolist()))
        for k, (label, ys) in enumerate(refs):  # traces, not shapes: data coordinates on log axes too
            fig.add_trace(go.Scatter(x=xs, y=ys, name=escape(label), legendgroup=label, showlegend=index == 0,
                                     mode="lines", line={"color": ("#666", "#aaa")[k % 2], "dash": "dot", "width": 1.5},
                                     hoverinfo="skip", meta=REFERENCE), **cell(index))
        if lay.x == "memory":
            fig.update_xaxes(**_x_ticks(part, rows), **cell(index))
    fig.update_yaxes(tickformat=".0%" if ratio else ",", **({} if lay.y == "gain" else {"rangemode": "tozero"}))
    fig.update_yaxes(title_text=Y_TITLES[lay.y], col=1)
    fig.update_xaxes(title_text=X_TITLES[lay.x] + (" and M/w" if lay.x == "memory" else ""),
                     unifiedhovertitle={"text": X_TITLES[lay.x]})
    return titled(fig, exp)


def _bounds_traces(points: pd.DataFrame, lay: Layout, label: str, shift: float, legend: bool) -> list[go.Scatter]:
    """A line's bounded points (:mod:`.opt_bounds`): a bar from the mean lower to the mean upper
    end at each, and a translucent band between them, both in the policy's colour and named
    ``label`` ("OPT bounds")."""
    color = policy_style(str(points["policy"].iloc[0]))[0]["color"]
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
    """Horizontal reference lines of a line subplot: OPT's 100% in a fraction-of-OPT figure, the
    paper's 96% in Figure 6, and 0% and the paper's 10% in a gain figure."""
    refs = [(1.0, "OPT = 100%")] if lay.y == "ratio_opt" else list(GAIN_REFERENCES) if lay.y == "gain" else []
    return refs + ([SKEW_REFERENCE] if exp.get("figure") == "skew" and lay.y == "ratio_opt" else [])


def share_figure(rows: pd.DataFrame, exp: dict) -> go.Figure:
    """R's share of memory over time per policy, with the 50% mark and the end of the warmup
    (Figure 8)."""
    lay = layout_of(rows, exp)
    parts = facet_parts(share_curves(rows, lay), lay.facets)
    fig = subplots(len(parts), [label for label, _ in parts], shared=True)
    for index, name, values, line, first in _lines(parts, lay, exp):
        style, _ = policy_style(str(values[0]))
        fig.add_trace(go.Scatter(
            x=line["t"].tolist(), y=line["pct"].tolist(), customdata=line["r"].tolist(), name=escape(name),
            legendgroup=name, showlegend=first, mode="lines", line=style,
            hovertemplate=f"{escape(name)}: R share %{{y:.1f}}% of tuples held (%{{customdata:.1f}} R tuples)"
                          "<extra></extra>"), **cell(index))
    skews = rows["skew"].ne(rows["skew_s"]).any() if {"skew", "skew_s"} <= set(rows) else False
    for index, (_, part) in enumerate(parts):
        fig.add_hline(y=50, line={"dash": "dot", "color": "#888"}, annotation_text="50%", **cell(index))
        if skews:
            fig.add_hline(y=SHARE_REFERENCE[0], line={"dash": "dot", "color": "#666"},
                          annotation_text=SHARE_REFERENCE[1], **cell(index))
        warmups = part["warmup"].dropna().unique()
        if len(warmups) == 1:
            fig.add_vline(x=float(warmups[0]), line={"dash": "dash", "color": "#bbb"},
                          annotation_text="end of warmup", **cell(index))
    fig.update_yaxes(range=[0, 100])
    fig.update_yaxes(title_text=Y_TITLES["share"], col=1)
    fig.update_xaxes(title_text=X_TITLES["t"], unifiedhovertitle={"text": "time step %{x}"})
    return titled(fig, exp)


def domain_figure(rows: pd.DataFrame, exp: dict) -> go.Figure:
    """Section 4.4's claim on Figures 9-11: PROB's shortfall from OPT (1 - PROB/OPT, left) and OPT's
    from EXACT (1 - OPT/EXACT, right) against M, one line per domain, on a linear axis (both gaps
    of a few points stay visible), with the seeds' lowest and highest as error bars."""
    lay = layout_of(rows, exp)
    facets = [f for f in lay.facets if f != "domain"]
    parts = facet_parts(rows, tuple(facets))
    panels = [(label, a, b) for label, _ in parts for a, b in (("prob", "opt"), ("opt", "exact"))]
    titles = [f"{label + ': ' if label else ''}1 - {a.upper()}/{b.upper()}" for label, a, b in panels]
    fig = subplots(len(panels), titles, shared=False)  # two scales: a few points, and up to most of EXACT
    domains = sorted(rows["domain"].unique())
    for index, (label, a, b) in enumerate(panels):
        part = dict(parts)[label]
        for k, domain in enumerate(domains):
            gap = 1 - per_seed(part[part["domain"] == domain], a, b, ["memory"])
            if gap.empty:
                continue
            stats = gap.groupby(level="memory").agg(["mean", "min", "max", "count"])
            bars = ({"type": "data", "symmetric": False, "array": (stats["max"] - stats["mean"]).tolist(),
                     "arrayminus": (stats["mean"] - stats["min"]).tolist(), "thickness": 1, "width": 4}
                    if (stats["count"] > 1).any() else None)
            color = DOMAIN_COLORS[k % len(DOMAIN_COLORS)]
            name = f"domain {domain}"
            fig.add_trace(go.Scatter(
                x=stats.index.tolist(), y=stats["mean"].tolist(), name=name, legendgroup=name,
                showlegend=index == 0, mode="lines+markers", line={"color": color},
                marker={"color": color, "size": 8, "symbol": ("circle", "square", "diamond", "triangle-up")[k % 4]},
                error_y=bars, hovertemplate=f"{name}: 1 - {a.upper()}/{b.upper()} = %{{y:.1%}} at M = %{{x}}"
                                            "<extra></extra>"), **cell(index))
        fig.update_xaxes(**_x_ticks(part, rows), **cell(index))
    fig.update_yaxes(tickformat=".0%", rangemode="tozero")
    fig.update_yaxes(title_text="shortfall (fraction below the reference)", col=1)
    fig.update_xaxes(title_text=X_TITLES["memory"] + " and M/w", unifiedhovertitle={"text": X_TITLES["memory"]})
    return titled(fig, exp)


def build_figure(rows: pd.DataFrame, exp: dict) -> go.Figure:
    """The figure of one experiment, in the form its ``figure`` field names."""
    if exp.get("figure") == "share":
        return share_figure(rows, exp)
    if exp.get("figure") == "domain" and "exact" in exp.get("policies", []):
        return domain_figure(rows, exp)
    return line_figure(rows, exp)
