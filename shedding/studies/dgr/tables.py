"""The tables of a DGR page: the numbers behind each figure (mean over seeds with the seeds'
spread, or the bounds where OPT is only bounded) and every run."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from shedding.studies.dgr.opt_bounds import BOUNDED, LABEL, bounds_text
from shedding.studies.dgr.shares import share_curves, share_stats
from shedding.studies.dgr.summary import (FIELD_LABELS, Y_TITLES, Layout, facet_parts, field_text, layout_of,
                                          summarize, w_multiple)
from shedding.studies.page.format import pct
from shedding.studies.page.tables import runs_section, table_html


def number(value: float, y: str) -> str:
    """A table number: outputs with thousands separators, fractions as percentages, "-" if unknown."""
    if value is None or not math.isfinite(float(value)):
        return "-"
    return f"{value:,.0f}" if y == "outputs" else pct(value)


def cell(stat: pd.Series, y: str) -> str:
    """Mean over seeds, with the seeds' lowest and highest fraction (of EXACT for outputs, see
    :func:`.summary.spread_field`) when more than one seed has a value and they differ; at a
    point where OPT is only bounded, the means of its ends (:func:`.opt_bounds.bounds_text`)."""
    if pd.notna(stat.get("bounded", False)) and bool(stat.get("bounded", False)):
        return bounds_text(number(stat["bound_lo"], y), number(stat["bound_hi"], y))
    text = number(stat["mean"], y)
    lo, hi = pct(stat["lo"]), pct(stat["hi"])
    if stat["n"] > 1 and lo != hi:
        text += f" ({lo}\u2013{hi}{' of EXACT' if y == 'outputs' else ''})"
    return text


def line_table(index: int, rows: pd.DataFrame, exp: dict) -> str:
    """The numbers behind a memory, skew or domain figure: one row per point, one column per policy."""
    lay = layout_of(rows, exp)
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
    bounds = (f" 'a\u2013b ({LABEL})': OPT was too large to solve exactly (above the size limit of "
              "shed compare --max-graph-gib), so only its lower and upper bounds are known (docs/bounds.md); a and b "
              "are the means over seeds of the two ends." if "bounded" in stats and stats["bounded"].any() else "")
    return f"{Y_TITLES[lay.y]}: mean over seeds{spread}; '-' where runs are missing or OPT's output is unknown.{bounds}"


def share_table(index: int, rows: pd.DataFrame, exp: dict) -> str:
    """The numbers behind a share figure: R's share of memory after the warmup, per policy."""
    lay = layout_of(rows, exp)
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


def runs_table(results: pd.DataFrame) -> str:
    """Every run in a collapsed table: run id, experiment, seed, policy, M, outputs, EXACT, seconds."""
    head = ["run id", "experiment", "seed", "policy", "M", "outputs", "EXACT", "seconds"]
    body = [[(str(r.run_id), True), (str(r.experiment), True), (str(r.seed), False), (str(r.policy).upper(), True),
             (str(r.memory), False), (run_outputs(r), False), (f"{r.exact:,}", False),
             (f"{r.seconds:.3f}" if math.isfinite(r.seconds) else "-", False)]
            for r in results.itertuples()]
    return runs_section(head, body)


def run_outputs(r: Any) -> str:
    """A run's output count (``r``: a row of ``results.itertuples()``), or for an OPT run that is only bounded its bounds (:func:`.opt_bounds.bounds_text`)."""
    if getattr(r, "opt_kind", "") == BOUNDED:
        return bounds_text(f"{r.opt_lower:,.0f}", f"{r.opt_upper:,.0f}")
    return f"{r.outputs:,.0f}" if math.isfinite(r.outputs) else "-"
