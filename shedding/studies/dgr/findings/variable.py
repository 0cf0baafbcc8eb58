"""The variable split (Das, Gehrke, Riedewald 2003, 4.3, text): PROBV and OPTV against PROB and OPT."""

from __future__ import annotations

import pandas as pd

from shedding.studies.dgr.findings.stats import gain, paired, per_seed, prefix, seed_mean, seed_range, windows_by_memory
from shedding.studies.dgr.findings.thresholds import TOLERANCE, VARIABLE, VARIABLE_GAIN
from shedding.studies.dgr.summary import Layout, facet_parts, memory_label
from shedding.studies.page.verdicts import Check


def variable_checks(rows: pd.DataFrame, lay: Layout) -> list[Check]:
    """4.3 (text, synthetic data): PROBV and OPTV beat their fixed-split counterparts, by at most 10%."""
    checks = []
    for label, part in facet_parts(rows, lay.facets):
        for var, fixed in (("probv", "prob"), ("optv", "opt")):
            seeds = per_seed(part, var, fixed, ["memory"])
            if seeds.empty:
                continue
            ratio = seed_mean(seeds)
            best, worst = ratio.idxmax(), ratio.idxmin()
            ok = bool(ratio.min() >= 1 - TOLERANCE and ratio.max() <= 1 + VARIABLE_GAIN)
            checks.append(Check(ok, f"{prefix(label)}{var.upper()} vs {fixed.upper()}: from {gain(ratio[worst])} "
                                f"(M = {worst}{seed_range(seeds, worst, gain)}) to {gain(ratio[best])} (M = {best}"
                                f"{seed_range(seeds, best, gain)}); criterion: between 0% and "
                                f"+{100 * VARIABLE_GAIN:.0f}% at every M."))
    if checks:
        checks.append(Check(None, "The memory-share part of the claim is checked by the share figure."))
    return checks


def variable_notes(rows: pd.DataFrame, lay: Layout) -> list[str]:
    """Every variable-split policy against its fixed-split counterpart: its range over M and the
    memories where it is below (4.3)."""
    notes = []
    for label, part in facet_parts(rows, lay.facets):
        windows = windows_by_memory(part)
        for var, fixed in VARIABLE.items():
            ratio = paired(part, var, fixed, ["memory"])
            if ratio.empty:
                continue
            best, worst = ratio.idxmax(), ratio.idxmin()
            below = ratio[ratio < 1 - TOLERANCE]
            notes.append(f"{prefix(label)}{var.upper()} is {gain(ratio[worst])} (M = "
                         f"{memory_label(worst, windows[worst])}) to {gain(ratio[best])} (M = "
                         f"{memory_label(best, windows[best])}) against {fixed.upper()}; "
                         + (f"below it at M = {', '.join(f'{m} ({gain(v)})' for m, v in below.items())}."
                            if len(below) else "never below it."))
    return notes
