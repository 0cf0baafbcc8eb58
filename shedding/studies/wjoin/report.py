"""The page of a W-join suite (:mod:`.spec`): the shapes of Figures 9, 13 and 14 and the shedding
study.

The page has the DGR page's frame (the page toolkit, :mod:`shedding.studies.page`: provenance,
completeness banner, one section per experiment with a figure, its numbers and a CSV, the paper's
claim with this run's verdict, the findings), with the W-join figures of :mod:`.figures` and the
checks of :mod:`.checks`.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

import pandas as pd

from shedding.atomic import write_atomically, write_text
from shedding.studies.page.figures import figure_html, has_data
from shedding.studies.page.format import pct
from shedding.studies.page.page import banner, data_links, header, page, provenance_facts, seeds_fact
from shedding.studies.page.sections import Section, contents, data_link, findings_section, section_head
from shedding.studies.page.tables import runs_section, table_html
from shedding.studies.page.verdicts import Verdict
from shedding.studies.wjoin.checks import path_checks, service_checks, slow_checks, windows_checks
from shedding.studies.wjoin.figures import FACETS, FIELD_NAMES, X_FIELDS, label, summary, wjoin_figure
from shedding.studies.wjoin.shed import shedding_checks
from shedding.studies.wjoin.spec import BUDGET
from shedding.studies.wjoin.timing import RESOLUTION, Timed, per_round

CHECKS = {"service": service_checks, "slow": slow_checks, "shedding": shedding_checks, "windows": windows_checks,
          "path": path_checks}
HYPOTHESIS = "Project's hypothesis (the W-join paper does not shed)"
#: per figure, the ratios of two lines' mean service times the numbers table shows
RATIOS = {"service": (("nlw", "mw-paper"), ("nlw", "mw")), "slow": (("nlw", "mw-paper"), ("nlw", "mw")),
          "windows": (("gca", "lca"),), "path": (("lca", "pipeline"),)}


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
    compared = _ratios(rows, keys, figure, [(a, b) for a, b in RATIOS.get(figure, ()) if {a, b} <= set(policies)])
    head = [FIELD_NAMES.get(k, k) for k in keys] + ["tuples", "exact N-tuples"] + [label(p) for p in policies]
    timing = figure != "shedding"
    ratios = [(a, b) for a, b in RATIOS.get(figure, ()) if {a, b} <= set(policies)]
    head += [f"{label(a)} / {label(b)}" for a, b in ratios]
    body = []
    for key, group in stats.groupby(keys, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        by = group.set_index("policy")
        tuples, exact = counts.loc[key if len(key) > 1 else key[0]]
        row = [(str(v), True) for v in key] + [(f"{tuples:,.0f}", False), (f"{exact:,.0f}", False)]
        for p in policies:
            row.append((_cell_text(by.loc[p], timing) if p in by.index else "-", False))
        for a, b in ratios:
            ratio = compared.get((key, a, b))
            row.append((f"{ratio:.2f}" if ratio is not None else "-", False))
        body.append(row)
    note = ("Service time per tuple in microseconds (the median round's seconds over the arrivals), mean over seeds; "
            "every algorithm's N-tuples equal the exact count; a ratio of two lines is, as in the checks, the mean "
            "over seeds of each seed's median round-by-round ratio." if timing else
            "Outputs as a fraction of the exact W-join's, mean over seeds (compiled count, Form 1).")
    return table_html(index, head, body, note + " In brackets the lowest and highest seed.")


def _ratios(rows: pd.DataFrame, keys: list[str], figure: str, pairs: list[tuple[str, str]]) -> dict:
    """(point, a, b) -> the statistic the checks use (:class:`~shedding.studies.wjoin.timing.Timed`):
    the mean over seeds of each seed's median round-by-round a / b."""
    if not pairs:
        return {}
    rounds = per_round(rows, keys)
    out = {}
    for a, b in pairs:
        value = Timed.of(rounds[a] / rounds[b]).value
        for key, part in value.groupby(level=list(range(len(keys))) if len(keys) > 1 else 0):
            out[(key if isinstance(key, tuple) else (key,), a, b)] = float(part.mean())
    return out


def _cell_text(stat: pd.Series, timing: bool) -> str:
    """Mean over seeds, with the lowest and highest seed when they differ."""
    fmt = (lambda v: f"{v:.2f}") if timing else pct
    text = fmt(stat["mean"])
    if stat["n"] > 1 and fmt(stat["lo"]) != fmt(stat["hi"]):
        text += f" ({fmt(stat['lo'])}\u2013{fmt(stat['hi'])})"
    return text


def wjoin_section(index: int, exp: dict, rows: pd.DataFrame, folder: Path) -> Section:
    """One experiment: title, claim and verdict, figure, caption, the numbers and their CSV."""
    title = str(exp.get("title", exp.get("id", "")))
    checks = CHECKS[exp["figure"]](rows, exp) if not rows.empty else []
    verdict = (Verdict(str(exp["hypothesis"]), tuple(checks), HYPOTHESIS) if exp.get("hypothesis") else
               Verdict(str(exp.get("claim", "")), tuple(checks)))
    parts = section_head(index, str(exp.get("id", "")), title, verdict)
    figure = ""
    if rows.empty:
        parts.append('<p class="empty">No results yet.</p>')
    else:
        fig = wjoin_figure(rows, exp)
        if has_data(fig):
            figure = figure_html(index, fig)
        name = f"figures/{exp.get('id', 'figure')}.csv"
        (folder / "figures").mkdir(exist_ok=True)
        numbers = summary(rows, exp)
        write_atomically(folder / name, lambda tmp: numbers.to_csv(tmp, index=False))
        parts += [figure, f'<p class="caption">{escape(caption(exp, rows))}</p>', numbers_table(index, rows, exp),
                  data_link(name)]
    parts.append("</section>\n")
    return Section(index, title, "\n".join(parts), [], verdict, bool(figure))


def caption(exp: dict, rows: pd.DataFrame) -> str:
    """The setup of an experiment, from its runs."""
    def vals(name: str) -> str:
        return ", ".join(str(v) for v in sorted(rows[name].unique().tolist()))

    windows = {"windows": f"window w = {vals('window')} between A and B and {vals('small')} between every other "
                          "pair (Form 2)",
               "path": f"the directed path A>B>C>... with w = {vals('window')} per step, read also in reverse "
                       "(DWINDOW: the union of the two directions, §5.2.1)"}.get(exp["figure"],
                                                                               f"one window w = {vals('window')} "
                                                                               f"(Form 1, inclusive)")
    text = (f"Setup: synthetic streams (exponential inter-arrival times, §4.2), rates {vals('rates')}; "
            f"{vals('length')} tuples of the fastest stream, every stream cut to the span all cover; "
            f"Zipf({vals('skew')}) keys over {vals('domain')} values; {windows}; N = {vals('streams')}; "
            f"seeds {vals('seed')}.")
    if exp["figure"] == "windows":
        text += (" GCA runs the paper's MW with the widest window for every stream, LCA with each stream's widest "
                 "window (§5.1); both refine every N-tuple against the pair windows.")
    elif exp["figure"] == "path":
        text += (" NLW (pipeline) extends a new tuple along the path one neighbour at a time, once per direction; "
                 "LCA runs the paper's MW on the undirected windows completed by shortest paths and refines every "
                 "N-tuple against the directed windows.")
    if exp["figure"] == "slow":
        text += (f" Service time averaged over blocks of {vals('block')} arrivals (the paper: 1000); the switching "
                 "stream D alternates between rates 0.01 and 1 every 100 tuples (the paper: 10 and 1000 tuples/s).")
    elif exp["figure"] == "shedding":
        text += f" Memory M = {vals('memory')} tuples over all streams; fixed split M // N per stream, V = variable."
    else:
        text += " Tuples are fed in timestamp order; service time is a round's time over its arrivals."
    if exp["figure"] == "service" and "comparable" in set(rows["rates"]):
        text += (" The comparable-rate streams are synthetic, not the paper's: its Figure 9(b) joined real streams "
                 "(Wal-Mart transactions, about 5,000 per hour over all streams).")
    if exp["figure"] != "shedding":
        text += (f" Each timed run is timed after a discarded warm-up in at least {vals('repeats')} rounds, the lines "
                 f"of a point interleaved round by round, until each run has been timed for {BUDGET:g} s; the median "
                 f"round counts, and the checks compare lines round by round, deciding only beyond the middle half "
                 f"of the rounds and at least {RESOLUTION:.0%} either side of the median (the timing resolution: how "
                 f"far a ratio moved between two runs).")
    extra = str(exp.get("caption", ""))
    return text + (f" {extra}" if extra else "")


def report_header(suite: dict, results: pd.DataFrame, complete: bool) -> str:
    """Name, description, completeness banner, provenance with the load average, data links."""
    info = suite.get("provenance", {})
    runs = int(results["run_id"].nunique()) if len(results) else 0
    total = suite.get("total_runs")
    load = " to ".join(", ".join(f"{v:g}" for v in info[k]) for k in ("load_before", "load_after") if info.get(k))
    facts = {"Runs": f"{runs:,}" + (f" of {total:,}" if isinstance(total, int) else ""),
             "Seeds per point": seeds_fact(suite), "Where": str(suite.get("master", "-")),
             **provenance_facts(info), "Python": str(info.get("python", "-")),
             "Load average (1, 5, 15 min)": (load + " (before to after)") if load else "-",
             "Wall time": f"{info['wall_seconds']:,.1f} s" if "wall_seconds" in info else "- (unfinished)"}
    return header(f"Multi-way window joins: {suite.get('name', '')}", str(suite.get("description", "")),
                  banner(runs, total, complete), facts,
                  f"{data_links()}\n<p>Reproduces the shapes of Hammad, Aref, Elmagarmid, <i>Joining Multiple Data "
                  "Streams with Window Constraints</i> (2002), Figures 9, 13 and 14, and runs DGR's shedding policies on "
                  "N streams. MW (paper) is MW as the paper's Figure 6 describes (Mode 1 sweeps to the starting N-tuple "
                  "and its period, Mode 2 joins each tuple admitted to the period by nested loops); MW (optimised) scans "
                  "each buffer once for the key and enumerates the product of the matches. "
                  "Service times depend on the machine and its load (see the load average above); compare the "
                  "algorithms within one run.</p>\n")


def runs_table(results: pd.DataFrame) -> str:
    """Every run in a collapsed table."""
    head = ["run id", "experiment", "N", "rates", "seed", "algorithm / policy", "M", "outputs", "exact",
            "µs per tuple"]
    body = [[(str(r.run_id), True), (str(r.experiment), True), (str(r.streams), False), (str(r.rates), True),
             (str(r.seed), False), (label(str(r.policy)), True), (str(r.memory), False), (f"{r.outputs:,}", False),
             (f"{r.exact:,}", False), (f"{r.us_per_tuple:.2f}", False)] for r in results.itertuples()]
    return runs_section(head, body)


def build_report(results: pd.DataFrame, suite: dict, complete: bool, path: Path | str) -> Path:
    """Write the report of a W-join suite to ``path`` (one offline HTML file) and each figure's
    numbers to ``figures/<experiment id>.csv`` beside it. Returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    results = results if len(results) else pd.DataFrame(columns=["experiment", "run_id"])
    sections = [wjoin_section(i, exp, results[results["experiment"] == exp.get("id")].reset_index(drop=True),
                              path.parent) for i, exp in enumerate(suite.get("experiments", []))]
    body = report_header(suite, results, complete) + contents(sections) + "".join(s.html for s in sections)
    body += findings_section(sections) + (runs_table(results) if len(results) else "")
    write_text(path, page(suite.get("name", "suite"), body, sum(s.has_figure for s in sections), complete))
    return path
