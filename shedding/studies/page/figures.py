"""Figures on a page: plotly figures embedded as JSON, drawn by the page's renderer (:mod:`.page`).

The shared look of the study figures: a grid of subplots (at most :data:`MAX_COLS` per row), the
experiment's title inside the figure (so that an exported PNG keeps it), and one colour, marker
and dash per policy (Okabe-Ito, safe for colour-blind readers; a variable split has its fixed
split's colour with open markers), the same in every study that plots the policies.
"""

from __future__ import annotations

import math
from html import escape

import plotly.graph_objects as go
from plotly.subplots import make_subplots

# policy: (Okabe-Ito colour, marker, dash)
STYLES = {"exact": ("#000000", "x", "dashdot"), "opt": ("#009E73", "diamond", "dash"),
          "optv": ("#009E73", "diamond-open", "longdashdot"), "prob": ("#0072B2", "circle", "solid"),
          "probv": ("#0072B2", "circle-open", "6px,2px"), "life": ("#E69F00", "square", "dot"),
          "lifev": ("#E69F00", "square-open", "2px,6px"), "life-own": ("#E69F00", "square-x-open", "3px,3px"),
          "life-flat": ("#E69F00", "square-dot", "8px,3px,2px,3px"), "rand": ("#D55E00", "triangle-up", "longdash"),
          "randv": ("#D55E00", "triangle-up-open", "12px,4px,2px,4px"),
          "surv": ("#CC79A7", "star", "dot"), "survv": ("#CC79A7", "star-open", "2px,6px"),
          "dual": ("#56B4E9", "hexagon", "solid"), "dualv": ("#56B4E9", "hexagon-open", "6px,2px"),
          "fluid": ("#999999", "cross", "dash"), "fluidv": ("#999999", "cross-open", "4px,4px")}
#: the Okabe-Ito palette, the colour order of figures whose lines are not policies
OKABE_ITO = ["#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
REFERENCE = "reference"  # the ``meta`` of reference-line traces, which :func:`has_data` ignores
MAX_COLS = 3
ROW_HEIGHT = 400


def line_style(color: str, symbol: str, dash: str) -> tuple[dict, dict]:
    """(line, marker) of a plotted line."""
    return {"color": color, "dash": dash}, {"symbol": symbol, "size": 8, "color": color}


def policy_style(policy: str) -> tuple[dict, dict]:
    """(line, marker) of a policy's line: its colour, marker and dash."""
    return line_style(*STYLES.get(policy, ("#7f7f7f", "circle", "solid")))


def subplots(count: int, titles: list[str], shared: bool) -> go.Figure:
    """An empty figure with one subplot per facet, at most MAX_COLS per row; ``shared`` y axes for
    values that compare across subplots."""
    cols = min(MAX_COLS, max(count, 1))
    rows = math.ceil(max(count, 1) / cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[escape(t) for t in titles] if any(titles) else None,
                        shared_yaxes="all" if shared else False, horizontal_spacing=0.08,
                        vertical_spacing=0.12 if rows > 1 else 0.0)
    fig.update_layout(template="plotly_white", height=ROW_HEIGHT * rows + 100, margin={"t": 90, "b": 60},
                      hovermode="x unified")
    return fig


def cell(index: int) -> dict:
    """The row and column of subplot ``index`` in a :func:`subplots` grid."""
    return {"row": index // MAX_COLS + 1, "col": index % MAX_COLS + 1}


def titled(fig: go.Figure, exp: dict) -> go.Figure:
    """The experiment's title inside the figure, so that an exported PNG keeps it."""
    fig.update_layout(title={"text": escape(str(exp.get("title", exp.get("id", "")))), "x": 0.01, "y": 0.99,
                             "yanchor": "top", "font": {"size": 15}})
    return fig


def has_data(fig: go.Figure) -> bool:
    """Whether any trace of ``fig`` but the reference lines has a finite y value."""
    return any(isinstance(v, (int, float)) and math.isfinite(v) for trace in fig.data if trace.meta != REFERENCE
               for v in (trace.y or ()))


def figure_json(fig: go.Figure) -> str:
    """The figure as JSON safe inside a <script> element ("<" escaped, NaN as null)."""
    return fig.to_json().replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def figure_html(index: int, fig: go.Figure) -> str:
    """The figure's div (``fig-<index>``) and its JSON, which the page's renderer draws."""
    return (f'<div class="plot" id="fig-{index}"></div>\n<script type="application/json" class="figure-data" '
            f'data-target="fig-{index}">{figure_json(fig)}</script>')
