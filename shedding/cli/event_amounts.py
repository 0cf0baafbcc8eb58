"""The amounts of event time ``shed stream-join`` takes (``--window``, ``--range``, ``--allowed-lateness``,
``--idle-timeout``): integers in the time column's unit or lengths of time (``10 minutes``), checked
where they are given and turned into steps of the time axis once it is known."""

from __future__ import annotations

import re
from typing import Any, Callable

from shedding.cli.checks import in_int64, split_list, value_check
from shedding.errors import ShedError


def time_amount(flag: str, text: str, low: int) -> int | str:
    """An amount of event time as given: an integer >= ``low`` (the time column's units) or a
    length of time (``10 minutes``), checked but kept as text."""
    value = text.strip()
    if re.fullmatch(r"[+-]?\d+", value):
        number = in_int64(flag, int(value))
        if number < low:
            raise ShedError(f"{flag} must be >= {low}, got {number}")
        return number
    from shedding.timestep import parse_interval

    try:
        micros = parse_interval(value, flag, zero=True)
    except ShedError:
        raise ShedError(f"{flag} {text!r} is neither an integer (time units of an integer time column) nor a "
                        "length of time such as '10 minutes' (timestamps)") from None
    if micros == 0:
        if low > 0:
            raise ShedError(f"{flag} must be a positive length of time, got {text!r}")
        return 0  # none, in any unit
    return value


def amount(low: int) -> Callable:
    """A typer callback: :func:`time_amount`, parsed once; the rules and the body take the amount
    it gives (an integer, or the text of a length of time)."""
    return value_check(lambda flag, text: time_amount(flag, text, low))


def check_timeout(flag: str, text: str) -> str:
    """Seconds (``30``) or a length of time (``30 seconds``), at least a millisecond."""
    from shedding.streaming.event_time import timeout_ms

    try:
        timeout_ms(text, flag)
    except ShedError as exc:
        raise ShedError(exc.naming(flag)) from None
    return text


def range_amounts(flag: str, text: str) -> tuple[int | str, int | str]:
    """``LO,HI`` as two amounts of event time (:func:`time_amount`), either may be negative:
    ``0,720`` or ``0 seconds,12 hours``. An integer is kept whole, however large: the range's own
    check (:func:`~shedding.timerange.check_range`) gives its limits."""
    parts = split_list(text)
    if len(parts) != 2 or not all(parts):
        raise ShedError(f"{flag} {text!r} is not LO,HI: give two bounds, e.g. {flag} 0,720 or "
                        f"{flag} '0 seconds,12 hours' (lo <= s.time - r.time <= hi)")
    bounds: list[int | str] = []
    for part in parts:
        if re.fullmatch(r"[+-]?\d+", part):
            bounds.append(int(part))
            continue
        negative = part.startswith("-")
        value = time_amount(flag, part[1:].strip() if negative else part, 0)
        bounds.append(-value if isinstance(value, int) and negative else f"-{value}" if negative else value)
    return bounds[0], bounds[1]


def check_range_text(flag: str, text: str) -> str:
    """:func:`range_amounts`, the text kept."""
    range_amounts(flag, text)
    return text


def given_amounts(window: int | str, range_text: str | None, step: int | str | None,
                  lateness: int | str | None = None) -> dict[str, int | str]:
    """The amounts of event time as given, by flag (what :func:`axis_of` reads): the window, or
    the range's bounds (``--range`` and ``--range hi``); the allowed lateness, where the command
    takes one; the time step, when given. Integers or lengths of time, as :func:`time_amount`
    parsed them."""
    given: dict[str, int | str] = {"--window": window}
    if range_text is not None:
        given = dict(zip(("--range", "--range hi"), range_amounts("--range", range_text)))
    if lateness is not None:
        given["--allowed-lateness"] = lateness
    if step is not None:
        given["--time-step"] = step
    return given


def axis_of(given: dict[str, int | str], step: int | str | None) -> Any:
    """The time axis (:class:`~shedding.streaming.event_time.TimeAxis`) that the amounts ``given``
    (flag -> amount as :func:`time_amount` parsed it; ``--range`` and ``--range hi`` for a range's
    bounds) imply: integers for integer times, or lengths of time for timestamps, cut by ``step``
    (by default 1 or 1 second). A zero in any unit (a range's bound, no lateness) is either; a mix
    of the two is refused naming both flags."""
    from shedding.streaming.event_time import INTEGER, TIMESTAMP, TimeAxis

    lengths = [f.split()[0] for f, a in given.items() if isinstance(a, str)]
    numbers = [f.split()[0] for f, a in given.items() if isinstance(a, int) and not (f != "--window" and a == 0)]
    if lengths and numbers:
        raise ShedError(f"{lengths[0]} is a length of time but {numbers[0]} a number; give both in the time column's "
                        "unit: integers for integer times, lengths such as '10 minutes' for timestamps")
    return TimeAxis.of(TIMESTAMP if lengths else INTEGER, step)


def join_range(axis: Any, text: str) -> tuple[int, int]:
    """``--range LO,HI`` in steps of ``axis``, checked (lo <= hi, within 64-bit times)."""
    from shedding.timerange import check_range

    return check_range(tuple(axis.signed_steps(b, "range") for b in range_amounts("--range", text)))


def join_extent(axis: Any, window: int | str, text: str | None) -> tuple[int, tuple[int, int] | None]:
    """(w, bounds): the window in steps of ``axis``, or, given ``--range`` ``text``, its bounds
    (:func:`join_range`) and the window they are run under (:func:`range_window`). The rule that
    checks the flags before Spark starts and the job, once its sources name the time's type, both
    take them from here."""
    bounds = None if text is None else join_range(axis, text)
    return (axis.steps(window, "window") if bounds is None else range_window(bounds)), bounds


def range_window(bounds: tuple[int, int]) -> int:
    """The window a range is given under: the longest a tuple waits, plus one
    (:func:`~shedding.timerange.range_horizon`)."""
    from shedding.timerange import range_horizon

    return range_horizon(*bounds)


def instant(flag: str, text: str) -> int | str:
    """``--warmup`` of ``shed stream-join``: an integer >= 0 (a step of the time axis) or an
    instant (``2013-03-01 06:00``, ISO 8601; UTC without an offset), checked but kept as text
    (:func:`warmup_step` places it on the axis)."""
    value = text.strip()
    if re.fullmatch(r"[+-]?\d+", value):
        number = in_int64(flag, int(value))
        if number < 0:
            raise ShedError(f"{flag} must be >= 0, got {number}")
        return number
    _micros(flag, value)
    return value


def _micros(flag: str, text: str) -> int:
    """The instant ``text`` in microseconds since 1970-01-01 UTC (without an offset: UTC)."""
    import pandas as pd

    try:
        stamp = pd.to_datetime(text, utc=True)  # without an offset UTC, with one converted
    except (ValueError, TypeError, OverflowError):
        stamp = pd.NaT
    if stamp is pd.NaT:
        raise ShedError(f"{flag} {text!r} is neither a time step (an integer) nor an instant such as "
                        "'2013-03-01 06:00'")
    micros = (stamp - pd.Timestamp(0, tz="UTC")) // pd.Timedelta(microseconds=1)
    if micros < 0:
        raise ShedError(f"{flag} {text!r} is before 1970, where no time step begins; give a later instant")
    return int(micros)


def warmup_step(flag: str, warmup: int | str, axis: Any) -> int:
    """``--warmup`` (:func:`instant`) as a step of ``axis`` (a
    :class:`~shedding.streaming.event_time.TimeAxis`): an integer as it is; an instant, on
    timestamps or dates, the step it falls in (floor(microseconds since 1970 UTC / step)), so pairs
    count from that step on."""
    from shedding.streaming.event_time import INTEGER

    if isinstance(warmup, int):
        return warmup
    if axis.kind == INTEGER:
        raise ShedError(f"{flag} {warmup!r} is an instant, but the time column holds integers; give the first time "
                        "step whose pairs count")
    return _micros(flag, warmup) // axis.step
