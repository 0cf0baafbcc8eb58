"""Memory shares under the variable split (Das, Gehrke, Riedewald 2003, 4.3 text; Figure 8, 4.5): the more
skewed stream gets more memory, up to 75%; alike streams stay near 50-50."""

from __future__ import annotations

import pandas as pd

from shedding.studies.dgr.findings.stats import prefix
from shedding.studies.dgr.findings.thresholds import SHARE_EVEN, SHARE_PEAK
from shedding.studies.dgr.shares import share_curves, share_stats
from shedding.studies.dgr.summary import Layout, facet_parts
from shedding.studies.page.verdicts import Check


def _skewed_stream(rows: pd.DataFrame) -> str | None:
    """'R' or 'S' when one stream is more skewed throughout, else None."""
    if (rows["skew"] > rows["skew_s"]).all():
        return "R"
    if (rows["skew"] < rows["skew_s"]).all():
        return "S"
    return None


def share_notes(rows: pd.DataFrame, lay: Layout) -> list[str]:
    """R's largest, mean and smallest share of memory per policy from the end of the warmup to w
    steps before the end of the stream (Figure 8; :func:`shedding.studies.dgr.shares.steady_part`)."""
    stats = share_stats(share_curves(rows, lay), lay)
    notes = []
    for label, part in facet_parts(stats, lay.facets):
        for _, s in part.iterrows():
            notes.append(f"{prefix(label)}max R share of {str(s['policy']).upper()} memory: {s['hi']:.1f}% "
                         f"(mean {s['mean']:.1f}%, min {s['lo']:.1f}% from the end of the warmup to w steps before "
                         f"the end of the stream, M = {s['memory']}).")
    return notes


def share_checks(rows: pd.DataFrame, lay: Layout) -> list[Check]:
    """4.3 (text, synthetic data): the stream with the higher Zipf parameter gets more memory, up to
    a share of 75%; 4.5 (Figure 8, weather data): with alike streams the allocation stays at the
    50-50 mark for the entire duration."""
    stats = share_stats(share_curves(rows, lay), lay)
    checks = []
    for label, part in facet_parts(stats, lay.facets):
        sub = rows if not lay.facets else rows.merge(part[list(lay.facets)].drop_duplicates(), on=list(lay.facets))
        stream = _skewed_stream(sub)
        for _, s in part.iterrows():
            checks += _share_check(prefix(label) + str(s["policy"]).upper(), stream, s)
    return checks


def _share_check(who: str, stream: str | None, s: pd.Series) -> list[Check]:
    """The share checks of one policy: which stream gets more memory, and how much at most. Shares
    are of the tuples held (OPT may leave memory partly empty: it keeps only tuples that will join)."""
    if stream is None:
        ok = bool(s["lo"] >= 50 - SHARE_EVEN and s["hi"] <= 50 + SHARE_EVEN)
        return [Check(ok, f"{who}: R's share runs from {s['lo']:.1f}% to {s['hi']:.1f}% (mean {s['mean']:.1f}%) "
                          f"over the whole curve; criterion for 'more or less at the 50-50 mark for the entire "
                          f"duration' (4.5): {50 - SHARE_EVEN:.0f}-{50 + SHARE_EVEN:.0f}% at every sample.")]
    mean, peak = (s["mean"], s["hi"]) if stream == "R" else (100 - s["mean"], 100 - s["lo"])
    return [Check(bool(mean > 50), f"{who}: the more skewed stream {stream} holds {mean:.1f}% of memory on "
                  f"average (criterion: > 50%)."),
            Check(bool(peak <= SHARE_PEAK), f"{who}: {stream}'s largest share is {peak:.1f}% "
                  f"(criterion: at most the paper's {SHARE_PEAK:.0f}%).")]
