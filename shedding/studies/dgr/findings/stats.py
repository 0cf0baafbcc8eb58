"""Seed statistics of the DGR findings: policies compared run by run within a seed, then averaged
over seeds, with the seeds' range, and where the paper quotes its numbers (M = w)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from shedding.studies.page.format import pct


def gain(value: float) -> str:
    """A ratio as a signed percentage change (1.023 -> +2.3%)."""
    return "-" if not np.isfinite(value) else f"{100 * (value - 1):+.1f}%"


def per_seed(rows: pd.DataFrame, a: str, b: str, keys: list[str]) -> pd.Series:
    """outputs(a) / outputs(b) per ``keys`` and seed, pairing runs of the same seed (0/0 counts
    as 1, like the runner's ``ratio_opt``); empty when a policy is missing or its output is
    unknown everywhere (an OPT only bounded)."""
    if not {a, b} <= set(rows["policy"]):
        return pd.Series(dtype=float)
    table = seed_outputs(rows, [*keys, "seed"])
    if not {a, b} <= set(table.columns):
        return pd.Series(dtype=float)
    ratio = table[a] / table[b].where(table[b] > 0)
    ratio[(table[a] == 0) & (table[b] == 0)] = 1.0
    return ratio.dropna()


def seed_mean(ratio: pd.Series) -> pd.Series:
    """A per-seed series (:func:`per_seed`) averaged over its seeds, per key."""
    return ratio.groupby(level=list(range(ratio.index.nlevels - 1))).mean()


def paired(rows: pd.DataFrame, a: str, b: str, keys: list[str]) -> pd.Series:
    """Mean over seeds of outputs(a) / outputs(b) per ``keys`` (see :func:`per_seed`)."""
    ratio = per_seed(rows, a, b, keys)
    return ratio if ratio.empty else seed_mean(ratio)


def seed_range(ratio: pd.Series, key: object, fmt: Callable[[float], str] = pct) -> str:
    """" (seeds 89.1% to 91.0%)": the lowest and highest seed of a per-seed series at ``key``; ""
    for one seed."""
    values = ratio.xs(key, level=0) if ratio.index.nlevels > 1 else ratio
    return "" if len(values) < 2 else f" (seeds {fmt(values.min())} to {fmt(values.max())})"


def seed_outputs(rows: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Outputs per ``keys`` (mean over any runs sharing them), one column per policy."""
    return rows.pivot_table(index=keys, columns="policy", values="outputs", aggfunc="mean")


def windows_by_memory(rows: pd.DataFrame) -> dict:
    """The window of each memory of ``rows``."""
    return rows.groupby("memory")["window"].first().to_dict()


def nearest_w(memories: list[int], windows: dict) -> int:
    """The memory closest to M = w, where the paper quotes its numbers."""
    return min(memories, key=lambda m: (abs(m / windows[m] - 1) if windows[m] else m, m))


def without(facets: tuple[str, ...], name: str) -> tuple[str, ...]:
    """The facets without ``name``, a field a check compares across (correlation, domain)."""
    return tuple(f for f in facets if f != name)


def prefix(label: str) -> str:
    """A facet's label as the start of a sentence ("w = 400: "), "" without facets."""
    return f"{label}: " if label else ""


def at_w(part: pd.DataFrame, a: str, b: str) -> tuple[int, dict, pd.Series] | None:
    """outputs(a) / outputs(b) per memory, with the memory nearest M = w and the windows; None
    when that memory has no pair."""
    windows = windows_by_memory(part)
    m = nearest_w(list(windows), windows) if windows else None
    ratio = paired(part, a, b, ["memory"])
    return (m, windows, ratio) if m is not None and m in ratio.index else None


#: the fields that make two experiments' runs the same workload (with the window and memory)
SHAPE = ("dataset", "skew", "skew_s", "domain", "length", "correlation", "window", "warmup", "estimator",
         "cell_size")


def same_shape(results: pd.DataFrame | None, rows: pd.DataFrame, **changed: object) -> pd.DataFrame:
    """The runs of a whole suite (``results``; other experiments too) on the workloads of
    ``rows``, but for the fields in ``changed`` (e.g. ``correlation="same"``, or None for any
    value): the suite's own evidence for a likely cause. Empty when the suite has none."""
    if results is None or results.empty or rows.empty:
        return rows.iloc[:0]
    keep = pd.Series(True, index=results.index)
    for name in SHAPE:
        if name not in rows or name not in results:
            continue
        if name in changed and changed[name] is None:  # any value
            continue
        wanted = [changed[name]] if name in changed else rows[name].dropna().unique().tolist()
        keep &= results[name].isin(wanted)
    return results[keep]


def step_changes(seeds: pd.Series) -> pd.Series:
    """From one key to the next (a one-level key, e.g. the skew), each seed's change of a per-seed
    series (key, seed); indexed by (the step's upper key, seed)."""
    table = seeds.unstack(-1).sort_index()
    return table.diff().iloc[1:].stack()


def path(values: pd.Series, fmt: Callable[[float], str] = pct) -> str:
    """A series over its key as "a -> b -> c"."""
    return " -> ".join(fmt(v) for v in values)
