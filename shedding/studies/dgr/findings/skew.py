"""Figure 6 (Das, Gehrke, Riedewald 2003, 4.3): PROB's and RAND's fraction of OPT as the Zipf skew grows,
judged on uncorrelated streams."""

from __future__ import annotations

import pandas as pd

from shedding.studies.dgr.findings.stats import paired, per_seed, prefix, seed_mean, without
from shedding.studies.dgr.findings.thresholds import REFERENCE, SKEW_HIGH, SKEW_PROB
from shedding.studies.dgr.summary import Layout, facet_parts, field_text, memory_label
from shedding.studies.page.format import pct
from shedding.studies.page.verdicts import Check


def skew_notes(rows: pd.DataFrame, lay: Layout) -> list[str]:
    """Figure 6: PROB's and RAND's fraction of OPT at the lowest skew, at Zipf 1 and at the highest
    skew, and the effect of correlation on PROB (4.3)."""
    notes = []
    for label, part in facet_parts(rows, without(lay.facets, "correlation")):
        for corr, sub in part.groupby("correlation"):
            prob, rand = (paired(sub, p, "opt", ["skew"]) for p in ("prob", "rand"))
            where = f"{prefix(label)}{field_text('correlation', corr)}"
            where += f", {_memories(sub)}" + ("" if corr == "independent" else " (not part of the verdict: "
                                               "the paper's Figure 6 plots uncorrelated streams)")
            shown = sorted({prob.index.min(), prob.index.max(), *(s for s in prob.index if s == SKEW_HIGH)})
            for skew in shown if not prob.empty else []:
                notes.append(f"{where}: PROB reaches {pct(prob[skew])} of OPT at Zipf {skew:g}"
                             + (f" (RAND {pct(rand[skew])})." if skew in rand.index else "."))
        by_corr = paired(part, "prob", "opt", ["correlation", "skew"])
        if by_corr.index.nlevels > 1 and by_corr.index.get_level_values("correlation").nunique() > 1:
            by_corr = by_corr.unstack("correlation")
            diff = (by_corr.max(axis=1) - by_corr.min(axis=1)).max()
            notes.append(f"{prefix(label)}Correlation changes PROB's fraction of OPT by up to "
                         f"{100 * diff:.1f} points (paper: almost identical).")
    return notes


def _memories(rows: pd.DataFrame) -> str:
    """The memories of ``rows`` with their multiples of w ("M = 200 (0.5w)")."""
    return ", ".join(sorted({f"M = {memory_label(m, w)}" for m, w in zip(rows["memory"], rows["window"])}))


def _high_skew(rows: pd.DataFrame) -> pd.Series:
    """PROB's fraction of OPT per skew >= SKEW_HIGH and seed (4.3's "moderate to high skew")."""
    prob = per_seed(rows, "prob", "opt", ["skew"])
    return prob[prob.index.get_level_values("skew") >= SKEW_HIGH] if not prob.empty else prob


def _skew_cause(part: pd.DataFrame) -> str:
    """Why uncorrelated streams miss the 96%, when correlated ones of the same suite reach it."""
    same = _high_skew(part[part["correlation"] == "same"])
    if same.empty or seed_mean(same).min() < SKEW_PROB:
        return REFERENCE
    return (f"{REFERENCE}; with correlated streams (the same keys frequent on both sides) PROB reaches at least "
            f"{pct(seed_mean(same).min())} of OPT, the paper's figure, so the paper's 'uncorrelated' streams may "
            "have shared their frequent keys")


def skew_checks(rows: pd.DataFrame, lay: Layout) -> list[Check]:
    """4.3: PROB over 96% of OPT for moderate to high skew; RAND falls behind as skew grows. Judged on
    uncorrelated streams, which Figure 6 plots (other correlations are findings), when there are any."""
    checks = []
    for label, part in facet_parts(rows, without(lay.facets, "correlation")):
        judged = part[part["correlation"] == "independent"]
        for corr, sub in (judged if not judged.empty else part).groupby("correlation"):
            where = f"{prefix(label)}{field_text('correlation', corr)}: "
            rand = paired(sub, "rand", "opt", ["skew"])
            high = _high_skew(sub)
            if not high.empty:
                mean = seed_mean(high)
                ok = bool(mean.min() >= SKEW_PROB)
                checks.append(Check(ok, f"{where}PROB reaches {pct(mean.min())} to {pct(mean.max())} of OPT for skew "
                                    f">= {SKEW_HIGH:g} (seeds from {pct(high.min())}; {_memories(sub)}); criterion: "
                                    f">= {pct(SKEW_PROB)} at every such skew.", "" if ok else _skew_cause(part)))
            prob = paired(sub, "prob", "opt", ["skew"])
            both = pd.concat({"prob": prob, "rand": rand}, axis=1).dropna()
            if len(both) > 1:
                lo, hi = both.index.min(), both.index.max()
                gap_lo, gap_hi = (both.loc[s, "prob"] - both.loc[s, "rand"] for s in (lo, hi))
                checks.append(Check(bool(gap_hi > gap_lo and both.loc[hi, "rand"] < both.loc[lo, "rand"]),
                                    f"{where}RAND reaches {pct(both.loc[lo, 'rand'])} of OPT at skew {lo:g} and "
                                    f"{pct(both.loc[hi, 'rand'])} at {hi:g}; PROB's lead over RAND goes from "
                                    f"{100 * gap_lo:.1f} to {100 * gap_hi:.1f} points."))
    return checks
