"""Figure 7 (Das, Gehrke, Riedewald 2003, 4.5): the weather reports, PROB's fraction of EXACT at M = w and
PROBV against PROB."""

from __future__ import annotations

import pandas as pd

from shedding.studies.dgr.findings.memory import memory_notes, prob_exact_check
from shedding.studies.dgr.findings.stats import paired, prefix
from shedding.studies.dgr.findings.thresholds import WEATHER_SAME
from shedding.studies.dgr.findings.variable import variable_notes
from shedding.studies.dgr.summary import Layout, facet_parts
from shedding.studies.page.verdicts import Check


def weather_notes(rows: pd.DataFrame, lay: Layout) -> list[str]:
    """Figure 7: the memory notes plus the variable split's gains (4.5)."""
    return memory_notes(rows, lay) + variable_notes(rows, lay)


def weather_checks(rows: pd.DataFrame, lay: Layout, results: pd.DataFrame | None = None) -> list[Check]:
    """4.5: PROB gives over 90% of EXACT's output with 50% of the memory (M = w); PROB and PROBV
    are almost identical."""
    checks = []
    for label, part in facet_parts(rows, lay.facets):
        checks += prob_exact_check(label, part, results)
        ratio = paired(part, "probv", "prob", ["memory"])
        if not ratio.empty:
            spread = float((ratio - 1).abs().max())
            checks.append(Check(bool(spread <= WEATHER_SAME), f"{prefix(label)}PROBV and PROB differ by at most "
                                f"{100 * spread:.1f}% (criterion: {100 * WEATHER_SAME:.0f}%; "
                                "paper: almost identical)."))
    return checks
