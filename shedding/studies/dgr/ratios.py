"""Every DGR run as a fraction of OPT's output at its point (Das, Gehrke, Riedewald 2003, §4,
Figures 6 and 9-11), added to the results once the runs are read back: OPT's output at each
point (same workload, seed, window and memory) gives every run of that point its fraction. Where
OPT is only bounded the fraction is an interval (:mod:`.opt_bounds`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from shedding.studies.dgr.spec import POINT_FIELDS


def with_opt_columns(results: pd.DataFrame) -> pd.DataFrame:
    """``results`` with the OPT columns of :func:`.execute.solve_or_bound`; results stored before they
    existed hold only exact OPT/OPTV runs (kind "exact", both bounds equal to ``outputs``)."""
    results = results.copy()
    solved = results.policy.isin(["opt", "optv"])
    if "opt_kind" not in results:
        results["opt_kind"] = np.where(solved, "exact", "")
    for column in ("opt_lower", "opt_upper"):
        if column not in results:
            results[column] = results.outputs.where(solved).astype(float)
    return results


def _fraction(part: pd.Series, whole: pd.Series, opt_zero: pd.Series) -> pd.Series:
    """``part / whole``; 1.0 for 0 of an OPT of 0 (as the exact ``ratio_opt``), NaN where
    ``whole`` is 0 or unknown otherwise."""
    out = part / whole.where(whole > 0)
    out[opt_zero & part.eq(0)] = 1.0
    return out


def with_opt_ratio(results: pd.DataFrame) -> pd.DataFrame:
    """Add ``ratio_opt``: outputs over OPT's outputs at the same point (same workload, seed,
    window and memory); NaN where the point has no OPT run or where OPT, or this run's own
    OPT/OPTV output, is only bounded. ``ratio_opt_low`` and ``ratio_opt_high`` bracket the
    fraction: this run's lowest known output over OPT's upper bound and its highest over OPT's
    lower bound (equal to ``ratio_opt`` where everything is exact; 1 for the OPT run itself)."""
    fractions = ("ratio_opt", "ratio_opt_low", "ratio_opt_high")
    if results.empty:
        return results.assign(**{name: pd.Series(dtype=float) for name in fractions})
    results = with_opt_columns(results)
    point = [c for c in POINT_FIELDS if c in results]  # results stored before cell_size and source existed lack them
    opt = results[results.policy == "opt"][point + ["outputs", "opt_lower", "opt_upper"]].rename(
        columns={"outputs": "opt_outputs", "opt_lower": "ref_lower", "opt_upper": "ref_upper"})
    merged = results.drop(columns=list(fractions), errors="ignore").merge(opt, on=point, how="left")
    zero = merged.ref_upper.eq(0)  # OPT is 0, so every run's output is 0
    bounded = merged.opt_kind.eq("bounds")
    merged["ratio_opt"] = _fraction(merged.outputs, merged.opt_outputs, zero)
    merged["ratio_opt_low"] = _fraction(merged.opt_lower.where(bounded, merged.outputs), merged.ref_upper, zero)
    merged["ratio_opt_high"] = _fraction(merged.opt_upper.where(bounded, merged.outputs), merged.ref_lower, zero)
    merged.loc[merged.policy.eq("opt") & merged.ref_upper.notna(), ["ratio_opt_low", "ratio_opt_high"]] = 1.0
    return merged.drop(columns=["opt_outputs", "ref_lower", "ref_upper"])
