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


def share_checks(rows: pd.DataFrame, lay: Layout, results: pd.DataFrame | None = None) -> list[Check]:
    """4.3 (text, synthetic data): the stream with the higher Zipf parameter gets more memory, up to
    a share of 75%; 4.5 (Figure 8, weather data): with alike streams the allocation stays at the
    50-50 mark for the entire duration. A peak above 75% is set against the peaks at the other
    pairs of skews the experiment ran."""
    stats = share_stats(share_curves(rows, lay), lay)
    parts = []
    for label, part in facet_parts(stats, lay.facets):
        sub = rows if not lay.facets else rows.merge(part[list(lay.facets)].drop_duplicates(), on=list(lay.facets))
        stream = _skewed_stream(sub)
        difference = float((sub["skew"] - sub["skew_s"]).abs().mean()) if "skew_s" in sub else float("nan")
        parts.append((label, part, stream, difference))
    peaks = {(str(s["policy"]), difference): _skewed_share(s, stream)[1]
             for _, part, stream, difference in parts if stream is not None for _, s in part.iterrows()}
    checks = []
    for label, part, stream, _ in parts:
        for _, s in part.iterrows():
            checks += _share_check(prefix(label) + str(s["policy"]).upper(), stream, s,
                                   {d: v for (p, d), v in peaks.items() if p == s["policy"]})
    return checks


def _skewed_share(s: pd.Series, stream: str | None) -> tuple[float, float]:
    """The more skewed stream's mean and largest share of memory."""
    return (s["mean"], s["hi"]) if stream == "R" else (100 - s["mean"], 100 - s["lo"])


def _share_check(who: str, stream: str | None, s: pd.Series, peaks: dict[float, float]) -> list[Check]:
    """The share checks of one policy: which stream gets more memory, and how much at most (``peaks``:
    the policy's largest share per difference of the skews). Shares are of the tuples held (OPT
    may leave memory partly empty: it keeps only tuples that will join)."""
    if stream is None:
        ok = bool(s["lo"] >= 50 - SHARE_EVEN and s["hi"] <= 50 + SHARE_EVEN)
        text = (f"{who}: R's share runs from {s['lo']:.1f}% to {s['hi']:.1f}% (mean {s['mean']:.1f}%) over the whole "
                f"curve; criterion for 'more or less at the 50-50 mark for the entire duration' (4.5): "
                f"{50 - SHARE_EVEN:.0f}-{50 + SHARE_EVEN:.0f}% at every sample")
        if str(s["policy"]).startswith("opt"):  # Figure 8 is the online allocation: the paper ran no OPT there
            return [Check(None, f"{text}. Not judged: the paper's Figure 8 shows the online policy's allocation "
                                "(it ran no OPT on the weather data, 4.5).")]
        return [Check(ok, f"{text}.", "" if ok else "the variable split follows the two streams' key frequencies, "
                      "which differ here; the suite has no runs that test further")]
    mean, peak = _skewed_share(s, stream)
    cause = ""
    if peak > SHARE_PEAK:
        listed = ", ".join(f"{v:.1f}% at a skew difference of {d:g}" for d, v in sorted(peaks.items()))
        grows = len(peaks) > 1 and list(dict(sorted(peaks.items())).values()) == sorted(peaks.values())
        if grows:
            cause = (f"the share grows with how far apart the skews are ({listed}), and the paper does not state the "
                     "pairs behind its 75%")
        elif mean <= SHARE_PEAK:
            low = s["lo"] if stream == "R" else 100 - s["hi"]
            cause = (f"a swing, not the tendency: {stream}'s share runs from {low:.1f}% to {peak:.1f}% around a mean "
                     f"of {mean:.1f}%, within the paper's 75%" + (f"; largest shares at the pairs run: {listed}"
                                                                   if len(peaks) > 1 else ""))
        else:
            cause = (f"the mean share, {mean:.1f}%, is above 75% too; the paper does not state the pairs of skews "
                     "behind its 75%" + (f", and the largest shares at the pairs run ({listed}) do not grow with "
                                         "the difference" if len(peaks) > 1 else ", and the suite runs no other pair"))
    return [Check(bool(mean > 50), f"{who}: the more skewed stream {stream} holds {mean:.1f}% of memory on "
                  f"average (criterion: > 50%).", "" if mean > 50 else "the variable split favours the stream whose "
                  "keys the other stream's arrivals match more often, which the skew alone does not decide"),
            Check(bool(peak <= SHARE_PEAK), f"{who}: {stream}'s largest share is {peak:.1f}% (mean {mean:.1f}%; "
                  f"criterion: at most the paper's {SHARE_PEAK:.0f}%).", cause)]
