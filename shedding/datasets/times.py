"""Each stream's time column as time steps: integers as they are (or cut by an integer step), and
timestamps or dates cut by a length of time (docs/semantics.md, "Arrivals").

The join works on whole time steps (Das, Gehrke, Riedewald, SIGMOD 2003, §2.1: a window of w
steps). A *time step* tells how a time column becomes steps, by the rule ``shed stream-join``
uses (:mod:`shedding.streaming.event_time`), so that the batch commands and the streaming join
cut the same files into the same steps:

* none: the times are integer steps as written (:func:`~shedding.datasets.columns.int_column`);
* an integer k >= 1: integer times, time v in step floor(v / k);
* a length of time (``"1 minute"``, a timedelta; :func:`~shedding.timestep.parse_interval`):
  timestamps (text such as ``2013-01-01 05:17`` or ``2013-01-01T05:17:00+01:00``, a Parquet
  timestamp) or dates (as their midnight), an instant in step floor(microseconds since
  1970-01-01 UTC / step). A time without an offset is UTC, as in a Spark session in UTC. The
  steps are then counted from the first step of all streams (step 0), so that the default warmup
  (2w) and ``--warmup`` count from the start of the data; a shift changes no pair, since pairs
  depend only on differences of steps.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import NoReturn, Sequence

import numpy as np
import pandas as pd

from shedding.datasets.columns import first_row, int_column
from shedding.errors import ShedError
from shedding.timestep import describe, parse_interval

_EPOCH = pd.Timestamp(0, tz="UTC")
#: a time of day followed by an offset from UTC (``05:17Z``, ``05:17:00.5+01:00``, ``05:17-0500``)
#: the values of a text time column looked at for an offset (:func:`has_offset`)
_LOOKED_AT = 1000
_OFFSET = r"\d:\d{2}(?::\d{2}(?:\.\d+)?)?\s*(?:Z|[+-]\d{2}(?::?\d{2})?)$"


def step_of(time_step: object) -> tuple[bool, int]:
    """(timestamps, size): whether ``time_step`` cuts timestamps (a length of time, size in
    microseconds) or integers (None or an integer k >= 1, size k)."""
    if time_step is None:
        return False, 1
    if isinstance(time_step, (int, np.integer)) and not isinstance(time_step, bool):
        if time_step < 1:
            raise ShedError(f"{{param}} must be an integer >= 1 (integer times) or a length of time such as "
                            f"'1 minute' (timestamps), got {time_step!r}", param="time_step")
        return False, int(time_step)
    if isinstance(time_step, (str, dt.timedelta)):
        return True, parse_interval(time_step, "time_step")
    raise ShedError(f"{{param}} must be an integer >= 1 or a length of time such as '1 minute', got "
                    f"{type(time_step).__name__} {time_step!r}", param="time_step")


def timestamp_micros(values: pd.Series, path: Path) -> np.ndarray:
    """A time column of timestamps or dates as microseconds since 1970-01-01 UTC (int64); a
    missing value, a value that is no timestamp or a column of numbers is a ShedError naming the
    row."""
    if values.dtype.kind in "iufb":
        _numbers(path, values.iloc[0])
    if values.dtype.kind == "M":
        stamps = pd.to_datetime(values, utc=True)
        text = values.astype("string")
    else:
        text = values.astype("string").str.strip()
        missing = (text.isna() | (text == "")).to_numpy(dtype=bool)
        if missing.any():
            raise ShedError(f"{path}: column 'time' has a missing value at row {first_row(missing) + 1}; fill or "
                            "drop that row")
        if pd.to_numeric(text.iloc[:1], errors="coerce").notna().all():
            _numbers(path, text.iloc[0])
        stamps = _parsed(text)
    bad = stamps.isna().to_numpy(dtype=bool)
    if bad.any():
        row = first_row(bad)
        raise ShedError(f"{path}: column 'time' at row {row + 1} has {text.iloc[row]!r}, not a timestamp (years 1678 to "
                        "2261, e.g. 2013-01-01 05:17:00); fix or drop that row")
    return ((stamps - _EPOCH) // pd.Timedelta(microseconds=1)).to_numpy(dtype=np.int64)


def _numbers(path: Path, first: object) -> NoReturn:
    """A time step of a length of time for a column of numbers (``first``: its row 1)."""
    raise ShedError(f"{path}: column 'time' holds numbers, not timestamps (row 1 has {first!r}); give the window and "
                    "the range in the column's units, as integers, and the time step as an integer or not at all")


def _parsed(text: pd.Series) -> pd.Series:
    """Text as instants in UTC: ISO 8601 (then other layouts, such as 05/17/2013 05:17, value by
    value), those with an offset and those without apart (pandas reads a time without an offset
    in the offset of the value before it when the two are mixed)."""
    aware = text.str.contains(_OFFSET, regex=True).to_numpy(dtype=bool)
    stamps = pd.Series(pd.NaT, index=text.index, dtype="datetime64[ns, UTC]")
    for part in (aware, ~aware):
        if part.any():
            stamps[part] = pd.to_datetime(text[part], utc=True, format="ISO8601", errors="coerce")
    retry = stamps.isna().to_numpy(dtype=bool)
    if retry.any():
        stamps[retry] = pd.to_datetime(text[retry], utc=True, format="mixed", errors="coerce")
    return stamps


def time_steps(values: Sequence[pd.Series], paths: Sequence[Path], time_step: object = None
               ) -> tuple[list[np.ndarray], dict]:
    """The time columns of the streams' files (one per file, ``paths`` naming them) as int64 time
    steps, the first step of all of them step 0 for timestamps, and what the
    workload's ``meta`` records of them: for timestamps the step (``time_step``, in words) and
    the instant step 0 begins (``time_origin``, ISO 8601 in UTC)."""
    timestamps, size = step_of(time_step)
    if not timestamps:
        return [int_column(v, "time", p, stepped=True) // size for v, p in zip(values, paths)], {}
    micros = [timestamp_micros(v, p) for v, p in zip(values, paths)]
    firsts = [int(m.min()) // size for m in micros if m.size]
    origin = min(firsts, default=0)
    meta = {"time_step": describe(size), "time_origin": (_EPOCH + pd.Timedelta(microseconds=origin * size)).isoformat()}
    offset = [has_offset(v) for v in values]
    if any(offset) and not all(offset):  # some read as UTC for want of an offset, beside instants that have one
        meta["naive_times"] = sorted({str(p) for p, aware in zip(paths, offset) if not aware})
    return [m // size - origin for m in micros], meta


def has_offset(values: pd.Series) -> bool:
    """Whether a column of timestamps says where in the world its times are: a time zone (Parquet,
    pandas) or, as text, an offset from UTC (``05:17Z``, ``05:17+01:00``) on one of its first
    :data:`_LOOKED_AT` values (a file writes its times one way: only a notice depends on it)."""
    if values.dtype.kind == "M":
        return getattr(values.dt, "tz", None) is not None
    text = values.head(_LOOKED_AT).astype("string").str.strip()
    return bool(text.str.contains(_OFFSET, regex=True).fillna(False).any())
