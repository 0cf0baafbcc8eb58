"""The W-join figures (Hammad, Aref, Elmagarmid 2002, §4.3, §5.3) and the numbers behind them:

* ``service``: mean service time per tuple against the number of streams, one line per algorithm,
  one subplot per rate set (Figures 9(a) and 9(b));
* ``slow``: service time per block of arrivals over the run, one line per algorithm, one subplot
  per rate set (Figure 9(c));
* ``windows``: service time per tuple of GCA and LCA against the window of all pairs but one
  (Figure 13);
* ``path``: service time per tuple of the path W-join's algorithms against the rate set (Figure 14);
* ``shedding``: outputs / exact against memory M, one line per policy, one subplot per (N, rates).

Every point is the mean over seeds; error bars span the seeds' lowest and highest value.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from shedding.studies.page.figures import cell, line_style, policy_style, subplots, titled

# algorithm: (Okabe-Ito colour, marker, dash)
ALGORITHM_STYLES = {"nlw": ("#D55E00", "triangle-up", "longdash"), "hw": ("#009E73", "diamond", "dash"),
                    "mw": ("#0072B2", "circle", "solid"), "mw-paper": ("#56B4E9", "square", "dot"),
                    "gca": ("#CC79A7", "x", "dash"), "lca": ("#0072B2", "circle", "solid"),
                    "pipeline": ("#D55E00", "triangle-up", "longdash")}
#: the name of a line in legends, tables and checks
LABELS = {"nlw": "NLW", "hw": "HW", "mw": "MW (optimised: key filter + product)", "mw-paper": "MW (paper)",
          "gca": "GCA (paper MW)", "lca": "LCA (paper MW)", "pipeline": "NLW (pipeline)"}
FACETS = {"service": ("rates",), "slow": ("rates",), "shedding": ("streams", "rates"), "windows": ("streams",),
          "path": ("streams",)}
X_FIELDS = {"service": "streams", "slow": "tuples", "shedding": "memory", "windows": "small", "path": "rates"}
X_TITLES = {"service": "streams joined (N)", "slow": "arrivals processed", "shedding": "memory M (tuples)",
            "windows": "window of every pair but A-B (A-B: w)", "path": "stream rates"}
Y_TITLES = {"service": "service time per tuple (µs, log scale)", "slow": "service time per tuple (µs)",
            "shedding": "fraction of the exact W-join's output", "windows": "service time per tuple (µs)",
            "path": "service time per tuple (µs)"}
#: how a figure draws its lines: markers alone where x is a set of settings (Figures 13, 14)
MODES = {"slow": "lines", "windows": "markers", "path": "markers"}
FIELD_NAMES = {"streams": "N", "rates": "rates", "memory": "M", "small": "other windows"}


def label(line: str) -> str:
    """A line's name (a shedding policy in capitals)."""
    return LABELS.get(line, line.upper())


def summary(rows: pd.DataFrame, exp: dict) -> pd.DataFrame:
    """The numbers behind an experiment's figure: per (facets, x, line), the mean over seeds of
    y and its lowest and highest seed (``mean``, ``lo``, ``hi``, ``n``); the slow figure's x is
    the arrivals processed at the end of each block."""
    figure = exp["figure"]
    keys = [*FACETS[figure], X_FIELDS[figure], "policy"]
    if rows.empty:
        return pd.DataFrame(columns=[*keys, "mean", "lo", "hi", "n"])
    if figure == "slow":
        frames = [pd.DataFrame({"rates": r.rates, "policy": r.policy, "seed": r.seed,
                                "tuples": np.minimum((np.arange(len(b)) + 1) * r.block, r.tuples), "y": b})
                  for r in rows.itertuples() for b in [json.loads(r.blocks)]]
        data = pd.concat(frames, ignore_index=True)
    else:
        data = rows.assign(y=rows["ratio"] if figure == "shedding" else rows["us_per_tuple"])
    stats = data.groupby(keys).agg(mean=("y", "mean"), lo=("y", "min"), hi=("y", "max"), n=("y", "count"))
    return stats.reset_index().sort_values(keys, kind="stable").reset_index(drop=True)


def facet_label(names: tuple[str, ...], values: tuple) -> str:
    """A subplot's title ("N = 3, rates = variable")."""
    return ", ".join(f"{FIELD_NAMES[n]} = {v}" for n, v in zip(names, values))


def wjoin_figure(rows: pd.DataFrame, exp: dict) -> go.Figure:
    """The experiment's figure (see the module docstring)."""
    figure = exp["figure"]
    facets, x = FACETS[figure], X_FIELDS[figure]
    stats = summary(rows, exp)
    parts = [(facet_label(facets, k if isinstance(k, tuple) else (k,)), part)
             for k, part in stats.groupby(list(facets), sort=True)]
    fig = subplots(len(parts), [label for label, _ in parts], shared=figure == "shedding")
    for index, (_, part) in enumerate(parts):
        for policy in exp.get("policies", []):
            line = part[part["policy"] == policy]
            if line.empty:
                continue
            style, marker = _line_style(figure, policy)
            bars = None
            if (line["n"] > 1).any():
                bars = {"type": "data", "symmetric": False, "array": (line["hi"] - line["mean"]).tolist(),
                        "arrayminus": (line["mean"] - line["lo"]).tolist(), "thickness": 1, "width": 4}
            value = "%{y:.1%}" if figure == "shedding" else "%{y:.2f} µs"
            fig.add_trace(go.Scatter(x=line[x].tolist(), y=line["mean"].tolist(), name=label(policy),
                                     legendgroup=policy, showlegend=index == 0, line=style, marker=marker,
                                     mode=MODES.get(figure, "lines+markers"), error_y=bars,
                                     hovertemplate=f"{label(policy)}: {value} at {x} %{{x}}<extra></extra>"),
                          **cell(index))
    if figure == "shedding":
        fig.update_yaxes(tickformat=".0%", rangemode="tozero")
    else:
        fig.update_yaxes(**({"type": "log"} if figure == "service" else {"rangemode": "tozero"}))
    if figure in ("path", "windows"):
        fig.update_xaxes(type="category")  # settings, not a scale: no lines between them, no ticks between
    elif figure == "service":
        fig.update_xaxes(dtick=1)  # N is a whole number
    fig.update_yaxes(title_text=Y_TITLES[figure], col=1)
    fig.update_xaxes(title_text=X_TITLES[figure])
    return titled(fig, exp)


def _line_style(figure: str, policy: str) -> tuple[dict, dict]:
    """A shedding policy's style, as in every study; an algorithm's own."""
    return policy_style(policy) if figure == "shedding" else line_style(*ALGORITHM_STYLES[policy])
