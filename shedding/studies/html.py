"""The HTML report of an experiment suite: one self-contained page that works offline.

It reproduces the experiments of Das, Gehrke, Riedewald (SIGMOD 2003), section 4. At the top: the
provenance (command, versions, commit, cores, wall time, time per policy) and links to the data.
Per experiment: a figure in the paper's form (Figures 3-11, see :mod:`.figures`), a caption with the
exact setup, the numbers behind the figure (mean over seeds, the seeds' spread as fractions of EXACT
or OPT) and a CSV of them, and the paper's claim with this run's verdict. Then the findings computed
from the data (:mod:`.findings`), and every run in a collapsed table.

plotly.js (the vendored cartesian build, see ``vendor/README.md``) is embedded once, after the
text, and runs only once the text has painted; each figure is JSON in a
``<script type="application/json">`` that one script renders. A page-level error handler writes
JavaScript errors into ``<pre id="js-errors">``, and ``<body data-rendered="N">`` is set once all
N figures have drawn their SVG.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import cache
from html import escape
from importlib import resources
from pathlib import Path

import pandas as pd

from shedding.studies.figures import (FIELD_LABELS, Y_TITLES, Layout, build_figure, facet_parts, field_text, figure_json, has_data,
                      memory_label, pct, plan, share_curves, share_stats, summarize, w_multiple)
from shedding.studies.findings import CONVENTION, Check, Verdict, findings
from shedding.studies.opt_bounds import BOUNDED, LABEL, any_bounded, bounds_text

RESULT_COLUMNS = {"suite": "", "experiment": "", "dataset": "", "skew": math.nan, "skew_s": math.nan,
                  "domain": 0, "length": 0, "correlation": "", "seed": 0, "window": 0, "warmup": 0, "memory": 0,
                  "policy": "", "estimator": "", "share": False, "run_id": "", "outputs": 0, "exact": 0,
                  "ratio": math.nan, "ratio_opt": math.nan, "arm": 0, "seconds": math.nan, "share_t": "",
                  "share_r": "", "share_s": "", "opt_kind": "", "opt_lower": math.nan, "opt_upper": math.nan,
                  "ratio_opt_low": math.nan, "ratio_opt_high": math.nan}
VERSIONS = (("Python", "python"), ("Spark", "spark"), ("numba", "numba"), ("plotly", "plotly"),
            ("pandas", "pandas"), ("numpy", "numpy"))
# written by shed compare next to report.html (relative links, so the folder can move)
DATA_LINKS = ('<p class="data-links">Data: <a href="results.csv">results.csv</a>, '
              '<a href="results.parquet">results.parquet</a>, <a href="suite.json">suite.json</a> (the suite\'s '
              'grid, seeds and provenance); the numbers of each figure are linked under it.</p>')
TALLY = {"agrees": "agree", "partly agrees": "partly agree", "disagrees": "disagree", "not checked": "not checked"}
NUMERIC_COLUMNS = ("skew", "skew_s", "outputs", "exact", "ratio", "ratio_opt", "opt_lower", "opt_upper",
                   "ratio_opt_low", "ratio_opt_high")
SETUP_FIELDS = ("dataset", "skew", "skew_s", "correlation", "domain", "length", "window", "warmup", "memory",
                "estimator")

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; margin: 0;
       color: #1d1d1f; background: #fafafa; line-height: 1.45; }
main { max-width: 1200px; margin: 0 auto; padding: 1.5rem; }
header h1 { margin-bottom: .2rem; }
.banner { padding: .8rem 1rem; border-radius: 6px; font-weight: 700; margin: 1rem 0; }
.banner.incomplete { background: #fde2e1; border: 2px solid #c0392b; color: #7b1d14; font-size: 1.2rem; }
.banner.complete { background: #e3f4e6; border: 1px solid #3c9a50; color: #1e5a2b; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; }
section { background: #fff; border: 1px solid #e2e2e2; border-radius: 8px; padding: 1rem 1.4rem; margin: 1.4rem 0; }
.caption { color: #444; font-size: .93rem; }
.plot { width: 100%; }
table { border-collapse: collapse; font-size: .88rem; margin: .6rem 0; }
.table-wrap { overflow-x: auto; }
.table-note { margin: .8rem 0 .2rem; color: #444; font-size: .88rem; }
th, td { border: 1px solid #ddd; padding: .25rem .5rem; text-align: right; font-variant-numeric: tabular-nums;
         white-space: nowrap; }
th { background: #f2f2f2; }
td.key { text-align: left; background: #fcfcfc; }
.verdict { display: inline-block; padding: 0 .45rem; border-radius: 4px; font-weight: 700; font-size: .85rem; }
.verdict.agrees { background: #d8f0dc; color: #1e5a2b; }
.verdict.disagrees { background: #fbd9d6; color: #7b1d14; }
.verdict.partly-agrees { background: #fff0c2; color: #6b5000; }
.verdict.not-checked { background: #e6e6e6; color: #444; }
li.check.pass::marker { content: "\\2713  "; color: #1e7a34; }
li.check.fail::marker { content: "\\2717  "; color: #b03a2e; }
li.check.unknown::marker { content: "?  "; color: #777; }
.empty { color: #8a5300; font-weight: 600; }
.cause { color: #7b1d14; }
.convention { color: #444; font-size: .9rem; }
#js-errors { background: #fbd9d6; color: #7b1d14; padding: .6rem; margin: 0; white-space: pre-wrap; }
"""

# installed before plotly.js, so every later error is shown on the page (and seen by the browser test)
ERROR_JS = """
function reportError(message) {
  var pre = document.getElementById("js-errors");
  pre.hidden = false;
  pre.textContent += message + "\\n";
}
window.addEventListener("error", function (e) { reportError("error: " + e.message); });
window.addEventListener("unhandledrejection", function (e) { reportError("rejected: " + e.reason); });
"""

# plotly.js sits in a <script type="text/plain"> (not parsed as JavaScript) and runs only once the
# text has painted (the first-contentful-paint entry; after 1 s where paint timing is missing). Its start
# time goes to <html data-plotly-start> (the browser test checks that the text painted before it).
# Each figure renders on its own, so one failure does not hide the others; data-rendered counts successes.
RENDER_JS = """
function renderFigures() {
  document.documentElement.dataset.plotlyStart = String(performance.now());
  var bundle = document.createElement("script");
  bundle.text = document.getElementById("plotly-js").text;
  document.head.appendChild(bundle);
  var specs = Array.prototype.slice.call(document.querySelectorAll("script.figure-data"));
  var drawn = 0;
  function draw(node) {
    var figure = JSON.parse(node.textContent);
    var div = document.getElementById(node.dataset.target);
    return Plotly.newPlot(div, figure.data, figure.layout, {responsive: true, displaylogo: false})
      .then(function () {
        if (!div.querySelector(".main-svg")) { throw new Error("no plot drawn"); }
        div.dataset.rendered = "1";
        drawn += 1;
      });
  }
  var jobs = specs.map(function (node) {
    return Promise.resolve(node).then(draw).catch(function (err) {
      reportError("figure " + node.dataset.target + " failed: " + err);
    });
  });
  Promise.all(jobs).then(function () { document.body.dataset.rendered = String(drawn); });
}
var started = false;
function startOnce() { if (!started) { started = true; renderFigures(); } }
if (window.PerformanceObserver && (PerformanceObserver.supportedEntryTypes || []).indexOf("paint") >= 0) {
  new PerformanceObserver(function (list) {
    if (list.getEntriesByName("first-contentful-paint").length) { setTimeout(startOnce, 0); }
  }).observe({type: "paint", buffered: true});
}
setTimeout(startOnce, 1000);  // browsers without paint timing
"""


@dataclass(frozen=True)
class Section:
    """One experiment's part of the report."""

    index: int
    title: str
    html: str
    notes: list[str]
    verdict: Verdict
    has_figure: bool


def build_report(results: pd.DataFrame, suite: dict, complete: bool, path: Path | str) -> Path:
    """Write the report of ``suite``'s ``results`` to ``path`` as one offline HTML file, and the
    numbers behind each figure to ``figures/<experiment id>.csv`` beside it; an incomplete suite
    (``complete`` False) says so at the top. Returns the path."""
    from shedding.studies.wjoin_report import build_wjoin_report, is_wjoin

    if is_wjoin(suite):  # the W-join suites have their own figures (shedding.studies.wjoin_report)
        return build_wjoin_report(results, suite, complete, path)
    results = normalized(results)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    seeds = suite.get("seeds")
    sections = [experiment_section(i, exp, results[results["experiment"] == exp.get("id")], seeds, path.parent)
                for i, exp in enumerate(suite.get("experiments", []))]
    body = header(suite, results, complete) + contents(sections) + "".join(s.html for s in sections)
    body += findings_section(sections) + runs_section(results)
    path.write_text(page(suite, body, sum(s.has_figure for s in sections), complete), encoding="utf-8")
    return path


def normalized(results: pd.DataFrame | None) -> pd.DataFrame:
    """``results`` with every column the report reads (missing ones filled with blanks)."""
    results = pd.DataFrame() if results is None else results.copy()
    for column, blank in RESULT_COLUMNS.items():
        if column not in results:
            results[column] = pd.Series([blank] * len(results), index=results.index, dtype=object if
                                        isinstance(blank, str) else None)
    for column in NUMERIC_COLUMNS:  # a CSV round trip leaves "" for NaN
        results[column] = pd.to_numeric(results[column], errors="coerce")
    return results


@cache
def plotly_js() -> str:
    """The vendored plotly.js cartesian build (scatter is the only trace type the report draws)."""
    return resources.files("shedding.studies").joinpath("vendor/plotly-cartesian.min.js").read_text(encoding="utf-8")


def page(suite: dict, body: str, figures: int, complete: bool) -> str:
    """The whole document: styles, the error handler, the body, then plotly.js once (as text) and
    the renderer, which runs it after the text has painted (section 4's figures come second)."""
    title = ("INCOMPLETE - " if not complete else "") + f"{suite.get('name', 'suite')} - load shedding report"
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{escape(title)}</title>\n<style>{CSS}</style>\n</head>\n"
            f'<body data-figures="{figures}">\n<pre id="js-errors" hidden></pre>\n'
            f"<script>{ERROR_JS}</script>\n<main>\n{body}\n</main>\n"
            f'<script type="text/plain" id="plotly-js">{plotly_js()}</script>\n'
            f"<script>{RENDER_JS}</script>\n</body>\n</html>\n")


def header(suite: dict, results: pd.DataFrame, complete: bool) -> str:
    """Suite name, description, the completeness banner, provenance (date, command, versions,
    commit, cores, wall time), time per policy, links to the data, and what the report reproduces."""
    runs = int(results["run_id"].nunique()) if len(results) else 0
    total = suite.get("total_runs")
    info = suite.get("provenance", {})
    facts = {"Generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
             "Runs": f"{runs:,}" + (f" of {total:,}" if isinstance(total, int) else ""),
             "Seeds per point": str(suite.get("seeds", "-")),
             "Experiments": str(len(suite.get("experiments", [])))}
    if suite.get("master"):
        facts["Spark master"] = str(suite["master"])
    if any_bounded(results):
        facts["OPT"] = opt_fact(results, info)
    if info:
        facts |= {"Command": info.get("command") or "-",
                  "shedding": f"{info.get('shedding', '-')}, commit {info.get('commit', '-')}",
                  "Versions": ", ".join(f"{name} {info.get(key, '-')}" for name, key in VERSIONS),
                  "Cores": str(info.get("cores", "-")),
                  "Wall time": f"{info['wall_seconds']:,.1f} s (last shed compare)" if "wall_seconds" in info
                  else "- (unfinished)"}
    items = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in facts.items())
    datasets = set(results["dataset"]) if len(results) else set()
    what = ("the synthetic experiments of" if datasets <= {"zipf"} else
            "the real-data experiment (weather reports, section 4.5) of" if "zipf" not in datasets else
            "the experiments of")
    bars = (" Bars and brackets give the seeds' lowest and highest fraction of EXACT or OPT."
            if results["seed"].nunique() > 1 else "")
    return (f"<header>\n<h1>Load shedding for sliding-window joins: {escape(str(suite.get('name', '')))}</h1>\n"
            f'<p class="description">{escape(str(suite.get("description", "")))}</p>\n'
            f"{banner(runs, total, complete)}\n<dl class=\"facts\">{items}</dl>\n{policy_times(results)}\n"
            f"{DATA_LINKS}\n"
            f"<p>Reproduces {what} Das, Gehrke, Riedewald, <i>Approximate Join Processing Over Data Streams</i> "
            "(SIGMOD 2003), section 4. Outputs are counted after the warmup (section 4.1); every point is the "
            f"mean over seeds.{bars}</p>\n</header>\n")


def opt_fact(results: pd.DataFrame, info: dict) -> str:
    """How many OPT/OPTV runs are exact and how many only bounded, and the size limit."""
    kinds = results.loc[results["policy"].isin(["opt", "optv"]), "opt_kind"]
    limit = f"{info['max_graph_gib']:.3g} GiB" if "max_graph_gib" in info else "4 GiB (default)"
    return (f"solved exactly in {int(kinds.ne(BOUNDED).sum()):,} runs; {LABEL} (lower and upper bounds, "
            f"docs/bounds.md) in {int(kinds.eq(BOUNDED).sum()):,} runs whose network is above the {limit} limit "
            "(shed compare --max-graph-gib)")


def policy_times(results: pd.DataFrame) -> str:
    """Task time per policy from the runs' ``seconds`` (the run itself, inside its Spark task)."""
    if results.empty or results["seconds"].isna().all():
        return ""
    times = results.groupby("policy")["seconds"].agg(["count", "sum", "mean", "max"])
    body = [[(str(p).upper(), True), (f"{int(t['count']):,}", False), (f"{t['sum']:,.1f}", False),
             (f"{t['mean']:.3f}", False), (f"{t['max']:.2f}", False)] for p, t in times.iterrows()]
    return table_html("times", ["policy", "runs", "total s", "mean s", "longest s"], body,
                      "Time per policy: seconds inside the Spark tasks (workload generation and Spark's own "
                      "overhead excluded; a worker's first run includes the numba JIT load).")


def banner(runs: int, total: object, complete: bool) -> str:
    """The completeness banner: loud when runs are missing."""
    if complete:
        return f'<div class="banner complete" id="complete-banner">Complete: all {runs:,} runs finished.</div>'
    if isinstance(total, int) and total > runs:
        text = f"INCOMPLETE: {total - runs:,} of {total:,} runs missing"
    else:
        text = f"INCOMPLETE: some runs are missing ({runs:,} present)"
    return (f'<div class="banner incomplete" id="incomplete-banner">{text}. Figures, tables and findings use '
            "only the finished runs and may change.</div>")


def contents(sections: list[Section]) -> str:
    """Links to each experiment with its verdict."""
    items = "".join(f'<li><a href="#exp-{s.index}">{escape(s.title)}</a> {verdict_badge(s.verdict)}</li>'
                    for s in sections)
    return f'<nav><h2>Experiments</h2><ol>{items}</ol><p><a href="#findings">Findings</a></p></nav>\n'


def verdict_badge(verdict: Verdict) -> str:
    word = verdict.word
    return f'<span class="verdict {word.replace(" ", "-")}">{word}</span>'


def expected_runs(exp: dict, seeds: object) -> int | None:
    """Runs of an experiment: the product of its grid lists, times policies, times seeds."""
    if not isinstance(seeds, int):
        return None
    return math.prod(len(v) for v in exp.get("grid", {}).values()) * len(exp.get("policies", [])) * seeds


def experiment_section(index: int, exp: dict, rows: pd.DataFrame, seeds: object, folder: Path) -> Section:
    """One experiment: title, claim and verdict, figure, caption, and the table behind the figure,
    also written to ``folder/figures/<id>.csv`` and linked."""
    title = str(exp.get("title", exp.get("id", "")))
    notes, verdict = findings(rows, exp)
    expected = expected_runs(exp, seeds)
    count = f"{len(rows):,}" + (f" of {expected:,}" if expected is not None else "")
    missing = " (incomplete)" if expected is not None and len(rows) < expected else ""
    parts = [f'<section class="experiment" id="exp-{index}" data-experiment="{escape(str(exp.get("id", "")))}">',
             f"<h2>{index + 1}. {escape(title)}</h2>",
             f'<p class="meta">Experiment <code>{escape(str(exp.get("id", "")))}</code>, figure type '
             f"{escape(str(exp.get('figure', '')))}, runs {count}{missing}.</p>",
             f'<p class="claim">Paper: {escape(str(exp.get("claim", "")))} {verdict_badge(verdict)} '
             f'<a href="#findings-{index}">checks</a></p>']
    figure_html = plot_html(index, rows, exp)
    if rows.empty:
        parts.append('<p class="empty">No results yet.</p>')
    elif not figure_html:
        what = "share" if exp.get("figure") == "share" else str(exp.get("y", "outputs"))
        parts.append(f'<p class="empty">No {escape(what)} values to plot yet (runs needed for them are missing).</p>')
    parts += [figure_html, f'<p class="caption">{caption(exp, rows, seeds)}</p>']
    if not rows.empty:
        parts.append(share_table(index, rows, exp) if exp.get("figure") == "share" else line_table(index, rows, exp))
        parts.append(figure_csv(rows, exp, folder))
    parts.append("</section>\n")
    return Section(index, title, "\n".join(parts), notes, verdict, bool(figure_html))


def plot_html(index: int, rows: pd.DataFrame, exp: dict) -> str:
    """The figure's div and its JSON, or "" when there is nothing to plot."""
    if rows.empty:
        return ""
    fig = build_figure(rows, exp)
    if not has_data(fig):
        return ""
    return (f'<div class="plot" id="fig-{index}"></div>\n<script type="application/json" class="figure-data" '
            f'data-target="fig-{index}">{figure_json(fig)}</script>')


def figure_csv(rows: pd.DataFrame, exp: dict, folder: Path) -> str:
    """Write the numbers behind an experiment's figure to ``folder/figures/<id>.csv`` (the line
    summary of :func:`.figures.summarize`, or the share curves) and return a link to it."""
    lay = plan(rows, exp)
    frame = share_curves(rows, lay) if exp.get("figure") == "share" else summarize(rows, lay)
    name = f"figures/{exp.get('id', 'figure')}.csv"
    (folder / "figures").mkdir(exist_ok=True)
    frame.to_csv(folder / name, index=False)
    return f'<p class="data-link">Data of this figure: <a href="{escape(name)}">{escape(name)}</a></p>'


def runs_section(results: pd.DataFrame) -> str:
    """Every run in a collapsed table: run id, experiment, seed, policy, M, outputs, EXACT, seconds."""
    head = ["run id", "experiment", "seed", "policy", "M", "outputs", "EXACT", "seconds"]
    body = [[(str(r.run_id), True), (str(r.experiment), True), (str(r.seed), False), (str(r.policy).upper(), True),
             (str(r.memory), False), (run_outputs(r), False), (f"{r.exact:,}", False),
             (f"{r.seconds:.3f}" if math.isfinite(r.seconds) else "-", False)]
            for r in results.itertuples()]
    return (f'<section id="runs"><details><summary>All {len(results):,} runs</summary>'
            f'{table_html("runs", head, body, "One row per run, as in results.csv.")}</details></section>')


def run_outputs(r: object) -> str:
    """A run's output count, or for an OPT run that is only bounded its bounds (:func:`.opt_bounds.bounds_text`)."""
    if getattr(r, "opt_kind", "") == BOUNDED:
        return bounds_text(f"{r.opt_lower:,.0f}", f"{r.opt_upper:,.0f}")
    return f"{r.outputs:,.0f}" if math.isfinite(r.outputs) else "-"


def values(exp: dict, rows: pd.DataFrame, name: str) -> list:
    """The values of a setup field: from the runs, or from the grid when there are none."""
    if not rows.empty:
        return sorted(rows[name].dropna().unique().tolist())
    return list(exp.get("grid", {}).get(name, []))


def joined(name: str, items: list) -> str:
    return ", ".join(field_text(name, v) for v in items) or "-"


def caption(exp: dict, rows: pd.DataFrame, seeds: object) -> str:
    """The exact setup of an experiment, built from its runs (or its grid before any run)."""
    v = {name: values(exp, rows, name) for name in SETUP_FIELDS}
    lengths = ", ".join(f"{int(n):,}" for n in v["length"]) or "-"
    warmup = f"{joined('warmup', v['warmup'])} time steps" if v["warmup"] else "2w"
    if set(v["dataset"]) <= {"zipf"}:
        data = (f"{skew_text(v, rows)}; {joined('correlation', v['correlation'])} streams; "
                f"domain {joined('domain', v['domain'])}; {lengths} tuples per stream")
    else:  # real reports: the grid cell is the key; cells and lengths come from the files
        shapes = rows.groupby("cell_size")[["domain", "length"]].max() if "cell_size" in rows else pd.DataFrame()
        cells = "; ".join(f"{c:g}-degree cells, {int(s.domain):,} distinct" for c, s in shapes.iterrows()) or "-"
        data = f"key: grid cell ({cells}); {lengths} reports per stream"
    text = (f"Setup: data {joined('dataset', v['dataset'])}; {data}; "
            f"window w = {joined('window', v['window'])}; warmup {warmup}; "
            f"{memory_text(exp, rows)}; {seed_text(rows, seeds)}; estimator {joined('estimator', v['estimator'])}; "
            f"policies {', '.join(str(p).upper() for p in exp.get('policies', []))}.")
    extra = str(exp.get("caption", ""))
    return escape(text) + (f" {escape(extra)}" if extra else "")


def skew_text(v: dict, rows: pd.DataFrame) -> str:
    """The Zipf skews of R and S ("on both streams" when S's follows R's)."""
    if (rows.empty and not v["skew_s"]) or (not rows.empty and bool((rows["skew"] == rows["skew_s"]).all())):
        return f"Zipf skew {joined('skew', v['skew'])} on both streams"
    return f"Zipf skew of R {joined('skew', v['skew'])}, of S {joined('skew_s', v['skew_s'])}"


def seed_text(rows: pd.DataFrame, seeds: object) -> str:
    """The seeds behind each point."""
    found = sorted(rows["seed"].unique().tolist()) if not rows.empty else []
    if len(found) > 1:
        return f"seeds {', '.join(map(str, found))} (mean over seeds, spread of the seeds' fractions)"
    return f"seed {found[0]}" if found else f"{seeds} seed(s) per point"


def memory_text(exp: dict, rows: pd.DataFrame) -> str:
    """The memories with their multiples of the window, "M = 40 (0.1w), 100 (0.25w)"; from the
    grid's memory or memory_factor before any run."""
    if rows.empty:
        grid = exp.get("grid", {})
        return "M = " + (joined("memory", grid["memory"]) if grid.get("memory") else
                         ", ".join(f"{f:g}w" for f in grid.get("memory_factor", [1.0])))
    pairs = sorted({(int(m), int(w)) for m, w in zip(rows["memory"], rows["window"])})
    return "M = " + ", ".join(memory_label(m, w) for m, w in pairs)


def number(value: float, y: str) -> str:
    """A table number: outputs with thousands separators, fractions as percentages, "-" if unknown."""
    if value is None or not math.isfinite(float(value)):
        return "-"
    return f"{value:,.0f}" if y == "outputs" else pct(value)


def cell(stat: pd.Series, y: str) -> str:
    """Mean over seeds, with the seeds' lowest and highest fraction (of EXACT for outputs, see
    :func:`.figures.spread_field`) when more than one seed has a value and they differ; at a
    point where OPT is only bounded, the means of its ends (:func:`.opt_bounds.bounds_text`)."""
    if pd.notna(stat.get("bounded", False)) and bool(stat.get("bounded", False)):
        return bounds_text(number(stat["bound_lo"], y), number(stat["bound_hi"], y))
    text = number(stat["mean"], y)
    lo, hi = pct(stat["lo"]), pct(stat["hi"])
    if stat["n"] > 1 and lo != hi:
        text += f" ({lo}\u2013{hi}{' of EXACT' if y == 'outputs' else ''})"
    return text


def table_html(index: int, head: list[str], body: list[list[tuple[str, bool]]], note: str) -> str:
    """A table; every body cell is (text, is_key), text not yet escaped."""
    ths = "".join(f"<th>{escape(h)}</th>" for h in head)
    trs = "".join("<tr>" + "".join(f'<td class="key">{escape(t)}</td>' if key else f"<td>{escape(t)}</td>"
                                   for t, key in row) + "</tr>" for row in body)
    return (f'<div class="table-wrap"><p class="table-note">{escape(note)}</p><table class="numbers" '
            f'id="table-{index}"><thead><tr>{ths}</tr></thead><tbody>{trs}</tbody></table></div>')


def line_table(index: int, rows: pd.DataFrame, exp: dict) -> str:
    """The numbers behind a memory, skew or domain figure: one row per point, one column per policy."""
    lay = plan(rows, exp)
    stats = summarize(rows, lay)
    keys = [*lay.facets, lay.x, *lay.series[1:]]
    order = [p for p in exp.get("policies", []) if p in set(stats["policy"])]
    windows = {k if isinstance(k, tuple) else (k,): w
               for k, w in rows.groupby(keys, dropna=False)["window"].first().items()}
    head = [FIELD_LABELS[k] for k in keys] + (["M/w"] if lay.x == "memory" else []) + [p.upper() for p in order]
    body = []
    for key, group in stats.groupby(keys, dropna=False, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        row = [(field_text(k, v), True) for k, v in zip(keys, key)]
        if lay.x == "memory":
            w = windows[key]
            row.append((w_multiple(key[keys.index("memory")], w) if w else "-", True))
        by_policy = group.set_index("policy")
        row += [(cell(by_policy.loc[p], lay.y) if p in by_policy.index else "-", False) for p in order]
        body.append(row)
    return table_html(index, head, body, table_note(stats, lay))


def table_note(stats: pd.DataFrame, lay: Layout) -> str:
    """What the numbers of a line table are."""
    spread = ""
    if (stats["n"] > 1).any():
        spread = (" (in brackets the seeds' lowest and highest fraction of EXACT)" if lay.y == "outputs" else
                  " (in brackets the lowest and highest seed)")
    bounds = (f" 'a\u2013b ({LABEL})': OPT was too large to solve exactly (above the --max-graph-gib limit), so "
              "only its lower and upper bounds are known (docs/bounds.md); a and b are the means over seeds of the "
              "two ends." if "bounded" in stats and stats["bounded"].any() else "")
    return f"{Y_TITLES[lay.y]}: mean over seeds{spread}; '-' where runs are missing or OPT's output is unknown.{bounds}"


def share_table(index: int, rows: pd.DataFrame, exp: dict) -> str:
    """The numbers behind a share figure: R's share of memory after the warmup, per policy."""
    lay = plan(rows, exp)
    stats = share_stats(share_curves(rows, lay), lay)
    head = [FIELD_LABELS[k] for k in lay.facets] + ["policy", "M", "seeds", "mean R tuples", "mean R share",
                                                     "min R share", "max R share"]
    body = []
    for _, part in facet_parts(stats, lay.facets):
        for _, s in part.iterrows():
            body.append([(field_text(k, s[k]), True) for k in lay.facets]
                        + [(str(s["policy"]).upper(), True), (str(s["memory"]), True), (str(s["seeds"]), False),
                           (f"{s['r_mean']:,.1f}", False)]
                        + [(f"{s[c]:.1f}%", False) for c in ("mean", "lo", "hi")])
    note = ("R tuples in memory after admission as a share of the tuples held, from the end of the warmup on, "
            "mean curve over seeds. OPT keeps only tuples that will join, so its memory may be partly empty.")
    return table_html(index, head, body, note)


def findings_section(sections: list[Section]) -> str:
    """All findings, and per experiment the paper's claim, the verdict and its checks."""
    words = [s.verdict.word for s in sections]
    tally = ", ".join(f"{words.count(w)} {TALLY[w]}" for w in TALLY if words.count(w))
    parts = ['<section id="findings">', "<h2>Findings</h2>",
             f"<p>Computed from the runs above; every check states its criterion. Claims: {escape(tally)}.</p>",
             f'<p class="convention">{escape(CONVENTION)}</p>']
    for s in sections:
        checks = "".join(f'<li class="check {check_class(c.ok)}">{check_text(c)}</li>' for c in s.verdict.checks)
        notes = "".join(f'<li class="finding">{escape(n)}</li>' for n in s.notes)
        parts += [f'<div class="finding-group" id="findings-{s.index}"><h3>{s.index + 1}. {escape(s.title)}</h3>',
                  f'<p class="verdict-line">{verdict_badge(s.verdict)} Paper: {escape(s.verdict.claim)}</p>',
                  f'<ul class="checks">{checks}</ul>', f'<ul class="notes">{notes}</ul></div>' if notes else "</div>"]
    parts.append("</section>")
    return "\n".join(parts)


def check_text(check: Check) -> str:
    """A check's text, and for a failed one its likely cause ("disagrees; likely cause: ...")."""
    cause = f' <span class="cause">Disagrees; likely cause: {escape(check.cause)}.</span>' if check.cause else ""
    return escape(check.text) + cause


def check_class(ok: bool | None) -> str:
    return "unknown" if ok is None else "pass" if ok else "fail"
