"""The HTML report of a W-join suite (:mod:`.wjoin_suite`): Figure 9's shapes and the shedding study.

The page has the DGR report's frame (:mod:`.html`: provenance, completeness banner, one section per
experiment with a figure, its numbers and a CSV, the paper's claim with this run's verdict, the
findings), with the W-join figures of Hammad, Aref, Elmagarmid (2002), §4.3:

* ``service``: mean service time per tuple against the number of streams, one line per algorithm,
  one subplot per rate set (Figures 9(a) and 9(b));
* ``slow``: service time per block of arrivals over the run, one line per algorithm, one subplot
  per rate set (Figure 9(c));
* ``shedding``: outputs / exact against memory M, one line per policy, one subplot per (N, rates).

Every point is the mean over seeds; error bars span the seeds' lowest and highest value.
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from shedding.studies.figures import _cell, _grid, _style, _titled, figure_json, has_data, pct
from shedding.studies.findings import Check, Verdict
from shedding.studies.html import Section, banner, contents, findings_section, page, table_html
from shedding.studies.wjoin_suite import WJOIN_FIGURES

# algorithm: (Okabe-Ito colour, marker, dash)
ALGORITHM_STYLES = {"nlw": ("#D55E00", "triangle-up", "longdash"), "hw": ("#009E73", "diamond", "dash"),
                    "mw": ("#0072B2", "circle", "solid")}
FACETS = {"service": ("rates",), "slow": ("rates",), "shedding": ("streams", "rates")}
X_FIELDS = {"service": "streams", "slow": "tuples", "shedding": "memory"}
X_TITLES = {"service": "streams joined (N)", "slow": "arrivals processed", "shedding": "memory M (tuples)"}
Y_TITLES = {"service": "service time per tuple (µs, log scale)", "slow": "service time per tuple (µs)",
            "shedding": "fraction of the exact W-join's output"}
FIELD_NAMES = {"streams": "N", "rates": "rates", "memory": "M"}
ORDER_OF_MAGNITUDE = 10.0  # the paper's "more than an order of magnitude" (§4.3)
NO_CHANGE = 0.25  # a change of service time within 25% counts as "not changed significantly"
SPEED_CAUSE = ("the operators here are pure Python, so a fixed per-tuple cost (the call, the clock, the "
               "merge) bounds the speed-up, and NLW purges against the newest tuple of every stream, so "
               "it scans few tuples outside the window; README 'Performance (W-join)' has the numbers")

SLOW_CAUSES = {"hw": "HW stops probing as soon as one stream has no tuple of the key, which the slow stream's sparse "
                     "buffer makes common, so HW gains from a slow stream too",
               "nlw": "NLW's buffers are purged against the newest tuple of every stream, so a slow stream changes "
                      "how much of the other buffers it keeps and scans"}


def is_wjoin(suite: dict) -> bool:
    """Whether a stored suite (``suite.json``) is a W-join suite."""
    exps = suite.get("experiments", [])
    return bool(exps) and all(e.get("figure") in WJOIN_FIGURES for e in exps)


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
        data = rows.assign(y=rows["us_per_tuple"] if figure == "service" else rows["ratio"])
    stats = data.groupby(keys).agg(mean=("y", "mean"), lo=("y", "min"), hi=("y", "max"), n=("y", "count"))
    return stats.reset_index().sort_values(keys, kind="stable").reset_index(drop=True)


def facet_label(names: tuple[str, ...], values: tuple) -> str:
    return ", ".join(f"{FIELD_NAMES[n]} = {v}" for n, v in zip(names, values))


def wjoin_figure(rows: pd.DataFrame, exp: dict) -> go.Figure:
    """The experiment's figure (see the module docstring)."""
    figure = exp["figure"]
    facets, x = FACETS[figure], X_FIELDS[figure]
    stats = summary(rows, exp)
    parts = [(facet_label(facets, k if isinstance(k, tuple) else (k,)), part)
             for k, part in stats.groupby(list(facets), sort=True)]
    fig = _grid(len(parts), [label for label, _ in parts], shared=figure == "shedding")
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
            fig.add_trace(go.Scatter(x=line[x].tolist(), y=line["mean"].tolist(), name=policy.upper(),
                                     legendgroup=policy, showlegend=index == 0, line=style, marker=marker,
                                     mode="lines" if figure == "slow" else "lines+markers", error_y=bars,
                                     hovertemplate=f"{policy.upper()}: {value} at {x} %{{x}}<extra></extra>"),
                          **_cell(index))
    if figure == "shedding":
        fig.update_yaxes(tickformat=".0%", rangemode="tozero")
    else:
        fig.update_yaxes(**({"type": "log"} if figure == "service" else {"rangemode": "tozero"}))
    fig.update_yaxes(title_text=Y_TITLES[figure], col=1)
    fig.update_xaxes(title_text=X_TITLES[figure])
    return _titled(fig, exp)


def _line_style(figure: str, policy: str) -> tuple[dict, dict]:
    if figure == "shedding":
        return _style(policy)
    color, symbol, dash = ALGORITHM_STYLES[policy]
    return {"color": color, "dash": dash}, {"symbol": symbol, "size": 8, "color": color}


def numbers_table(index: int, rows: pd.DataFrame, exp: dict) -> str:
    """The table beside a figure: one row per point, one column per line (mean over seeds, the
    seeds' range in brackets), and for timings NLW / MW and the N-tuples checked against exact."""
    figure = exp["figure"]
    policies = [p for p in exp.get("policies", []) if p in set(rows["policy"])]
    if figure == "slow":  # per rate set: the whole run's mean service time
        keys = ["rates"]
        stats = rows.groupby(["rates", "policy"]).agg(mean=("us_per_tuple", "mean"), lo=("us_per_tuple", "min"),
                                                       hi=("us_per_tuple", "max"), n=("us_per_tuple", "count"))
        stats = stats.reset_index()
    else:
        keys = [*FACETS[figure], X_FIELDS[figure]]
        stats = summary(rows, exp)
    counts = rows.groupby(keys)[["tuples", "exact"]].mean()
    head = [FIELD_NAMES.get(k, k) for k in keys] + ["tuples", "exact N-tuples"] + [p.upper() for p in policies]
    timing = figure != "shedding"
    if timing and {"nlw", "mw"} <= set(policies):
        head.append("NLW / MW")
    body = []
    for key, group in stats.groupby(keys, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        by = group.set_index("policy")
        tuples, exact = counts.loc[key if len(key) > 1 else key[0]]
        row = [(str(v), True) for v in key] + [(f"{tuples:,.0f}", False), (f"{exact:,.0f}", False)]
        for p in policies:
            row.append((_cell_text(by.loc[p], timing) if p in by.index else "-", False))
        if timing and {"nlw", "mw"} <= set(policies):
            ok = {"nlw", "mw"} <= set(by.index)
            row.append((f"{by.loc['nlw', 'mean'] / by.loc['mw', 'mean']:.2f}" if ok else "-", False))
        body.append(row)
    note = ("Service time per tuple in microseconds (the whole run's seconds over its arrivals), mean over seeds; "
            "every algorithm's N-tuples equal the exact count." if timing else
            "Outputs as a fraction of the exact W-join's, mean over seeds (compiled count, Form 1).")
    return table_html(index, head, body, note + " In brackets the lowest and highest seed.")


def _cell_text(stat: pd.Series, timing: bool) -> str:
    fmt = (lambda v: f"{v:.2f}") if timing else pct
    text = fmt(stat["mean"])
    if stat["n"] > 1 and fmt(stat["lo"]) != fmt(stat["hi"]):
        text += f" ({fmt(stat['lo'])}\u2013{fmt(stat['hi'])})"
    return text


# -- the paper's claims against this run ------------------------------------------------------------
def _means(rows: pd.DataFrame, keys: list[str], y: str) -> pd.Series:
    return rows.groupby([*keys, "policy"])[y].mean()


def service_checks(rows: pd.DataFrame, exp: dict) -> list[Check]:
    """Figure 9(a)/(b): MW against NLW at every N, and HW at the largest N."""
    t = _means(rows, ["streams"], "us_per_tuple").unstack("policy")
    checks: list[Check] = []
    if {"nlw", "mw"} <= set(t.columns):
        ratio = (t["nlw"] / t["mw"]).dropna()
        listed = ", ".join(f"{r:.2f} at N = {n}" for n, r in ratio.items())
        checks.append(Check(bool((ratio > 1).all()), f"MW is faster than NLW at every N: NLW / MW = {listed}."))
        if "comparable" in set(rows["rates"]):
            first, last = ratio.iloc[0], ratio.iloc[-1]
            checks.append(Check(bool(last < first), f"NLW / MW shrinks as streams are added (converges): "
                                f"{first:.2f} at N = {ratio.index[0]}, {last:.2f} at N = {ratio.index[-1]}."))
        else:
            ok = bool((ratio >= ORDER_OF_MAGNITUDE).all())
            checks.append(Check(ok, f"An order of magnitude: NLW / MW >= {ORDER_OF_MAGNITUDE:g} at every N "
                                f"(lowest {ratio.min():.2f}, highest {ratio.max():.2f}).", "" if ok else SPEED_CAUSE))
    if "hw" in t.columns and len(t):
        last = t.iloc[-1]
        best = last.idxmin()
        checks.append(Check(bool(best == "hw"), f"HW is the fastest at N = {t.index[-1]}: fastest is "
                            f"{str(best).upper()} ({', '.join(f'{p.upper()} {v:.2f} µs' for p, v in last.items())})."))
    return checks


def slow_checks(rows: pd.DataFrame, exp: dict) -> list[Check]:
    """Figure 9(c): MW's service time drops with the switching stream; NLW's and HW's barely move."""
    t = _means(rows, ["rates"], "us_per_tuple").unstack("rates")
    if not {"comparable", "switching"} <= set(t.columns):
        return [Check(None, "Needs runs with comparable and switching rates.")]
    change = t["switching"] / t["comparable"]
    checks = []
    if "mw" in change:
        checks.append(Check(bool(change["mw"] < 1 - NO_CHANGE), f"MW's service time drops with the slow stream by "
                            f"more than {NO_CHANGE:.0%}: switching / comparable = {change['mw']:.2f}."))
    for p in ("nlw", "hw"):
        if p in change:
            ok = bool(abs(change[p] - 1) <= NO_CHANGE)
            checks.append(Check(ok, f"{p.upper()}'s service time changes by at most {NO_CHANGE:.0%}: switching / "
                                f"comparable = {change[p]:.2f}.", "" if ok else SLOW_CAUSES[p]))
    return checks


def shedding_checks(rows: pd.DataFrame, exp: dict) -> list[Check]:
    """PROB-N against RAND and LIFE-N at every point; the variable split where rates differ."""
    t = _means(rows, ["streams", "rates", "memory"], "ratio").unstack("policy")
    checks = []
    for better, worse in (("prob", "rand"), ("life", "rand"), ("prob", "life")):
        if {better, worse} <= set(t.columns):
            wins = int((t[better] >= t[worse]).sum())
            checks.append(Check(wins == len(t), f"{better.upper()} >= {worse.upper()} at {wins} of {len(t)} points "
                                f"(mean {pct(t[better].mean())} against {pct(t[worse].mean())} of exact)."))
    if {"prob", "probv"} <= set(t.columns) and "variable" in set(rows["rates"]):
        v = t.xs("variable", level="rates")
        wins = int((v["probv"] >= v["prob"]).sum())
        checks.append(Check(wins == len(v), f"With variable rates PROBV >= PROB at {wins} of {len(v)} points "
                            f"(mean {pct(v['probv'].mean())} against {pct(v['prob'].mean())})."))
    return checks


CHECKS = {"service": service_checks, "slow": slow_checks, "shedding": shedding_checks}


# -- the page -------------------------------------------------------------------------------------------
def wjoin_section(index: int, exp: dict, rows: pd.DataFrame, folder: Path) -> Section:
    """One experiment: title, claim and verdict, figure, caption, the numbers and their CSV."""
    title = str(exp.get("title", exp.get("id", "")))
    checks = CHECKS[exp["figure"]](rows, exp) if not rows.empty else []
    verdict = Verdict(str(exp.get("claim", "")), tuple(checks))
    badge = f'<span class="verdict {verdict.word.replace(" ", "-")}">{verdict.word}</span>'
    parts = [f'<section class="experiment" id="exp-{index}" data-experiment="{escape(str(exp.get("id", "")))}">',
             f"<h2>{index + 1}. {escape(title)}</h2>",
             f'<p class="claim">Paper: {escape(verdict.claim)} {badge} <a href="#findings-{index}">checks</a></p>']
    fig_html = ""
    if rows.empty:
        parts.append('<p class="empty">No results yet.</p>')
    else:
        fig = wjoin_figure(rows, exp)
        if has_data(fig):
            fig_html = (f'<div class="plot" id="fig-{index}"></div>\n<script type="application/json" '
                        f'class="figure-data" data-target="fig-{index}">{figure_json(fig)}</script>')
        name = f"figures/{exp.get('id', 'figure')}.csv"
        (folder / "figures").mkdir(exist_ok=True)
        summary(rows, exp).to_csv(folder / name, index=False)
        parts += [fig_html, f'<p class="caption">{escape(caption(exp, rows))}</p>', numbers_table(index, rows, exp),
                  f'<p class="data-link">Data of this figure: <a href="{escape(name)}">{escape(name)}</a></p>']
    parts.append("</section>\n")
    return Section(index, title, "\n".join(parts), [], verdict, bool(fig_html))


def caption(exp: dict, rows: pd.DataFrame) -> str:
    """The setup of an experiment, from its runs."""
    def vals(name: str) -> str:
        return ", ".join(str(v) for v in sorted(rows[name].unique().tolist()))

    text = (f"Setup: synthetic streams (exponential inter-arrival times, §4.2), rates {vals('rates')}; "
            f"{vals('length')} tuples of the fastest stream, every stream cut to the span all cover; "
            f"Zipf({vals('skew')}) keys over {vals('domain')} values; one window w = {vals('window')} (Form 1, "
            f"inclusive); N = {vals('streams')}; seeds {vals('seed')}.")
    if exp["figure"] == "slow":
        text += (f" Service time averaged over blocks of {vals('block')} arrivals (the paper: 1000); the switching "
                 "stream D alternates between rates 0.01 and 1 every 100 tuples (the paper: 10 and 1000 tuples/s).")
    elif exp["figure"] == "shedding":
        text += f" Memory M = {vals('memory')} tuples over all streams; fixed split M // N per stream, V = variable."
    else:
        text += " Tuples are fed in timestamp order; service time is the whole run's time over its arrivals."
    if exp["figure"] != "shedding":
        text += f" Each timed run is repeated {vals('repeats')} times; the repeat with the median time counts."
    extra = str(exp.get("caption", ""))
    return text + (f" {extra}" if extra else "")


def header(suite: dict, results: pd.DataFrame, complete: bool) -> str:
    """Name, description, completeness banner, provenance with the load average, data links."""
    info = suite.get("provenance", {})
    runs = int(results["run_id"].nunique()) if len(results) else 0
    total = suite.get("total_runs")
    load = " to ".join(", ".join(f"{v:g}" for v in info[k]) for k in ("load_before", "load_after") if info.get(k))
    facts = {"Runs": f"{runs:,}" + (f" of {total:,}" if isinstance(total, int) else ""),
             "Seeds per point": str(suite.get("seeds", "-")), "Where": str(suite.get("master", "-")),
             "Command": info.get("command") or "-",
             "shedding": f"{info.get('shedding', '-')}, commit {info.get('commit', '-')}",
             "Python": str(info.get("python", "-")), "Cores": str(info.get("cores", "-")),
             "Load average (1, 5, 15 min)": (load + " (before to after)") if load else "-",
             "Wall time": f"{info['wall_seconds']:,.1f} s" if "wall_seconds" in info else "- (unfinished)"}
    items = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in facts.items())
    return (f"<header>\n<h1>Multi-way window joins: {escape(str(suite.get('name', '')))}</h1>\n"
            f'<p class="description">{escape(str(suite.get("description", "")))}</p>\n'
            f"{banner(runs, total, complete)}\n<dl class=\"facts\">{items}</dl>\n"
            '<p class="data-links">Data: <a href="results.csv">results.csv</a>, <a href="results.parquet">'
            'results.parquet</a>, <a href="suite.json">suite.json</a>; the numbers of each figure are linked '
            "under it.</p>\n<p>Reproduces the shapes of Hammad, Aref, Elmagarmid, <i>Joining Multiple Data Streams "
            "with Window Constraints</i> (2002), Figure 9, and runs DGR's shedding policies on N streams. Service "
            "times depend on the machine and its load (see the load average above); compare the algorithms "
            "within one run.</p>\n</header>\n")


def runs_table(results: pd.DataFrame) -> str:
    """Every run in a collapsed table."""
    head = ["run id", "experiment", "N", "rates", "seed", "algorithm / policy", "M", "outputs", "exact",
            "µs per tuple"]
    body = [[(str(r.run_id), True), (str(r.experiment), True), (str(r.streams), False), (str(r.rates), True),
             (str(r.seed), False), (str(r.policy).upper(), True), (str(r.memory), False), (f"{r.outputs:,}", False),
             (f"{r.exact:,}", False), (f"{r.us_per_tuple:.2f}", False)] for r in results.itertuples()]
    return (f'<section id="runs"><details><summary>All {len(results):,} runs</summary>'
            f'{table_html("runs", head, body, "One row per run, as in results.csv.")}</details></section>')


def build_wjoin_report(results: pd.DataFrame, suite: dict, complete: bool, path: Path | str) -> Path:
    """Write the report of a W-join suite to ``path`` (one offline HTML file) and each figure's
    numbers to ``figures/<experiment id>.csv`` beside it. Returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    results = results if len(results) else pd.DataFrame(columns=["experiment", "run_id"])
    sections = [wjoin_section(i, exp, results[results["experiment"] == exp.get("id")].reset_index(drop=True),
                              path.parent) for i, exp in enumerate(suite.get("experiments", []))]
    body = header(suite, results, complete) + contents(sections) + "".join(s.html for s in sections)
    body += findings_section(sections) + (runs_table(results) if len(results) else "")
    path.write_text(page(suite, body, sum(s.has_figure for s in sections), complete), encoding="utf-8")
    return path
