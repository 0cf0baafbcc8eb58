"""``shed simulate --predicate band``: the band join's rows.

The attribute columns come from the workload's own files (``--workload`` or ``--r/--s``; the
Zipf generator and the weather readers offer only ``key``), aligned with the merged arrival
order through the loader's ``source_row``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from shedding.band.predicate import BandWorkload, eps_texts
from shedding.cli.rows import online_options
from shedding.errors import ShedError
from shedding.model import Memory, Workload


def _numbers(values: pd.Series, column: str, where: str, rows: np.ndarray) -> np.ndarray:
    """A column as float64 (text parsed as decimals); a missing or non-numeric value is an error
    naming its row."""
    parsed = pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(parsed)
    if bad.any():
        i = int(np.argmax(bad))
        raw = values.iloc[i]
        what = "a missing value" if pd.isna(raw) or str(raw).strip() == "" else f"{str(raw).strip()!r}, not a number"
        raise ShedError(f"{where}: column {column!r} has {what} at row {int(rows[i]) + 1}; fill or drop that row")
    return parsed


def attribute_columns(wl: Workload, attrs: tuple[str, ...]) -> list[np.ndarray]:
    """One array per attribute, in the workload's arrival order; the key only when it holds
    numbers (text keys are numbered for the equi-join, and their numbers have no distance)."""
    from shedding.datasets.files import stream_table

    labels = wl.meta.get("key_labels")
    if labels is not None and any(a.lower() == "key" for a in attrs):
        raise ShedError(f"--attrs key: this workload's keys are text ({str(labels[0])!r}, ...), which have no "
                        "distance for a band join; give numeric columns with --attrs, or use --predicate equi")
    cols: list[np.ndarray | None] = [wl.key if a.lower() == "key" else None for a in attrs]
    wanted = [a.lower() for a, c in zip(attrs, cols) if c is None]
    if not wanted:
        return cols  # type: ignore[return-value]
    source, fmt = wl.meta.get("source"), wl.meta.get("format")
    if source is None or fmt in ("ndp", "synop") or (isinstance(fmt, tuple) and set(fmt) & {"ndp", "synop"}):
        raise ShedError(f"unknown attribute {wanted[0]!r}: this workload has only 'key'; give CSV/Parquet files "
                        f"(--workload or --r/--s) with that column, or use --attrs key")
    rows = wl.meta["source_row"]
    paths = [source] if isinstance(source, str) else list(source)
    frames = [stream_table(p, wanted) for p in paths]
    out = {}
    for name in wanted:
        parsed = [_numbers(f[name], name, str(p), np.arange(len(f))) for f, p in zip(frames, paths)]
        col = np.zeros(len(wl), dtype=np.float64)
        for which, values in enumerate(parsed):  # one file: every row; two files: R, then S
            mask = np.ones(len(wl), dtype=bool) if len(parsed) == 1 else wl.side == which
            col[mask] = values[rows[mask]]
        out[name] = col
    return [c if c is not None else out[a.lower()] for a, c in zip(attrs, cols)]


def band_results(wl: Workload, attrs: tuple[str, ...], eps: str, bins: int, estimator: str, names: list[str],
                 budget: Memory, seed: int) -> list[dict[str, Any]]:
    """One result dict per policy (exact, online policies, opt, optv) on the band join
    ``|r.a - s.a| <= eps_a`` for every ``a`` of ``attrs`` with the checked memory ``budget``;
    ``options`` holds a row's online options."""
    from shedding.band.simulate import BandReference
    from shedding.run import run_policy

    bw = BandWorkload.of(wl, attribute_columns(wl, attrs), eps, attrs)
    ref = BandReference.of(bw)
    extra = {"predicate": "band", "eps": eps_texts(bw), "attrs": list(attrs)}
    rows = []
    for name in names:
        res = run_policy(bw, name, budget, estimator=estimator, seed=seed, reference=ref, bins=bins)
        rows.append(res.as_dict() | extra | {"options": online_options(name, estimator, None, seed)})
    return rows
