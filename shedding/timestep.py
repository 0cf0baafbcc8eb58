"""Lengths of time, as users write them (``"10 minutes"``, ``"1.5 s"``, a timedelta), in microseconds:
the one grammar of a time step, a window or a range given in event time, for the batch commands
reading files of timestamps (:mod:`shedding.datasets.times`) and for the streaming join
(:mod:`shedding.streaming.event_time`). docs/semantics.md, "Arrivals", states how timestamps
become time steps.
"""

from __future__ import annotations

import datetime as dt
import re

from shedding.errors import ShedError

#: microseconds per unit, by every name a length may use (a plural ``s`` is dropped first)
UNITS = {"us": 1, "microsecond": 1, "ms": 1_000, "millisecond": 1_000, "s": 1_000_000, "sec": 1_000_000,
         "second": 1_000_000, "m": 60_000_000, "min": 60_000_000, "minute": 60_000_000,
         "h": 3_600_000_000, "hour": 3_600_000_000, "d": 86_400_000_000, "day": 86_400_000_000,
         "w": 604_800_000_000, "week": 604_800_000_000}


def parse_interval(value: object, param: str, zero: bool = False) -> int:
    """A length of time in microseconds: ``"10 minutes"``, ``"1.5 s"``, ``"500 ms"`` or a timedelta;
    positive, or with ``zero`` also none (``"0 seconds"``)."""
    if isinstance(value, dt.timedelta):
        micros = value // dt.timedelta(microseconds=1)
    else:
        m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-z]+?)s?\s*", str(value).lower())
        if not m or m.group(2) not in UNITS:
            raise ShedError(f"{{param}} {value!r} is not a length of time; write e.g. '1 second', '10 minutes', "
                            "'500 ms' (units us, ms, s, min, h, d, week)", param=param)
        micros = round(float(m.group(1)) * UNITS[m.group(2)])
    if micros < 0 or micros == 0 and not zero:
        raise ShedError(f"{{param}} must be a positive length of time, got {value!r}", param=param)
    return int(micros)


def describe(micros: int) -> str:
    """A length of time in words, in its largest whole unit: ``"1 minute"``, ``"10 minutes"`` (as
    :func:`parse_interval` reads it back)."""
    unit = next(name for name, size in sorted(UNITS.items(), key=lambda u: (-u[1], -len(u[0])))
                if micros % size == 0)
    count = micros // UNITS[unit]
    return f"{count} {unit}{'' if count == 1 else 's'}"
