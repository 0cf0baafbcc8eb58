"""The project's hypothesis on shedding N streams (not a claim of the W-join paper, which does
not shed): DGR's orders for two streams (Das, Gehrke, Riedewald 2003, §4.1-4.3: PROB far above
RAND and LIFE, LIFE only marginally above RAND, the variable split gaining where the rates
differ) carried to N streams (:mod:`shedding.wjoin.loadshed`). Leads are in points of the exact
W-join's output, per seed, judged by the one pass criterion
(:mod:`shedding.studies.page.criterion`).
"""

from __future__ import annotations

import pandas as pd

from shedding.studies.page.criterion import Criterion, combined, judge
from shedding.studies.page.verdicts import Check, checked
from shedding.studies.wjoin.figures import label

KEYS = ["streams", "rates", "memory"]
FAR = 0.10  # "far outperforms": never behind, and ahead by at least 10 points of exact on average
MARGINAL = 0.05  # "only marginally beats": ahead by 0 to 5 points of exact at every point
LIFE_CAUSE = ("LIFE-N multiplies PROB-N's priority by the remaining lifetime, and over N streams PROB-N's "
              "priorities (products of N - 1 key frequencies) span orders of magnitude, so LIFE-N ranks tuples "
              "almost as PROB-N does")


def _fractions(rows: pd.DataFrame) -> pd.DataFrame:
    """Outputs / exact per (N, rates, M, seed), one column per policy."""
    return rows.pivot_table(index=[*KEYS, "seed"], columns="policy", values="ratio", aggfunc="mean")


def _where(lead: pd.Series) -> str:
    """The points where a per-seed lead is below 0 on average: "N = 4, variable, M = 4 (-1.2 points)"."""
    mean = lead.groupby(level=[0, 1, 2]).mean()
    return ", ".join(f"N = {n}, {r}, M = {m} ({100 * v:+.1f} points)" for (n, r, m), v in mean[mean < 0].items())


def _small_memory_cause(lead: pd.Series, who: str, whom: str) -> str:
    """Why ``who`` falls behind ``whom`` at some points, from where it does: at memories of a few
    tuples per stream, or elsewhere."""
    mean = lead.groupby(level=[0, 1, 2]).mean()
    behind = mean[mean < 0]
    if behind.empty:
        return ""
    per_stream = [m / n for (n, _, m) in behind.index]
    if max(per_stream) <= 4:
        return (f"{who} falls behind {whom} only where M leaves at most {max(per_stream):.3g} tuples per stream, "
                f"at {_where(lead)}: there a few keys' tuples fill the memory, and which of them are shed moves the "
                "outputs by more than the policies' ranking does")
    return (f"{who} falls behind {whom} at {_where(lead)}; the suite has no runs that test why (a larger memory per "
            "stream, or more seeds, would)")


def shedding_checks(rows: pd.DataFrame, exp: dict) -> list[Check]:
    """PROB far above RAND and LIFE, LIFE only marginally above RAND, the variable split gaining
    with variable rates, on N streams."""
    t = _fractions(rows)
    checks = []
    for better, worse in (("prob", "rand"), ("prob", "life")):
        if {better, worse} <= set(t.columns):
            lead = t[better] - t[worse]
            j = combined(judge(lead, Criterion(low=0.0)),
                         judge(lead.groupby(level="seed").mean(), Criterion(low=FAR)))
            cause = LIFE_CAUSE if worse == "life" else _small_memory_cause(lead, label(better), label(worse)) or \
                f"{label(better)} leads {label(worse)} by less than {FAR * 100:.0f} points on average"
            checks.append(checked(j, f"{label(better)} far outperforms {label(worse)} (never behind, and ahead by at "
                                     f"least {FAR * 100:.0f} points of exact on average): ahead or level at "
                                     f"{int((lead.groupby(level=[0, 1, 2]).mean() >= 0).sum())} of "
                                     f"{lead.groupby(level=[0, 1, 2]).ngroups} points, by "
                                     f"{lead.mean() * 100:.1f} points on average.", cause))
    if {"life", "rand"} <= set(t.columns):
        lead = t["life"] - t["rand"]
        j = judge(lead, Criterion(0.0, MARGINAL + 1e-12))
        mean = lead.groupby(level=[0, 1, 2]).mean()
        cause = LIFE_CAUSE if mean.max() > MARGINAL else _small_memory_cause(lead, "LIFE", "RAND")
        checks.append(checked(j, f"LIFE only marginally beats RAND (ahead by 0 to {MARGINAL * 100:.0f} points of exact "
                                 f"at every point): the lead ranges from {mean.min() * 100:.1f} to "
                                 f"{mean.max() * 100:.1f} points.", cause))
    if {"prob", "probv"} <= set(t.columns) and "variable" in set(rows["rates"]):
        gain = (t["probv"] - t["prob"]).xs("variable", level="rates", drop_level=False)
        j = combined(judge(gain, Criterion(low=0.0)), judge(gain.groupby(level="seed").mean(), Criterion(low=1e-12)))
        mean = gain.groupby(level=[0, 1, 2]).mean()
        checks.append(checked(j, f"With variable rates the variable split gains: PROBV >= PROB at "
                                 f"{int((mean >= 0).sum())} of {len(mean)} points and ahead on average by "
                                 f"{gain.mean() * 100:.1f} points.", _small_memory_cause(gain, "PROBV", "PROB")
                              or "PROBV gains nothing on average over PROB here"))
    return checks
