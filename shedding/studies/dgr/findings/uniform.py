"""Figure 5 (Das, Gehrke, Riedewald 2003, 4.2): on uniform keys the online policies are alike and OPT
gains little."""

from __future__ import annotations

import pandas as pd

from shedding.studies.dgr.findings.memory import linearity
from shedding.studies.dgr.findings.stats import gain, prefix, seed_mean, seed_outputs, seed_range
from shedding.studies.dgr.findings.thresholds import ONLINE, UNIFORM_OPT_CAUSE, UNIFORM_OPT_GAIN, UNIFORM_SPREAD
from shedding.studies.dgr.summary import Layout, facet_parts
from shedding.studies.page.format import pct
from shedding.studies.page.verdicts import Check


def uniform_notes(rows: pd.DataFrame, lay: Layout) -> list[str]:
    """Figure 5: RAND's linearity in M (4.1)."""
    notes = []
    for label, part in facet_parts(rows, lay.facets):
        notes += linearity(part, label)
    return notes


def uniform_checks(rows: pd.DataFrame, lay: Layout) -> list[Check]:
    """4.2: on uniform data the online policies produce about the same output, and "even knowing
    the future (OPT curve) does not result in a major improvement"."""
    checks = []
    for label, part in facet_parts(rows, lay.facets):
        outputs = seed_outputs(part, ["memory", "seed"])
        online = [p for p in ONLINE if p in outputs]
        if len(online) >= 2:
            top = outputs[online].max(axis=1)
            spread = seed_mean(((top - outputs[online].min(axis=1)) / top.where(top > 0)).fillna(0))
            checks.append(Check(bool(spread.max() <= UNIFORM_SPREAD), f"{prefix(label)}"
                                f"{'/'.join(p.upper() for p in online)}: the worst is at most {pct(spread.max())} "
                                f"below the best (at M = {spread.idxmax()}, mean over seeds); criterion: within "
                                f"{pct(UNIFORM_SPREAD)} at every M."))
        if "opt" in outputs and online:
            lead = outputs["opt"] / outputs[online].max(axis=1).where(lambda v: v > 0)
            mean = seed_mean(lead.dropna())
            ok = bool(mean.max() <= 1 + UNIFORM_OPT_GAIN)
            top_m = mean.idxmax()
            checks.append(Check(ok, f"{prefix(label)}OPT is {gain(mean.min())} to {gain(mean.max())} above the best "
                                f"online policy over M (largest at M = {top_m}{seed_range(lead, top_m, gain)}); "
                                f"criterion for 'no major improvement' (4.2): at most {gain(1 + UNIFORM_OPT_GAIN)} "
                                "at every M.", "" if ok else UNIFORM_OPT_CAUSE))
    return checks
