"""The page of a DGR suite: one self-contained HTML file that works offline.

It reproduces the experiments of Das, Gehrke, Riedewald (SIGMOD 2003), section 4. At the top: the
provenance (command, versions, commit, cores, wall time, time per policy) and links to the data.
Per experiment: a figure in the paper's form (Figures 3-11, see :mod:`.figures`), a caption with the
exact setup, the numbers behind the figure (mean over seeds, the seeds' spread as fractions of EXACT
or OPT) and a CSV of them, and the paper's claim with this run's verdict. Then the findings computed
from the data (:mod:`.findings`), and every run in a collapsed table. The page is built with the
page toolkit (:mod:`shedding.studies.page`).
"""

from __future__ import annotations

import math
from html import escape
from pathlib import Path

import pandas as pd

from shedding.atomic import write_atomically, write_text
from shedding.studies.dgr.captions import caption
from shedding.studies.dgr.figures import build_figure
from shedding.studies.dgr.findings.registry import findings
from shedding.studies.dgr.opt_bounds import BOUNDED, LABEL, any_bounded
from shedding.studies.dgr.shares import share_curves
from shedding.studies.dgr.summary import layout_of, summarize
from shedding.studies.dgr.tables import line_table, runs_table, share_table
from shedding.studies.page.figures import figure_html, has_data
from shedding.studies.page.page import banner, data_links, header, page, provenance_facts, seeds_fact
from shedding.studies.page.sections import Section, contents, data_link, findings_section, section_head
from shedding.studies.page.tables import table_html
from shedding.studies.suite import SHIPPED

RESULT_COLUMNS = {"suite": "", "experiment": "", "dataset": "", "skew": math.nan, "skew_s": math.nan,
                  "domain": 0, "length": 0, "correlation": "", "seed": 0, "window": 0, "warmup": 0, "memory": 0,
                  "policy": "", "estimator": "", "share": False, "run_id": "", "outputs": 0, "exact": 0,
                  "ratio": math.nan, "ratio_opt": math.nan, "arm": 0, "seconds": math.nan, "share_t": "",
                  "share_r": "", "share_s": "", "opt_kind": "", "opt_lower": math.nan, "opt_upper": math.nan,
                  "ratio_opt_low": math.nan, "ratio_opt_high": math.nan, "online_bound": math.nan}
VERSIONS = (("Python", "python"), ("Spark", "spark"), ("numba", "numba"), ("plotly", "plotly"),
            ("pandas", "pandas"), ("numpy", "numpy"))
# written by shed compare next to report.html
DATA_LINKS = data_links(" (the suite's grid, seeds and provenance)")
NUMERIC_COLUMNS = ("skew", "skew_s", "outputs", "exact", "ratio", "ratio_opt", "opt_lower", "opt_upper",
                   "ratio_opt_low", "ratio_opt_high", "online_bound")


def build_report(results: pd.DataFrame, suite: dict, complete: bool, path: Path | str) -> Path:
    """Write the report of ``suite``'s ``results`` to ``path`` as one offline HTML file, and the
    numbers behind each figure to ``figures/<experiment id>.csv`` beside it; an incomplete suite
    (``complete`` False) says so at the top. Returns the path."""
    results = normalized(results)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    seeds = suite.get("seeds")
    sections = [experiment_section(i, exp, results, suite.get("seeds_by_experiment", {}).get(exp.get("id"), seeds),
                                   path.parent, own_suite(suite))
                for i, exp in enumerate(suite.get("experiments", []))]
    body = report_header(suite, results, complete) + contents(sections) + "".join(s.html for s in sections)
    body += findings_section(sections) + runs_table(results)
    write_text(path, page(suite.get("name", "suite"), body, sum(s.has_figure for s in sections), complete))
    return path


def own_suite(suite: dict) -> bool:
    """Whether ``suite`` is a user's own suite file, not a shipped one (a ``suite.json`` stored
    before suites recorded it: by its name)."""
    return not suite.get("shipped", suite.get("name") in SHIPPED)


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


def report_header(suite: dict, results: pd.DataFrame, complete: bool) -> str:
    """Suite name, description, the completeness banner, provenance (date, command, versions,
    commit, cores, wall time), time per policy, links to the data, and what the report reproduces."""
    runs = int(results["run_id"].nunique()) if len(results) else 0
    total = suite.get("total_runs")
    info = suite.get("provenance", {})
    facts = {"Runs": f"{runs:,}" + (f" of {total:,}" if isinstance(total, int) else ""),
             "Seeds per point": seeds_fact(suite),
             "Experiments": str(len(suite.get("experiments", [])))}
    if suite.get("master"):
        facts["Spark master"] = str(suite["master"])
    if any_bounded(results):
        facts["OPT"] = opt_fact(results, info)
    if info:
        facts |= {**provenance_facts(info),
                  "Versions": ", ".join(f"{name} {info.get(key, '-')}" for name, key in VERSIONS),
                  "Wall time": f"{info['wall_seconds']:,.1f} s (last shed compare)" if "wall_seconds" in info
                  else "- (unfinished)"}
    datasets = set(results["dataset"]) if len(results) else set()
    what = ("the synthetic experiments of" if datasets <= {"zipf"} else
            "the real-data experiment (weather reports, section 4.5) of" if "zipf" not in datasets else
            "the experiments of")
    bars = (" Bars and brackets give the seeds' lowest and highest fraction of EXACT or OPT."
            if results["seed"].nunique() > 1 else "")
    paper = "Das, Gehrke, Riedewald, <i>Approximate Join Processing Over Data Streams</i> (SIGMOD 2003), section 4"
    about = (f"A suite of your own, judged as the experiments of {paper} are: each experiment's verdict applies "
             "the checks of the paper's claim for its kind of experiment (listed under its findings), not the text "
             "of your claim." if own_suite(suite) else f"Reproduces {what} {paper}.")
    return header(f"Load shedding for sliding-window joins: {suite.get('name', '')}", str(suite.get("description", "")),
                  banner(runs, total, complete), facts,
                  f"{policy_times(results)}\n{DATA_LINKS}\n"
                  f"<p>{about} Outputs are counted after the warmup (section 4.1); every point is the "
                  f"mean over seeds.{bars}</p>\n")


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


def expected_runs(exp: dict, seeds: object) -> int | None:
    """Runs of an experiment: the product of its grid lists, times policies, times seeds."""
    if not isinstance(seeds, int):
        return None
    return math.prod(len(v) for v in exp.get("grid", {}).values()) * len(exp.get("policies", [])) * seeds


def experiment_section(index: int, exp: dict, results: pd.DataFrame, seeds: object, folder: Path, own: bool = False
                       ) -> Section:
    """One experiment of the suite's ``results``: title, claim and verdict, figure, caption, and the
    table behind the figure, also written to ``folder/figures/<id>.csv`` and linked. The findings
    see the whole suite's results, the evidence of their likely causes; on a user's own suite
    (``own``) the verdict says whose checks judged it."""
    title = str(exp.get("title", exp.get("id", "")))
    rows = results[results["experiment"] == exp.get("id")]
    notes, verdict = findings(rows, exp, results, own)
    expected = expected_runs(exp, seeds)
    count = f"{len(rows):,}" + (f" of {expected:,}" if expected is not None else "")
    missing = " (incomplete)" if expected is not None and len(rows) < expected else ""
    meta = (f'<p class="meta">Experiment <code>{escape(str(exp.get("id", "")))}</code>, figure type '
            f"{escape(str(exp.get('figure', '')))}, runs {count}{missing}.</p>")
    parts = section_head(index, str(exp.get("id", "")), title, verdict, meta)
    figure = plot_html(index, rows, exp)
    if rows.empty:
        parts.append('<p class="empty">No results yet.</p>')
    elif not figure:
        what = "share" if exp.get("figure") == "share" else str(exp.get("y", "outputs"))
        parts.append(f'<p class="empty">No {escape(what)} values to plot yet (runs needed for them are missing).</p>')
    parts += [figure, f'<p class="caption">{caption(exp, rows, seeds)}</p>']
    if not rows.empty:
        parts.append(share_table(index, rows, exp) if exp.get("figure") == "share" else line_table(index, rows, exp))
        parts.append(figure_csv(rows, exp, folder))
    parts.append("</section>\n")
    return Section(index, title, "\n".join(parts), notes, verdict, bool(figure))


def plot_html(index: int, rows: pd.DataFrame, exp: dict) -> str:
    """The figure's div and its JSON, or "" when there is nothing to plot."""
    if rows.empty:
        return ""
    fig = build_figure(rows, exp)
    return figure_html(index, fig) if has_data(fig) else ""


def figure_csv(rows: pd.DataFrame, exp: dict, folder: Path) -> str:
    """Write the numbers behind an experiment's figure to ``folder/figures/<id>.csv`` (the line
    summary of :func:`.summary.summarize`, or the share curves) and return a link to it."""
    lay = layout_of(rows, exp)
    frame = share_curves(rows, lay) if exp.get("figure") == "share" else summarize(rows, lay)
    name = f"figures/{exp.get('id', 'figure')}.csv"
    (folder / "figures").mkdir(exist_ok=True)
    write_atomically(folder / name, lambda tmp: frame.to_csv(tmp, index=False))
    return data_link(name)
