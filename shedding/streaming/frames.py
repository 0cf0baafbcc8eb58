"""Row bookkeeping of a shard's tables (held-back and resident tuples, pandas frames): where a pair's
tuples sit, one table after another, and the released rows' canonical order."""

from __future__ import annotations

import numpy as np
import pandas as pd


def positions(seq: np.ndarray, first: int, wanted: np.ndarray) -> np.ndarray:
    """The rows of the sequence numbers ``wanted`` in ``seq``: sorted, and consecutive from ``first``
    on, so those rows are found by subtraction and only older ones by binary search (a pair's S
    tuple mostly arrived in this batch; 4x faster than searching all at 40,000 arrivals)."""
    older = int(np.searchsorted(seq, first))
    rows = wanted - (first - older)
    old = wanted < first
    if old.any():
        rows[old] = np.searchsorted(seq[:older], wanted[old])
    return rows


def append_rows(table: pd.DataFrame, rows: pd.DataFrame) -> pd.DataFrame:
    """``table`` then ``rows``, renumbered (an empty side is skipped: it has no dtypes to merge)."""
    if not len(rows):
        return table
    if not len(table):
        return rows.reset_index(drop=True)
    return pd.concat([table, rows], ignore_index=True)


def canonical(ready: pd.DataFrame, numeric: list[str], columns: list[str]) -> pd.DataFrame:
    """The released rows in the canonical order: the ``numeric`` columns (time, side, key,
    original time), then the rest of ``columns`` (original keys, payload), which are compared only
    when the numeric columns leave ties."""
    order = np.lexsort(tuple(ready[c].to_numpy() for c in reversed(numeric)))
    rest = [c for c in columns if c not in numeric]
    if rest and len(order) > 1:
        values = np.stack([ready[c].to_numpy()[order] for c in numeric])
        if (values[:, 1:] == values[:, :-1]).all(axis=0).any():  # ties: the other columns decide
            return ready.sort_values([*numeric, *rest], kind="mergesort")
    return ready.iloc[order]
