"""The page of a bestmatch suite (:mod:`.spec`): per experiment the paper's claim (or, for the
shedding study, the project's own hypothesis) with its verdict, the numbers that bear on it, its
figure and the checks behind the verdict (Kemper/Stegmaier 2002, Figures 11-14; :mod:`.checks`),
built with the page toolkit (:mod:`shedding.studies.page`), with a link to each experiment's
table (:mod:`.tables`).
"""

from __future__ import annotations

from html import escape
from pathlib import Path

import pandas as pd

from shedding.atomic import write_text
from shedding.studies.bestmatch.checks import CHECKS
from shedding.studies.bestmatch.tables import table_name
from shedding.studies.page.figures import OKABE_ITO, figure_html
from shedding.studies.page.format import pct
from shedding.studies.page.page import banner, data_links, header, page, provenance_facts, seeds_fact
from shedding.studies.page.sections import data_link
from shedding.studies.page.verdicts import CONVENTION, RULE, Check, Verdict, badge, check_item
from shedding.studies.store import runs_in


def figure(exp: dict, rows: pd.DataFrame):  # noqa: ANN201 (a plotly Figure)
    """The experiment's plotly figure."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    kind = exp["figure"]
    if kind in ("time-size", "time-dims"):
        x = "n" if kind == "time-size" else "dims"
        fig = go.Figure([go.Scatter(x=part[x], y=part.seconds, name=alg, mode="lines+markers")
                         for alg, part in rows.groupby("algorithm", sort=False)])
        fig.update_layout(xaxis_title="tuples per input" if x == "n" else "dimensions", yaxis_title="seconds",
                          yaxis_type="log" if kind == "time-size" else "linear")
    elif kind == "propagated":
        fig = go.Figure([go.Scatter(x=part.input_read, y=part.output, name=name, mode="lines")
                         for name, part in rows.groupby("series", sort=False)])
        fig.update_layout(xaxis_title="fraction of the input read", yaxis_title="fraction of the result output")
    else:
        mean = rows.groupby(["policy", "fraction"], sort=False)[["precision", "recall", "symdiff"]].mean().reset_index()
        fig = make_subplots(1, 3, subplot_titles=("precision", "recall", "symmetric difference"))
        # one colour per policy in every panel (the colorway would go on counting traces across them)
        colour = {p: OKABE_ITO[k % len(OKABE_ITO)] for k, p in enumerate(mean.policy.unique())}
        for i, col in enumerate(("precision", "recall", "symdiff")):
            for policy, part in mean.groupby("policy", sort=False):
                fig.add_trace(go.Scatter(x=part.fraction, y=part[col], name=policy.upper(), legendgroup=policy,
                                         showlegend=i == 0, mode="lines+markers", line_color=colour[policy]),
                              1, i + 1)
        fig.update_xaxes(title_text="memory / exact peak window memory")
    fig.update_layout(title=exp["title"], height=420, colorway=OKABE_ITO)
    return fig


def measured(exp: dict, rows: pd.DataFrame) -> str:
    """One sentence with the numbers that bear on the paper's claim."""
    kind = exp["figure"]
    if kind in ("time-size", "time-dims"):
        x = "n" if kind == "time-size" else "dims"
        parts = []
        for value, part in rows.groupby(x):
            secs = dict(zip(part.algorithm, part.seconds))
            text = ", ".join(f"{a} {s:.4f} s" for a, s in secs.items())
            if "nested" in secs and "matwin" in secs:
                text += f" (nested/matwin {secs['nested'] / secs['matwin']:.2f}x)"
            parts.append(f"{x} = {value}: {text}")
        return "; ".join(parts)
    if kind == "propagated":
        half = rows[rows.output >= 0.5].groupby("series", sort=False).input_read.min()
        text = "half of the result was output after " + ", ".join(f"{v:.0%} of the input ({k})" for k, v in half.items())
        if {"moments", "largest_step", "final_share"} <= set(rows.columns):
            steps = rows.groupby("series", sort=False)[["moments", "largest_step", "final_share"]].first()
            text += "; while input remained, the result left at " + ", ".join(
                f"{int(r.moments):,} moments, at most {pct(r.largest_step)} of it at once ({k})" for k, r in steps.iterrows())
            text += "; at the end of the input " + ", ".join(f"{pct(v)} ({k})" for k, v in steps.final_share.items())
        return text
    mean = rows.groupby(["fraction", "policy"], sort=False)[["precision", "recall", "symdiff"]].mean()
    return "; ".join(f"M = {f:g} x peak: " + ", ".join(
        f"{p.upper()} precision {mean.loc[(f, p), 'precision']:.3f} recall {mean.loc[(f, p), 'recall']:.3f}"
        for p in exp["policies"]) for f in exp["fractions"] if f < 1)


def facts_of(suite: dict) -> dict[str, str]:
    """Provenance, with the seeds and the load the timings ran under."""
    info = suite.get("provenance", {})
    load = " to ".join(", ".join(f"{v:g}" for v in info[k]) for k in ("load_before", "load_after") if info.get(k))
    return {"Seeds per point": seeds_fact(suite), **provenance_facts(info),
            "Load average (1, 5, 15 min)": f"{load} (before to after)" if load else "-",
            "Wall time": f"{info['wall_seconds']:,.1f} s" if "wall_seconds" in info else "- (unfinished)"}


def claim_line(exp: dict, verdict: Verdict) -> str:
    """The claim with its verdict: the paper's, or the project's own hypothesis where the paper
    says nothing (``hypothesis`` in the suite)."""
    label = "Project's hypothesis (the paper says nothing about shedding)" if exp.get("hypothesis") else "Paper"
    return f'<p class="claim"><b>{label}:</b> {escape(verdict.claim)} {badge(verdict)}</p>'


def build_report(results: pd.DataFrame, suite: dict, complete: bool, path: Path | str) -> Path:
    """Write the page of a bestmatch suite's ``results`` to ``path``; returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    sections: list[str] = []
    for exp in suite.get("experiments", []):
        rows = results[results["experiment"] == exp["id"]] if len(results) else results
        checks = CHECKS[exp["figure"]](rows, exp) if not rows.empty else [Check(None, "No results yet.")]
        verdict = Verdict(str(exp.get("hypothesis") or exp.get("claim", "")), tuple(checks))
        parts = [f"<section><h2>{escape(exp['title'])}</h2>", claim_line(exp, verdict)]
        if rows.empty:
            parts.append('<p class="empty">No results yet.</p>')
        else:
            parts += [f"<p><b>Measured:</b> {escape(measured(exp, rows))}</p>",
                      figure_html(len(sections), figure(exp, rows))]
            if exp.get("caption"):
                parts.append(f'<p class="caption">{escape(str(exp["caption"]))}</p>')
            parts += [f'<ul class="checks">{"".join(check_item(c) for c in checks)}</ul>',
                      data_link(table_name(exp["id"]))]
        sections.append("\n".join(parts) + "\n</section>")
    figures = sum('class="figure-data"' in s for s in sections)
    rule = f'<p class="rule">{escape(RULE)}</p>\n<p class="convention">{escape(CONVENTION)}</p>'
    body = header(str(suite.get("name", "")), str(suite.get("description", "")),
                  banner(runs_in(results), suite.get("total_runs"), complete), facts_of(suite),
                  f"{data_links()}\n{rule}\n") + "\n".join(sections)
    write_text(path, page(str(suite.get("name", "suite")), body, figures, complete))
    return path
