"""The report where OPT is only bounded: intervals instead of one number.

An OPT/OPTV run whose exact network is above the suite's size limit records
``opt_lower <= OPT <= opt_upper`` (Das, Gehrke, Riedewald 2003, §3.2; the bounds of docs/bounds.md,
:func:`.execute.solve_or_bound`) and leaves ``outputs`` unknown; every fraction of OPT at its
point becomes the interval ``ratio_opt_low .. ratio_opt_high`` (:func:`.ratios.with_opt_ratio`).
This module turns those columns into the low and high ends a figure or table shows for its y
field, averaged over seeds like every other point (the mean of the bounds bounds the mean).
"""

from __future__ import annotations

import pandas as pd

from shedding.studies.page.format import pct

BOUNDED = "bounds"  # the ``opt_kind`` of a bounded run
LABEL = "OPT bounds"
#: the per-point columns :func:`bound_stats` adds to a figure's summary
COLUMNS = ("bound_lo", "bound_hi", "bounded")
#: the findings' check line where some OPT is bounded
CHECK_TEXT = ("OPT is only bounded at some points (its exact network is above the size limit); checks against "
              "OPT use only the runs where OPT was solved exactly, and the bounded points are in the notes.")


def any_bounded(rows: pd.DataFrame) -> bool:
    """Whether some run of ``rows`` has OPT (or OPTV) only bounded."""
    return "opt_kind" in rows and bool(rows["opt_kind"].eq(BOUNDED).any())


def interval(rows: pd.DataFrame, y: str) -> pd.DataFrame:
    """Per run, the ``low`` and ``high`` ends of its value of ``y`` (outputs, ratio of EXACT, or
    ratio_opt) and whether that value is ``bounded`` (only an interval is known); equal ends and
    False where everything is exact."""
    own = rows["opt_kind"].eq(BOUNDED) if "opt_kind" in rows else pd.Series(False, index=rows.index)
    if y == "ratio_opt":
        low, high = rows["ratio_opt_low"], rows["ratio_opt_high"]
        return pd.DataFrame({"low": low, "high": high, "bounded": own | (rows["ratio_opt"].isna() & low.notna())})
    scale = 1.0 if y == "outputs" else 1.0 / rows["exact"].where(rows["exact"] > 0)
    low = (rows["opt_lower"] * scale).where(own, rows[y]) if "opt_lower" in rows else rows[y]
    high = (rows["opt_upper"] * scale).where(own, rows[y]) if "opt_upper" in rows else rows[y]
    return pd.DataFrame({"low": low, "high": high, "bounded": own})


def bound_stats(rows: pd.DataFrame, keys: list[str], y: str) -> pd.DataFrame:
    """Per ``keys``: the mean over seeds of the low and high ends (``bound_lo``, ``bound_hi``;
    unknown when some seed's end is) and whether any seed is ``bounded``."""
    ends = interval(rows, y)
    frame = pd.concat([rows[keys], ends], axis=1)
    grouped = frame.groupby(keys, dropna=False)
    stats = pd.DataFrame({"bound_lo": grouped["low"].mean(), "bound_hi": grouped["high"].mean(),
                          "bounded": grouped["bounded"].any()})
    known = grouped["low"].count().eq(grouped.size()) & grouped["high"].count().eq(grouped.size())
    stats.loc[~known, ["bound_lo", "bound_hi"]] = float("nan")
    return stats.reset_index()


def bounds_text(low: str, high: str) -> str:
    """A bounded value as a table shows it: "a–b (OPT bounds)", or "a (OPT bounds meet)" when
    the two ends print alike."""
    return f"{low} ({LABEL} meet)" if low == high else f"{low}\u2013{high} ({LABEL})"


def series_label(name: str, policy: str, y: str) -> str:
    """The legend name of a line's bounded points: "OPT bounds" (OPTV bounds) for OPT's own line
    in an outputs or fraction-of-EXACT figure, else "PROB (OPT bounds)"."""
    return f"{name} bounds" if policy in ("opt", "optv") and y != "ratio_opt" else f"{name} ({LABEL})"


def bounds_notes(rows: pd.DataFrame) -> list[str]:
    """The findings' account of the bounded points of one experiment: how many, OPT's bounds and
    their gap, and each policy's fraction of OPT there as an interval."""
    if not any_bounded(rows):
        return []
    notes = []
    for policy, runs in rows[rows["opt_kind"].eq(BOUNDED)].groupby("policy", sort=True):
        total = int(rows["policy"].eq(policy).sum())
        gap = ((runs["opt_upper"] - runs["opt_lower"]) / runs["opt_upper"].where(runs["opt_upper"] > 0)).max()
        notes.append(f"{str(policy).upper()} is bounded, not solved, in {len(runs)} of {total} runs (its exact "
                     f"network is above the size limit, shed compare --max-graph-gib): lower bounds "
                     f"{runs['opt_lower'].min():,.0f} to {runs['opt_lower'].max():,.0f}, upper bounds "
                     f"{runs['opt_upper'].min():,.0f} to {runs['opt_upper'].max():,.0f}, gap at most {pct(gap)} "
                     "(docs/bounds.md).")
    if "ratio_opt_low" in rows:
        ends = interval(rows, "ratio_opt")
        at = rows[ends["bounded"] & ~rows["policy"].eq("opt")]
        for policy, runs in at.groupby("policy", sort=True):
            notes.append(f"Where OPT is bounded, {str(policy).upper()} reaches between "
                         f"{pct(ends.loc[runs.index, 'low'].min())} and {pct(ends.loc[runs.index, 'high'].max())} "
                         f"of OPT ({len(runs)} runs; lowest low and highest high).")
    return notes
