"""The columns of a workload's files as integers: times and keys (docs/semantics.md, "Arrivals").

A time or key column holds whole numbers (as numbers or text; a float column only whole
values), else a ShedError names the file, the column and the first row that is not one, and says
what to do. Keys are text instead when most of them are not whole numbers (:func:`key_columns`);
timestamps become time steps in :mod:`shedding.datasets.times`. Row numbers count data rows from
1 (the CSV header is not a row).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NoReturn, Sequence

import numpy as np
import pandas as pd

from shedding.errors import ShedError

_INT_TEXT = re.compile(r"\s*[+-]?\d+\s*")


def first_row(mask: np.ndarray) -> int:
    """The 0-based index of the first True in ``mask``."""
    return int(np.argmax(mask))


def _too_big(path: Path, column: str, row: int) -> NoReturn:
    raise ShedError(f"{path}: column {column!r} value at row {row + 1} does not fit in 64-bit integers; "
                    f"use values below 2^63")


def _not_integer(path: Path, column: str, found: str, item: str, stepped: bool) -> NoReturn:
    """A value of ``column`` that is not an integer (``found``: where and what): for timestamps, how
    to read them as such (``stepped``: the reader takes a time step, :mod:`shedding.datasets.times`,
    named as ``time_step``) or to convert them; for keys, why they are read as integers."""
    timestamp = column == "time" and not pd.isna(pd.to_datetime(item, errors="coerce", format="mixed"))
    if timestamp and stepped:
        raise ShedError(f"{path}: column 'time' must hold integers, {found}; times are integer steps unless a time step "
                        "is given: give {param} as a length of time such as '1 minute' to read timestamps (the window "
                        "and the range as lengths of it)", param="time_step")
    raise ShedError(f"{path}: column {column!r} must hold integers, {found}; {_to_integers(column, timestamp)}")


def _to_integers(column: str, timestamp: bool) -> str:
    """What to do about a value that is not an integer, where no time step can be given."""
    if timestamp:
        return "convert the timestamps to integer steps (in seconds: (t - t.min()) // pandas.Timedelta('1s'))"
    if column == "key":
        return ("most keys of all the streams read together are whole numbers, so all are read as integers (text "
                "keys are read as text when most of them are text): fix or drop that row")
    return "map the values to integers"


def int_column(values: pd.Series, column: str, path: Path, stepped: bool = False) -> np.ndarray:
    """The column as int64, or a ShedError naming the first missing or non-integer row (and, for
    timestamps in a time column, what to do: give the time step when ``stepped``)."""
    missing = values.isna().to_numpy()
    if missing.any():
        row = first_row(missing)
        raise ShedError(f"{path}: column {column!r} has a missing value at row {row + 1}; fill or drop that row")
    dtype = values.dtype
    if dtype.kind in "iu":
        if dtype.kind == "u" and len(values) and values.max() > np.iinfo(np.int64).max:
            _too_big(path, column, first_row((values > np.iinfo(np.int64).max).to_numpy()))
        return values.to_numpy(dtype=np.int64)
    if dtype.kind == "b":
        raise ShedError(f"{path}: column {column!r} must hold integers, row 1 has a boolean; map the values to integers")
    if dtype.kind == "M":  # a Parquet timestamp column
        _not_integer(path, column, f"row 1 has the timestamp {values.iloc[0]}", str(values.iloc[0]), stepped)
    if dtype.kind == "f":
        arr = values.to_numpy(dtype=np.float64)
        bad = ~np.isfinite(arr) | (arr != np.round(arr))
        if bad.any():
            row = first_row(bad)
            raise ShedError(
                f"{path}: column {column!r} must hold integers, row {row + 1} has {arr[row].item()!r}; "
                f"round or map the values to integers"
            )
        huge = np.abs(arr) >= 2.0**63
        if huge.any():
            _too_big(path, column, first_row(huge))
        return arr.astype(np.int64)
    # text (CSV is read as text) or Python objects
    text = values.astype(str).str.strip()
    try:
        return text.astype(np.int64).to_numpy()
    except (ValueError, OverflowError, TypeError):
        pass  # find and report the first bad row below
    out = np.empty(len(text), dtype=np.int64)
    for i, item in enumerate(text):
        try:
            number: float | None = int(item) if _INT_TEXT.fullmatch(item) else float(item)
        except ValueError:
            number = None
        if number is None or not float(number).is_integer():
            _not_integer(path, column, f"row {i + 1} has {item.strip()!r}", item, stepped)
        if abs(number) >= 2**63:
            _too_big(path, column, i)
        out[i] = int(number)
    return out


def _mostly_text(values: Sequence[pd.Series]) -> bool:
    """Whether most present key values of ``values`` (all streams together) are not whole numbers:
    then the keys are text. ``shed stream-join`` decides the same way from a sample of each
    source's first file (``streaming.sources._text_type``); at exactly half, this reads integers
    (and so names the first value that is not one), where the sample reads text."""
    whole = present = 0
    for v in values:
        if v.dtype.kind in "iufbM":  # a typed (Parquet) column: numbers, read as integers
            return False
        text = v.dropna().astype(str).str.strip()
        text = text[text != ""]
        number = pd.to_numeric(text, errors="coerce").to_numpy(dtype=np.float64)
        with np.errstate(invalid="ignore"):
            whole += int((np.isfinite(number) & (number == np.round(number))).sum())
        present += len(text)
    return whole * 2 < present


def key_columns(values: Sequence[pd.Series], paths: Sequence[Path]) -> tuple[list[np.ndarray], np.ndarray | None]:
    """The key columns of one or more streams' files as int64, and the key labels (None for
    integer keys). Keys are integers when most values are whole numbers (a value that is not is an
    error naming its row); otherwise they are text, compared as written (spaces around trimmed),
    numbered together over every stream by the sorted labels, so that equal text is an equal key
    in every stream and the numbers do not depend on the files' order."""
    if not _mostly_text(values):
        return [int_column(v, "key", p) for v, p in zip(values, paths)], None
    texts = []
    for v, path in zip(values, paths):
        text = v.astype("string").str.strip()
        missing = (text.isna() | (text == "")).to_numpy(dtype=bool)
        if missing.any():
            raise ShedError(f"{path}: column 'key' has a missing value at row {first_row(missing) + 1}; fill or drop that row")
        texts.append(text.to_numpy(dtype=object))
    codes, found = pd.factorize(np.concatenate(texts))  # hashing: np.unique sorts every object, 10x slower
    labels = np.asarray(found, dtype=str)
    order = np.argsort(labels, kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return np.split(rank[codes], np.cumsum([len(x) for x in texts])[:-1]), labels[order].astype(object)


def check_stream_times(time: np.ndarray, rows: np.ndarray, what: str, path: Path) -> None:
    """Times must be >= 0 and non-decreasing within one stream (``rows``: 0-based file rows)."""
    if time.size and time.min() < 0:
        i = first_row(time < 0)
        raise ShedError(
            f"{path}: {what}time at row {rows[i] + 1} is negative ({time[i]}); shift the times so they start at 0"
        )
    back = np.diff(time) < 0
    if back.any():
        i = first_row(back) + 1
        raise ShedError(
            f"{path}: {what}times go backwards at row {rows[i] + 1} ({time[i - 1]} then {time[i]}); sort by time"
        )
