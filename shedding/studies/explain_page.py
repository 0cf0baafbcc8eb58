"""The page of ``shed explain``: one self-contained offline HTML file, built like the suite report.

It shows, for one workload, where an online policy (Das, Gehrke, Riedewald 2003, §3.3) loses output
against OPT / OPTV (§3.2) or EXACT: a key x time heat map of the lost outputs, the memory
composition over time of both schedules, the cumulative output gap, and the ranked key table with
the reason of each key's loss. Its header gives the provenance like a suite's page: when it was
made, the command, and shedding's version and commit. It is built with the page toolkit
(:mod:`shedding.studies.page`: styles, error handler, vendored plotly.js rendered after the text,
tables and figures).
"""

from __future__ import annotations

from html import escape
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from shedding.atomic import write_text
from shedding.online.simulator import picked
from shedding.studies.explain import Explanation
from shedding.studies.page.figures import figure_html
from shedding.studies.page.page import facts, page, provenance_facts
from shedding.studies.page.tables import table_html
from shedding.studies.store import now, provenance

HEATMAP_KEYS = 30
KEY_COLUMNS = (("key", "key"), ("net lost", "net_lost"), ("lost", "lost"), ("gained", "gained"),
               ("policy outputs", "policy_outputs"), ("reference outputs", "reference_outputs"),
               ("lost: never admitted", "lost_never_admitted"), ("lost: evicted early", "lost_evicted_early"),
               ("kept, never matched", "tuples_kept_never_matched"), ("wasted steps", "wasted_steps"),
               ("policy memory %", "policy_memory_share"), ("reference memory %", "reference_memory_share"),
               ("arrivals R", "arrivals_r"), ("arrivals S", "arrivals_s"), ("reason", "reason"))


def heatmap(ex: Explanation) -> go.Figure:
    """Lost outputs (reference produced, policy did not) per key and time bucket, for the keys losing most."""
    keys = ex.keys.key.head(HEATMAP_KEYS).tolist()
    z = np.zeros((len(keys), len(ex.edges) - 1), dtype=np.int64)
    row = {k: i for i, k in enumerate(keys)}
    for c in ex.cells.itertuples():
        if c.key in row:
            z[row[c.key], c.bucket] = c.lost
    starts = ex.edges[:-1].tolist()
    names = ex.keys.label.head(HEATMAP_KEYS).tolist() if "label" in ex.keys else keys  # as the data names them
    fig = go.Figure(go.Heatmap(z=z.tolist(), x=starts, y=[f"key {k}" for k in names], colorscale="Reds",
                               colorbar={"title": {"text": "lost outputs"}},
                               hovertemplate="%{y}, bucket from t = %{x}: %{z} lost<extra></extra>"))
    fig.update_layout(template="plotly_white", title="Lost outputs per key and time bucket (keys losing most on top)",
                      xaxis_title="time bucket start", yaxis={"autorange": "reversed"},
                      height=max(360, 22 * len(keys) + 160))
    return fig


def composition(ex: Explanation) -> go.Figure:
    """Mean tuples held per bucket, stacked by key group, one subplot per schedule."""
    schedules = [ex.summary["policy"], ex.summary["against"]]
    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, subplot_titles=[s.upper() for s in schedules],
                        horizontal_spacing=0.05)
    groups = list(dict.fromkeys(ex.memory.group))
    palette = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000", "#999999"]
    for col, schedule in enumerate(schedules, start=1):
        part = ex.memory[ex.memory.schedule == schedule]
        for g, name in enumerate(groups):
            line = part[part.group == name]
            fig.add_trace(go.Scatter(x=line.start.tolist(), y=line.tuples.round(2).tolist(), name=name,
                                     legendgroup=name, showlegend=col == 1, stackgroup=f"s{col}", mode="lines",
                                     line={"width": 0.5, "color": palette[g % len(palette)]}),
                          row=1, col=col)
    fig.update_layout(template="plotly_white", title="Memory composition over time (mean tuples held per bucket)",
                      height=460, hovermode="x unified")
    fig.update_xaxes(title_text="time bucket start")
    fig.update_yaxes(title_text="tuples in memory", row=1, col=1)
    return fig


def gap_figure(ex: Explanation) -> go.Figure:
    """Cumulative outputs of both schedules and the gap between them."""
    policy, against = ex.summary["policy"].upper(), ex.summary["against"].upper()
    g = ex.gap
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    fig.add_trace(go.Scatter(x=g.time.tolist(), y=g.gap.tolist(), name=f"{against} - {policy}",
                             line={"color": "#D55E00", "width": 3}), secondary_y=False)
    for name, col, color in ((against, "reference", "#009E73"), (policy, "policy", "#0072B2")):
        fig.add_trace(go.Scatter(x=g.time.tolist(), y=g[col].tolist(), name=f"{name} cumulative",
                                 line={"color": color, "dash": "dot"}), secondary_y=True)
    fig.update_layout(template="plotly_white", title="Cumulative output gap over time", height=420,
                      hovermode="x unified")
    fig.update_xaxes(title_text="time")
    fig.update_yaxes(title_text="outputs behind", secondary_y=False)
    fig.update_yaxes(title_text="cumulative outputs", secondary_y=True)
    return fig


def _cell(column: str, value: float | str) -> tuple[str, bool]:
    if column.endswith("memory_share"):
        return f"{100 * float(value):.1f}", False
    if column in ("key", "reason"):
        return str(value), True
    return f"{int(value):,}", False


def key_table(ex: Explanation, top: int) -> str:
    """The ranked key table (keys losing most first)."""
    rows = ex.keys.head(top)
    named = "label" in rows  # text keys: the key as the data names it
    body = [[_cell(col, getattr(r, "label" if named and col == "key" else col)) for _, col in KEY_COLUMNS]
            for r in rows.itertuples()]
    note = (f"The {len(rows)} keys losing most output (of {len(ex.keys)}), ranked by net lost = lost - gained. "
            "Reasons: never admitted (the earlier member of a lost pair never entered memory); evicted early "
            "(it entered but left before its partner came); kept, never matched (the policy held it, it produced "
            "and lost nothing). Memory % is the share of the schedule's tuple-steps spent on the key.")
    return table_html("keys", [h for h, _ in KEY_COLUMNS], body, note)


def joined(summary: dict) -> str:
    """The join's condition for the page's facts: the time range, or the window w."""
    if summary.get("range"):
        lo, hi = summary["range"]
        return f"range {lo} <= s.time - r.time <= {hi}"
    return f"w = {summary['window']}"


def estimator_text(estimator: str | None, decay: float | None, group: str | None) -> str:
    """What the policy's run estimated from, for the page's facts: the online counts so far, or
    the static table of the whole stream, which reads each key's future arrivals."""
    text = {"online": "online (the key counts so far" + (f", decay {decay:g} per step" if decay not in (None, 1.0)
                                                          else "") + ")",
            "static": "static (the whole stream's key counts, its future included)"}.get(str(estimator), "none")
    return text + (f"; groups by {group}" if group else "")


def write_explain_html(ex: Explanation, path: Path | str, top: int = 20, command: str = "") -> Path:
    """Write the page to ``path`` and return it; ``command`` is the command line that made it, for
    the provenance (with the date, shedding's version and commit, and the Python and numpy
    versions)."""
    s = ex.summary
    policy, against = s["policy"].upper(), s["against"].upper()
    info = {**provenance(command), "finished": now()}  # the explanation is made; the page follows at once
    items = {**provenance_facts(info),
             "Versions": f"Python {info['python']}, numpy {info['numpy']}, plotly {info['plotly']}",
             "Workload": f"{s['workload']}: {s['tuples']:,} tuples, {joined(s)}, warmup = {s['warmup']}, "
                         f"M = {s['memory']}",
             "Outputs": f"{policy} {s['policy_outputs']:,}, {against} {s['reference_outputs']:,} "
                        f"({100 * s['ratio']:.2f}% of {against})",
             "Differences": f"{s['lost_outputs']:,} outputs lost, {s['gained_outputs']:,} gained "
                            f"(net {s['difference']:+,})",
             "Lost tuples": f"{s['lost_tuples']:,}: {s['tuples_never_admitted']:,} never admitted, "
                            f"{s['tuples_evicted_before_partners_came']:,} evicted before partners came",
             "Kept, never matched": f"{s['tuples_kept_but_never_matched']:,} tuples",
             "Estimator": estimator_text(s.get("estimator"), s.get("decay"), s.get("group"))
                          + (f" ({picked(s['group_choice'])} refits)" if s.get("group_choice") else ""),
             "Time buckets": f"{s['buckets']}"}
    figures = [heatmap(ex), composition(ex), gap_figure(ex)]
    plots = "".join(f"<section>{figure_html(i, f)}</section>\n" for i, f in enumerate(figures))
    body = (f"<header><h1>Where {escape(policy)} loses against {escape(against)}</h1>{facts(items)}"
            "<p>Das, Gehrke, Riedewald (SIGMOD 2003): the online policy's schedule (section 3.3) against the "
            "offline optimum (section 3.2) or EXACT, per key and time bucket.</p></header>\n"
            f"<section>{key_table(ex, top)}</section>\n{plots}")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, page(f"explain {policy} vs {against}", body, len(figures)))
    return path
