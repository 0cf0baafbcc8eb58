"""Figures 9-11 (Das, Gehrke, Riedewald 2003, 4.4): the EXACT/OPT and OPT/PROB gaps as the domain grows."""

from __future__ import annotations

import pandas as pd

from shedding.studies.dgr.findings.causes import bound_fraction, joined
from shedding.studies.dgr.findings.stats import nearest_w, paired, path, prefix, windows_by_memory, without
from shedding.studies.dgr.summary import Layout, facet_parts, memory_label
from shedding.studies.page.format import pct
from shedding.studies.page.verdicts import Check


FOLLOWS = 0.02  # PROB follows the online bound when its gap to OPT is within 2 points of the bound's


def domain_gaps(rows: pd.DataFrame) -> pd.DataFrame:
    """Per domain, mean over M of EXACT/OPT - 1 and of 1 - PROB/OPT (Figures 9-11)."""
    exact = paired(rows, "exact", "opt", ["domain", "memory"])
    prob = paired(rows, "prob", "opt", ["domain", "memory"])
    gaps = {}
    if not exact.empty:
        gaps["exact_opt"] = (exact - 1).groupby(level="domain").mean()
    if not prob.empty:
        gaps["opt_prob"] = (1 - prob).groupby(level="domain").mean()
    return pd.DataFrame(gaps)


def domain_notes(rows: pd.DataFrame, lay: Layout) -> list[str]:
    """The two gaps per domain, and whether OPT meets EXACT at M = w for the largest domain (4.4)."""
    notes = []
    for label, part in facet_parts(rows, without(lay.facets, "domain")):
        gaps = domain_gaps(part)
        for domain, row in gaps.iterrows():
            notes.append(f"{prefix(label)}domain {domain}: EXACT is {pct(row.get('exact_opt'))} above OPT and "
                         f"PROB {pct(row.get('opt_prob'))} below OPT (means over M).")
        exact = paired(part, "exact", "opt", ["domain", "memory"])
        if not exact.empty:
            big = exact.index.get_level_values("domain").max()
            at = exact.xs(big, level="domain")
            windows = windows_by_memory(part[part["domain"] == big])
            m = nearest_w(list(at.index), windows)
            notes.append(f"{prefix(label)}domain {big}: EXACT/OPT = {pct(at[m])} at M = {memory_label(m, windows[m])} "
                         f"(paper, Figure 11: OPT meets EXACT at M = w).")
    return notes


def domain_checks(rows: pd.DataFrame, lay: Layout, results: pd.DataFrame | None = None) -> list[Check]:
    """4.4: as the domain grows, OPT approaches EXACT while PROB falls further from OPT, at every
    step from one domain to the next. A failure of the second is set against the online bound's
    own gap to OPT per domain."""
    checks = []
    for label, part in facet_parts(rows, without(lay.facets, "domain")):
        gaps = domain_gaps(part).sort_index()
        if len(gaps) < 2:
            continue
        small, big = gaps.index[0], gaps.index[-1]
        for col, what, shrinks in (("exact_opt", "EXACT/OPT gap", True), ("opt_prob", "OPT/PROB gap", False)):
            if col not in gaps:
                continue
            a, b = gaps.loc[small, col], gaps.loc[big, col]
            steady = gaps[col].is_monotonic_decreasing if shrinks else gaps[col].is_monotonic_increasing
            ok = bool((b < a if shrinks else b > a) and steady)
            cause = "" if ok else _domain_cause(part, col)
            checks.append(Check(ok, f"{prefix(label)}{what} {'shrinks' if shrinks else 'grows'} with the domain "
                                f"({', '.join(map(str, gaps.index))}): {path(gaps[col])} "
                                f"({'monotonic' if steady else 'not monotonic'}); criterion: monotonic, "
                                f"first to last.", cause))
    return checks


def _domain_cause(part: pd.DataFrame, col: str) -> str:
    """PROB's gap to OPT against the online bound's per domain (mean over M): when PROB follows the
    bound, the path is what no online policy can avoid on these streams."""
    bound = bound_fraction(part, ["domain", "memory"])
    if col != "opt_prob" or bound.empty:
        return joined()
    gap = (1 - bound).groupby(level="domain").mean()
    apart = domain_gaps(part)["opt_prob"] - gap
    text = (f"the online bound's gap to OPT, what no online policy can avoid on these i.i.d. streams, runs "
            f"{path(gap)} over the same domains (means over M)")
    if apart.abs().max() <= FOLLOWS:
        return (f"{text}: PROB follows what is reachable without knowing the future (within "
                f"{100 * apart.abs().max():.1f} points)")
    parts = []
    if apart.min() < -FOLLOWS:
        d = apart.idxmin()
        parts.append(f"at domain {d} PROB's gap is {100 * -apart[d]:.1f} points smaller than the bound's, which only "
                     "the static table's foresight allows (it counts each key over the whole stream, future included)")
    if apart.max() > FOLLOWS:
        d = apart.idxmax()
        parts.append(f"at domain {d} PROB's gap is {100 * apart[d]:.1f} points larger than the bound's, which its "
                     "ranking loses")
    return f"{text}; " + "; ".join(parts)
