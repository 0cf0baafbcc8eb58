"""R's share of memory over time under a variable split (Das, Gehrke, Riedewald, SIGMOD 2003,
section 4.3 and Figure 8): the mean curve over seeds from the runs' sampled shares, its steady
part, and its mean, lowest and highest share per policy.
"""

from __future__ import annotations

import json

import pandas as pd

from shedding.run import variable_split
from shedding.studies.dgr.summary import Layout


def share_curves(rows: pd.DataFrame, lay: Layout) -> pd.DataFrame:
    """R tuples in memory after admission at each sampled time step (``share_t``, ``share_r``),
    mean over seeds, and R's percentage of the tuples held (``share_s`` holds S's count; without
    it, of M) (Figure 8). Only the variable splits' runs (:func:`~shedding.run.variable_split`): a fixed
    split holds M/2 of each stream."""
    keys = _share_keys(lay)
    frames = []
    for _, run in rows[rows["policy"].astype(str).map(variable_split).astype(bool)].iterrows():
        if not isinstance(run.get("share_t"), str) or not run["share_t"]:
            continue
        t, r = json.loads(run["share_t"]), json.loads(run["share_r"])
        held = ([a + b for a, b in zip(r, json.loads(run["share_s"]))] if run.get("share_s")
                else [run["memory"]] * len(r))
        frames.append(pd.DataFrame({**{k: run[k] for k in keys}, "t": t, "r": r, "held": held}))
    if not frames:
        return pd.DataFrame(columns=[*keys, "t", "r", "seeds", "pct"])
    runs = pd.concat(frames, ignore_index=True)
    curves = runs.groupby([*keys, "t"], dropna=False).agg(r=("r", "mean"), held=("held", "mean"),
                                                         seeds=("r", "size")).reset_index()
    curves["pct"] = 100.0 * curves["r"] / curves["held"].where(curves["held"] > 0)
    return curves.sort_values([*keys, "t"], kind="stable").reset_index(drop=True)


def _share_keys(lay: Layout) -> list[str]:
    """The fields of one share curve: facets, policy, and what bounds its steady part."""
    return list(dict.fromkeys([*lay.facets, "policy", "memory", "warmup", "window", "length"]))


def steady_part(curves: pd.DataFrame, lay: Layout) -> pd.DataFrame:
    """The samples from the end of the warmup (outputs count from then on, section 4.1) to w steps
    before the end of the stream: in the last w steps a tuple can meet only partners that arrive
    before the end, so OPT lets memory drain (the end is the stream length, or for results that
    lack it the last sample + 1)."""
    last = curves.groupby(_share_keys(lay), dropna=False)["t"].transform("max") + 1
    end = curves["length"].where(curves["length"] > 0, last)
    return curves[(curves["t"] >= curves["warmup"]) & (curves["t"] < end - curves["window"])]


def share_stats(curves: pd.DataFrame, lay: Layout) -> pd.DataFrame:
    """Per (facets, policy): R's mean, min and max share of memory over the steady part of the
    mean-over-seeds curve (:func:`steady_part`)."""
    keys = _share_keys(lay)
    steady = steady_part(curves, lay)
    if steady.empty:
        return pd.DataFrame(columns=[*keys, "r_mean", "mean", "lo", "hi", "seeds"])
    stats = steady.groupby(keys, dropna=False).agg(r_mean=("r", "mean"), mean=("pct", "mean"), lo=("pct", "min"),
                                                   hi=("pct", "max"), seeds=("seeds", "max"))
    return stats.reset_index()
