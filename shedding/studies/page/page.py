"""The page skeleton: one self-contained HTML document that works offline.

plotly.js (the vendored cartesian build, see ``vendor/README.md``) is embedded once, after the
text, and runs only once the text has painted; each figure is JSON in a
``<script type="application/json">`` that one script renders (:func:`.figures.figure_html`). A
page-level error handler writes JavaScript errors into ``<pre id="js-errors">``, and
``<body data-rendered="N">`` is set once all N figures have drawn their SVG. The header pieces
(facts, the completeness banner, the links to the data) are shared by the study pages.
"""

from __future__ import annotations

from datetime import datetime, timezone
from functools import cache
from html import escape
from importlib import resources

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
.verdict.not-decidable-at-this-scale { background: #dfe8f5; color: #24426b; }
li.check.pass::marker { content: "\\2713  "; color: #1e7a34; }
li.check.fail::marker { content: "\\2717  "; color: #b03a2e; }
li.check.unknown::marker { content: "?  "; color: #777; }
li.check.undecided::marker { content: "~  "; color: #24426b; }
.undecided { color: #24426b; }
.empty { color: #8a5300; font-weight: 600; }
.cause { color: #7b1d14; }
.convention, .rule { color: #444; font-size: .9rem; }
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



@cache
def plotly_js() -> str:
    """The vendored plotly.js cartesian build (scatter is the only trace type the report draws)."""
    return resources.files("shedding.studies.page").joinpath("vendor/plotly-cartesian.min.js").read_text(
        encoding="utf-8")


def page(name: str, body: str, figures: int, complete: bool = True) -> str:
    """The whole document titled after ``name``: styles, the error handler, the body, then plotly.js
    once (as text) and the renderer, which runs it after the text has painted (the figures come
    second). An incomplete page says so in its title."""
    title = ("INCOMPLETE - " if not complete else "") + f"{name} - load shedding report"
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{escape(title)}</title>\n<style>{CSS}</style>\n</head>\n"
            f'<body data-figures="{figures}">\n<pre id="js-errors" hidden></pre>\n'
            f"<script>{ERROR_JS}</script>\n<main>\n{body}\n</main>\n"
            f'<script type="text/plain" id="plotly-js">{plotly_js()}</script>\n'
            f"<script>{RENDER_JS}</script>\n</body>\n</html>\n")


def facts(items: dict[str, str]) -> str:
    """A list of facts (name: value), values not yet escaped."""
    return '<dl class="facts">' + "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in items.items()) \
        + "</dl>"


def header(title: str, description: str, banner_html: str, fact_items: dict[str, str], rest: str = "") -> str:
    """A page's header: title, description, a banner (:func:`banner`, or ""), the facts, then
    ``rest`` (HTML)."""
    return (f"<header>\n<h1>{escape(title)}</h1>\n<p class=\"description\">{escape(description)}</p>\n"
            f"{banner_html}\n{facts(fact_items)}\n{rest}</header>\n")


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


def data_links(about_suite_json: str = "", per_figure: bool = True) -> str:
    """Links to the results files written beside the page (relative, so the folder can move);
    ``about_suite_json`` (HTML) follows the link to suite.json; ``per_figure``: each figure's
    numbers are linked under it (a suite that writes no table per figure says nothing of them)."""
    under = "; the numbers of each figure are linked under it" if per_figure else ""
    return ('<p class="data-links">Data: <a href="results.csv">results.csv</a>, '
            f'<a href="results.parquet">results.parquet</a>, <a href="suite.json">suite.json</a>{about_suite_json}'
            f"{under}.</p>")


def provenance_facts(info: dict) -> dict[str, str]:
    """The command and the shedding version and commit of a stored provenance, where and on what
    machine it ran, and when."""
    memory = f", {info['memory_gib']:g} GiB memory" if info.get("memory_gib") else ""
    out = {"Results folder": str(info["out"])} if "out" in info else {}
    return {"Command": info.get("command") or "-",
            "shedding": f"{info.get('shedding', '-')}, commit {info.get('commit', '-')}",
            "Working folder": str(info.get("working_folder", "-")), **out,
            "Machine": f"{info.get('cpu', '-')}, {info.get('cores', '-')} cores{memory}",
            "Started": str(info.get("started", "-")), "Finished": str(info.get("finished", "- (unfinished)")),
            "Page generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")}


def seeds_fact(suite: dict) -> str:
    """Seeds per point: the suite's, with each experiment that runs another number
    ("3 (shedding: 1)")."""
    own = {e: n for e, n in suite.get("seeds_by_experiment", {}).items() if n != suite.get("seeds")}
    extra = ", ".join(f"{e}: {n}" for e, n in own.items())
    return str(suite.get("seeds", "-")) + (f" ({extra})" if extra else "")
