"""Event time as users have it: integer, timestamp or date columns, cut into time steps.

The join works on whole time steps (Das, Gehrke, Riedewald, SIGMOD 2003, §2.1: a window of w
steps, one arrival batch per step). A time column becomes steps by a *step*:

* integers (and whole numbers written as text or floats: ``12``, ``"12"``, ``"12.0"``, ``12.0``):
  the step is an integer k (default 1), and value v is in step floor(v / k);
* timestamps: the step is a length of time (default ``"1 second"``), and an instant is in step
  floor(microseconds since 1970-01-01 UTC / step);
* dates: as the timestamp of their midnight UTC (default step ``"1 day"``).

``window`` and ``allowed_lateness`` are given in the same unit as the time (an integer, or a
length such as ``"10 minutes"``) and must be whole multiples of the step. Tuples r and s are
window partners iff their steps differ by at most w - 1, w = window / step. A value that is not
a whole number (``12.5``, ``"x"``, empty) or not a time, or outside 0 to :data:`TIME_LIMIT` - 1
(negative integers, instants before 1970), is a *bad row*: counted and skipped, by
one rule (:func:`whole_number_sql`, :func:`whole_numbers`) wherever a time or key is parsed.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from shedding.errors import ShedError
from shedding.timestep import describe, parse_interval

#: the time kinds
INTEGER, TIMESTAMP, DATE = "integer", "timestamp", "date"
#: times (integers, microseconds since 1970 for timestamps, days for dates) are 0 to this, less
#: one: the join operator counts non-negative steps and keeps 2^62 as its "never" (a time beyond
#: would be joined wrongly); a row outside is a bad row, and a source whose first file has one is
#: refused up front
TIME_LIMIT = 2**61


def timeout_ms(value: object, param: str) -> int:
    """A timeout in whole milliseconds (at least one): seconds as a number (``30``, ``"30"``,
    ``0.5``), or a length of time (``"30 seconds"``, a timedelta)."""
    text = str(value).strip()
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool) or \
            re.fullmatch(r"\d+(?:\.\d*)?|\.\d+", text):
        seconds = float(text)
        if not np.isfinite(seconds) or seconds <= 0:
            raise ShedError(f"{{param}} must be a positive number of seconds, got {value!r}", param=param)
        ms = round(seconds * 1000)
    else:
        ms = parse_interval(value, param) // 1000
    if ms < 1:
        raise ShedError(f"{{param}} must be at least a millisecond, got {value!r}", param=param)
    return ms


def kind_named(type_name: str, step: object) -> str:
    """The time kind of a column whose Spark type is named ``type_name`` (``bigint``,
    ``timestamp_ntz``, as a file source's types name them): timestamps with or without a time zone,
    dates, text as timestamps when ``step`` is a length of time, and numbers and other text as
    integers."""
    if type_name in ("timestamp", "timestamp_ntz") or type_name == "string" and isinstance(step, str):
        return TIMESTAMP
    return DATE if type_name == "date" else INTEGER


@dataclass(frozen=True)
class TimeAxis:
    """How a time column becomes steps: its ``kind`` and the ``step`` (time units for integers,
    microseconds for timestamps and dates)."""

    kind: str
    step: int

    @classmethod
    def of(cls, kind: str, step: object = None) -> "TimeAxis":
        """The axis of a column of ``kind`` with ``step`` (None: 1, ``"1 second"`` or ``"1 day"``)."""
        if kind == INTEGER:
            if step is None:
                return cls(kind, 1)
            if isinstance(step, str):
                raise ShedError(f"{{param}} {step!r} is a length of time, but the time column holds integers; give "
                                "an integer step (time units), or a timestamp time column", param="step")
            if isinstance(step, bool) or not isinstance(step, (int, np.integer)) or step < 1:
                raise ShedError(f"{{param}} must be an integer >= 1 for an integer time column, got {step!r}",
                                param="step")
            return cls(kind, int(step))
        default = "1 day" if kind == DATE else "1 second"
        if isinstance(step, (int, np.integer)) and not isinstance(step, bool):
            raise ShedError(f"{{param}} for a {kind} time column is a length of time such as '1 second', "
                            f"got {step!r}", param="step")
        return cls(kind, parse_interval(default if step is None else step, "step"))

    def steps(self, value: object, param: str, signed: bool = False) -> int:
        """``value`` (window or lateness, in the time's unit) as a whole number of steps; zero in any
        unit (``0``, ``"0 seconds"``) is none. ``signed``: the magnitude of a bound that may be
        negative (:meth:`signed_steps`), which errors do not call ">= 0"."""
        if isinstance(value, str) and re.fullmatch(r"\s*0+(\.0*)?\s*[a-z]+\s*", value.lower()):
            return parse_interval(value, param, zero=True)  # zero of a known unit: 0 steps of any time
        if self.kind == INTEGER:
            if isinstance(value, str) and re.search(r"[a-z]", value.lower()):
                raise ShedError(f"{{param}} {value!r} is a length of time, but the time column holds integers; give "
                                "it as an integer in the time column's unit", param=param)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
                raise ShedError(f"{{param}} must be {'an integer' if signed else 'an integer >= 0'} in the time "
                                f"column's unit, got {value!r}", param=param)
            units = int(value)
        else:
            if value == dt.timedelta(0) or isinstance(value, (int, np.integer)) and not isinstance(value, bool):
                if value in (0, dt.timedelta(0)):
                    return 0  # none, in any unit
                raise ShedError(f"{{param}} for a {self.kind} time column is a length of time such as "
                                f"'10 minutes', got {value!r}", param=param)
            units = parse_interval(value, param, zero=True)
        if units % self.step:
            raise ShedError(f"{{param}} {value!r} is not a whole number of steps ({self.describe()}); "
                            "make it a multiple of the step", param=param)
        return units // self.step

    def signed_steps(self, value: object, param: str) -> int:
        """:meth:`steps` of a bound that may be negative (``-5``, ``"-1 hour"``, a negative
        timedelta): a time range's ``lo`` and ``hi``."""
        if isinstance(value, str) and value.strip().startswith("-"):
            return -self.steps(value.strip()[1:], param, signed=True)
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value < 0:
            return -self.steps(-int(value), param, signed=True)
        if isinstance(value, dt.timedelta) and value < dt.timedelta(0):
            return -self.steps(-value, param, signed=True)
        return self.steps(value, param, signed=True)

    def units(self, steps: int) -> int | dt.timedelta:
        """``steps`` steps in the time's unit (the inverse of :meth:`steps`)."""
        if self.kind == INTEGER:
            return steps * self.step
        return dt.timedelta(microseconds=steps * self.step)

    def describe(self) -> str:
        """The step in words."""
        if self.kind == INTEGER:
            return f"step {self.step}"
        return f"step {describe(self.step)}"

    @property
    def carried(self) -> bool:
        """Whether the pairs need the original times (not the steps) carried along."""
        return self.kind != INTEGER or self.step != 1

    def step_sql(self, value: str) -> str:
        """SQL: the step of ``value``, an integer expression (see :meth:`value_sql`), floored."""
        if self.step == 1 and self.kind == INTEGER:
            return value
        scaled = f"({value}) * 86400000000" if self.kind == DATE else f"({value})"
        return f"(({scaled}) - pmod({scaled}, {self.step})) div {self.step}"


def whole_number_sql(col: str, kind: str) -> str:
    """SQL: the quoted column ``col`` of Spark type name ``kind`` as a BIGINT, null where it is
    missing or not a whole number (never truncated): the one rule for times and integer keys."""
    if kind in ("tinyint", "smallint", "int", "bigint"):
        return f"CAST({col} AS BIGINT)"
    if kind in ("float", "double") or kind.startswith("decimal"):
        return f"CASE WHEN {col} = FLOOR({col}) THEN TRY_CAST({col} AS BIGINT) END"
    if kind == "string":
        number = f"TRY_CAST(TRIM({col}) AS DECIMAL(38, 9))"
        return f"COALESCE(TRY_CAST(TRIM({col}) AS BIGINT), CASE WHEN {number} = FLOOR({number}) " \
               f"THEN TRY_CAST({number} AS BIGINT) END)"
    raise ShedError(f"a column of type {kind} holds no whole numbers")


def whole_numbers(values: pd.Series) -> pd.Series:
    """The same rule in pandas: each value as an integer, or NA (for pre-checks of files)."""
    text = values.astype("string").str.strip()
    number = pd.to_numeric(text, errors="coerce")
    whole = number.notna() & (number == np.floor(number)) & (number.abs() < 2**63)
    return number.where(whole).astype("Int64")
