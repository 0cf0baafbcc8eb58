"""``shed simulate --predicate band``: the band join's rows for the simulate command (issue 13).

The options are checked before any data is read; the attribute columns come from the workload's
own files (``--workload`` or ``--r/--s``; the Zipf generator and the weather readers offer only
``key``), aligned with the merged arrival order through the loader's ``source_row``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from shedding.errors import ShedError
from shedding.model import Workload
from shedding.band.predicate import BandWorkload, eps_texts, parse_eps

PREDICATES = ("equi", "band")


@dataclass(frozen=True)
class BandOptions:
    """The checked band flags: attribute names, eps per attribute (exact), histogram bins and the
    estimator (static or online)."""

    attrs: tuple[str, ...]
    eps: tuple[Fraction, ...]
    bins: int
    estimator: str


def check_band_options(predicate: str, eps: str | None, attrs: str | None, bins: int, estimator: str,
                       decay: float) -> BandOptions | None:
    """None for the equi-join; the band options, or a one-line ShedError, for ``--predicate band``."""
    predicate = predicate.strip().lower()
    if predicate not in PREDICATES:
        raise ShedError(f"unknown --predicate {predicate!r}; use equi or band")
    if predicate == "equi":
        if eps is not None or attrs is not None:
            raise ShedError("--eps and --attrs apply to band joins only; add --predicate band")
        return None
    if eps is None:
        raise ShedError("--predicate band needs --eps, one band width per attribute, e.g. --eps 0.5")
    names = tuple(a.strip() for a in (attrs or "key").split(","))
    if any(not a for a in names) or len(set(n.lower() for n in names)) != len(names):
        raise ShedError(f"--attrs {attrs!r} must name distinct columns separated by commas, e.g. --attrs x,y")
    if bins < 1:
        raise ShedError(f"--bins must be >= 1, got {bins}")
    if decay != 1.0:
        raise ShedError("--decay applies to equi-joins only; band histograms count every arrival equally, drop --decay")
    return BandOptions(names, tuple(parse_eps(eps, len(names))), bins, estimator.strip().lower())


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
    """One array per attribute, in the workload's arrival order."""
    from shedding.datasets.files import _read_table

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
    frames = [_read_table(p, wanted) for p in paths]
    out = {}
    for name in wanted:
        parsed = [_numbers(f[name], name, str(p), np.arange(len(f))) for f, p in zip(frames, paths)]
        col = np.zeros(len(wl), dtype=np.float64)
        for which, values in enumerate(parsed):  # one file: every row; two files: R, then S
            mask = np.ones(len(wl), dtype=bool) if len(parsed) == 1 else wl.side == which
            col[mask] = values[rows[mask]]
        out[name] = col
    return [c if c is not None else out[a.lower()] for a, c in zip(attrs, cols)]


def band_results(wl: Workload, opts: BandOptions, names: list[str], memory: int,
                 split: tuple[int, int] | None, seed: int) -> list[dict[str, Any]]:
    """One result dict per policy (exact, online policies, opt, optv) on the band join."""
    from shedding.band.simulate import BandReference
    from shedding.run import run_policy

    bw = BandWorkload.of(wl, attribute_columns(wl, opts.attrs), [str(e) for e in opts.eps], opts.attrs)
    ref = BandReference.of(bw)
    extra = {"predicate": "band", "eps": eps_texts(bw), "attrs": list(opts.attrs)}
    rows = []
    for name in names:
        res = run_policy(bw, name, memory, memory_split=split, estimator=opts.estimator, seed=seed, reference=ref,
                         bins=opts.bins)
        options = {} if name in ("exact", "opt", "optv") else {
            "estimator": opts.estimator, "policy_seed": seed if name.startswith("rand") else None}
        rows.append(res.as_dict() | extra | ({"options": options} if name not in ("opt", "optv") else {}))
    return rows
