"""Figures on a page: plotly figures embedded as JSON, drawn by the page's renderer (:mod:`.page`).

The shared look of the study figures: a grid of subplots (at most :data:`MAX_COLS` per row), the
experiment's title inside the figure (so that an exported PNG keeps it), and one colour, marker
and dash per policy, derived from the policy registry (a colour and marker per family, safe for
colour-blind readers; a variable split has its fixed split's colour with open markers; every line
its own dash), the same in every study that plots the policies.
"""

from __future__ import annotations

import math
from html import escape

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from shedding.online.policies import POLICIES

#: one colour per policy family (a fixed-split policy and its v form), in the registry's order of
#: the families (:data:`shedding.online.policies.POLICIES`): the Okabe-Ito colours first, then Paul
#: Tol's muted ones, all safe for colour-blind readers and apart from EXACT's black and OPT's green
FAMILY_COLOURS = ("#D55E00", "#0072B2", "#E69F00", "#CC79A7", "#56B4E9", "#882255", "#332288", "#999933",
                  "#44AA99", "#DDCC77", "#AA4499")
#: one marker per family, in the same order; the variable split draws it open
FAMILY_MARKERS = ("triangle-up", "circle", "square", "star", "hexagon", "cross", "triangle-down", "pentagon",
                  "hourglass", "bowtie", "star-diamond")
#: one dash per family for the fixed split and one for the variable split, in the same order, each
#: used once (nor by the references), so that a figure printed in grey still tells every line apart
FAMILY_DASHES = ("longdash", "solid", "dot", "10px,2px,2px,2px", "5px,5px", "2px,3px", "14px,3px", "9px,3px,3px,3px",
                 "1px,2px", "20px,5px", "7px,2px,1px,2px")
VARIABLE_DASHES = ("12px,4px,2px,4px", "6px,2px", "2px,6px", "2px,4px,8px,4px", "4px,2px,4px,8px", "4px,4px",
                   "1px,4px", "16px,4px,4px,4px,4px,4px", "3px,6px", "8px,8px", "12px,2px")


def registry_styles() -> dict[str, tuple[str, str, str]]:
    """(colour, marker, dash) of every policy of the registry a user can name: its family's colour,
    marker and dash, the marker open and another dash for the variable split."""
    families = list(dict.fromkeys(p.family for p in POLICIES.values() if not p.replay))
    if len(families) > len(FAMILY_COLOURS):
        raise ValueError(f"{len(families)} policy families, {len(FAMILY_COLOURS)} colours: add colours")
    out = {}
    for name, pol in POLICIES.items():
        if pol.replay:
            continue
        i = families.index(pol.family)
        out[name] = (FAMILY_COLOURS[i], FAMILY_MARKERS[i] + ("-open" if pol.variable else ""),
                     (VARIABLE_DASHES if pol.variable else FAMILY_DASHES)[i])
    return out


# policy: (colour, marker, dash): the registry's policies, the references and the study-only lines
STYLES = {"exact": ("#000000", "x", "dashdot"), "opt": ("#009E73", "diamond", "dash"),
          "optv": ("#009E73", "diamond-open", "longdashdot"), **registry_styles(),
          "life-own": ("#E69F00", "square-x-open", "3px,3px"), "life-flat": ("#E69F00", "square-dot", "8px,3px,2px,3px")}
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
