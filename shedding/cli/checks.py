"""The first half of the validation layer: each flag's own value, checked while typer parses it.

Every factory here returns a typer option callback (``typer.Option(..., callback=integer(1))``),
so a value is refused before the command starts, in one line that names the flag:

* :func:`integer`: a 64-bit integer within bounds;
* :func:`number`: a finite float within bounds (NaN and infinity are refused);
* :func:`choice`: one name of a list (the library's own, :func:`listed_in`), in any case;
* :func:`names`: a comma list of such names (policies), each once;
* :func:`integers`: a comma list of 64-bit integers >= 0 (memory splits);
* :func:`decimals`: a comma list of finite decimals >= 0 that an exact 64-bit grid can hold;
* :func:`columns`: a comma list of distinct column names;
* :func:`gib`: a size in GiB whose bytes fit a 64-bit integer;
* :func:`table_file`: the name of a CSV or Parquet file to write (the extension picks the format);
* :func:`spark_master`: a Spark master checked before the JVM sees it;
* :func:`parsed`: a library parser of the value's syntax, its errors named with the flag;
* :func:`value_check`: any other ``check(flag, value)``.

The second half, :mod:`shedding.cli.rules`, checks the flags together once all are parsed.
"""

from __future__ import annotations

import math
from decimal import Decimal, InvalidOperation
from importlib import import_module
from typing import Any, Callable, Iterable, Sequence, Union

import typer

from shedding.errors import ShedError

INT64_MAX = 2**63 - 1
#: decimal places whose scale 10**k still fits a 64-bit integer (the exact grid of distances)
MAX_PLACES = 18

Names = Union[Sequence[str], Callable[[], Iterable[str]]]
Check = Callable[[str, Any], Any]


def flag_name(param: Any) -> str:
    """The flag a user typed for ``param`` (its long option, else its name: ``DIR``)."""
    opts = [o for o in getattr(param, "opts", ()) if o.startswith("--")]
    if opts:
        return opts[0]
    return (getattr(param, "metavar", None) or param.name).upper()


def value_check(check: Check) -> Callable[[typer.Context, typer.CallbackParam, Any], Any]:
    """A typer callback that runs ``check(flag, value)`` on a given value (None stays None) and
    passes on what it returns; every factory below is one."""

    def callback(ctx: typer.Context, param: typer.CallbackParam, value: Any) -> Any:
        if value is None or ctx.resilient_parsing:
            return value
        return check(flag_name(param), value)

    return callback


def in_int64(flag: str, value: int) -> int:
    """``value`` if it fits a signed 64-bit integer, else a ShedError naming ``flag``."""
    if not -INT64_MAX - 1 <= value <= INT64_MAX:
        raise ShedError(f"{flag} {value} does not fit in 64-bit integers; give at most {INT64_MAX}")
    return value


def integer(low: int, high: int | None = None) -> Callable:
    """An integer >= ``low`` (and <= ``high``) that fits in 64 bits."""

    def check(flag: str, value: int) -> int:
        in_int64(flag, value)
        if value < low or (high is not None and value > high):
            raise ShedError(f"{flag} must be >= {low}{'' if high is None else f' and <= {high}'}, got {value}")
        return value

    return value_check(check)


def _bounds(low: float | None, above: bool, high: float | None) -> str:
    parts = ([f"{'>' if above else '>='} {low:g}"] if low is not None else []) + \
            ([f"<= {high:g}"] if high is not None else [])
    return " " + " and ".join(parts) if parts else ""


def number(low: float | None = None, *, above: bool = False, high: float | None = None) -> Callable:
    """A finite number >= ``low`` (> ``low`` with ``above``) and <= ``high``."""

    def check(flag: str, value: float) -> float:
        if not math.isfinite(value) or (low is not None and (value < low or (above and value == low))) or \
                (high is not None and value > high):
            raise ShedError(f"{flag} must be a finite number{_bounds(low, above, high)}, got {value}")
        return value

    return value_check(check)


def skews() -> Callable:
    """One Zipf skew for both streams, or R's and S's (``0.5,1.5``): finite numbers >= 0, passed
    on as the pair (R's, S's)."""

    def check(flag: str, text: str) -> tuple[float, float]:
        parts = split_list(text)
        if len(parts) > 2:
            raise ShedError(f"{flag} takes one skew for both streams or two, R's and S's (e.g. 0.5,1.5); got {text!r}")
        values = []
        for i, part in enumerate(parts):
            where = flag if len(parts) == 1 else f"{flag} value {i + 1} of 2 ({'RS'[i]}'s skew)"
            try:
                value = float(part)
            except ValueError:
                raise ShedError(f"{where}: {part!r} is not a number; give a skew such as 1.0, or R's and S's such as "
                                "0.5,1.5") from None
            if not math.isfinite(value) or value < 0:
                raise ShedError(f"{where} must be a finite number{_bounds(0, False, None)}, got {part}")
            values.append(value)
        return values[0], values[-1]

    return value_check(check)


#: the largest size in GiB a flag takes: its bytes still fit a 64-bit integer (4 EiB)
MAX_GIB = float(2**32)


def gib() -> Callable:
    """A size in GiB > 0 whose bytes (the library counts bytes) fit a 64-bit integer."""
    return number(0, above=True, high=MAX_GIB)


def table_file(flag: str, text: str) -> str:
    """The name of a CSV or Parquet file to write: its extension picks the format, so a name
    that names neither is refused rather than written in a format it does not promise."""
    from pathlib import Path

    from shedding.datasets.files import format_of

    format_of(Path(text), f"give {flag} a name ending in .csv, .csv.gz, .parquet or .pq")
    return text


def listed_in(module: str, name: str, *more: str) -> Callable[[], tuple[str, ...]]:
    """The names the library lists in ``module.name`` (a tuple, or a dict's keys), and ``more``:
    read when a flag is checked, so that --help imports no library module."""
    return lambda: (*getattr(import_module(module), name), *more)


def _listed(names: Names) -> list[str]:
    return list(names() if callable(names) else names)


def _one_of(flag: str, name: str, valid: Names, noun: str | None = None, hint: str = "",
            advice: dict[str, str] | None = None) -> str:
    options = _listed(valid)
    key = name.strip().lower()
    if advice and key in advice:  # a name the user may well try here, with what to do instead
        raise ShedError(f"{flag} {name.strip()!r} {advice[key]}")
    if "," in key:  # no name holds a comma: a list where one name goes
        raise ShedError(f"{flag} takes one {noun or 'value'}, got {name.strip()!r}; choose one of "
                        f"{', '.join(options)}")
    if key not in options:
        what = f"{flag}: unknown {noun}" if noun else f"unknown {flag}"
        raise ShedError(f"{what} {name.strip()!r}; choose from {', '.join(options)}{hint}")
    return key


def choice(valid: Names, noun: str | None = None, hint: str = "", advice: dict[str, str] | None = None) -> Callable:
    """One of ``valid`` in any case (``--graph KEYED``), returned in lower case. ``valid`` may be
    a function, so the list is read from the library only when the flag is used; ``noun`` names
    what the value is (a policy), ``hint`` ends the error; ``advice`` maps names that are not
    valid here but that a user may try (``exact``) to the rest of their one-line error."""
    return value_check(lambda flag, value: _one_of(flag, value, valid, noun, hint, advice))


def split_list(text: str) -> list[str]:
    """The items of a comma list, stripped (empty items kept, so a stray comma is seen)."""
    return [part.strip() for part in text.split(",")]


def names(valid: Names, noun: str = "policy") -> Callable:
    """A comma list of ``valid`` names (any case), each once, returned as a normalized comma list."""

    def check(flag: str, text: str) -> str:
        items = split_list(text)
        if not any(items):
            raise ShedError(f"{flag} is empty; give one or more of {', '.join(_listed(valid))}")
        if not all(items):  # a stray comma
            raise ShedError(f"{flag} {text.strip()!r} has an empty {noun} name; give names separated by single "
                            f"commas, e.g. {flag} {','.join(filter(None, items))}")
        chosen = [_one_of(flag, item, valid, noun) for item in items]
        twice = next((name for i, name in enumerate(chosen) if name in chosen[:i]), None)
        if twice is not None:
            raise ShedError(f"{flag} names {twice} twice; give each {noun} once")
        return ",".join(chosen)

    return value_check(check)


def parse_integers(flag: str, text: str, count: int | None = None) -> tuple[int, ...]:
    """``"200,200"`` (or ``200:200``) as integers >= 0 that fit in 64 bits; ``count`` of them
    when given."""
    example = ",".join(["200"] * (count or 2))
    try:
        values = tuple(int(part) for part in text.replace(":", ",").split(","))
    except ValueError:
        raise ShedError(f"{flag} must be integers separated by commas such as {example}, got {text!r}") from None
    if count is not None and len(values) != count:
        raise ShedError(f"{flag} must be {count} integers such as {example}, got {text!r}")
    for value in values:
        in_int64(flag, value)
        if value < 0:
            raise ShedError(f"{flag} parts must be >= 0, got {text!r}")
    return values


def parse_split(flag: str, text: str) -> tuple[int, int]:
    """``"200,200"`` as a memory split (M_R, M_S): :func:`parse_integers` of exactly two."""
    m_r, m_s = parse_integers(flag, text, 2)
    return m_r, m_s


def integers(count: int | None = None) -> Callable:
    """A comma list of integers >= 0 (``count`` of them when given); the text is kept."""

    def check(flag: str, text: str) -> str:
        parse_integers(flag, text, count)
        return text

    return value_check(check)


def parse_decimals(flag: str, text: str, several: bool = True) -> list[Decimal]:
    """A comma list of finite decimals >= 0, each with at most :data:`MAX_PLACES` decimal places
    (exact comparison puts them on a 64-bit integer grid); ``several=False``: one value."""
    parts = split_list(text) if several else [text.strip()]
    out = []
    for i, part in enumerate(parts):
        where = f"{flag} value {i + 1} of {len(parts)}" if several and len(parts) > 1 else flag
        try:
            value = Decimal(part)
            if value.is_nan():
                raise InvalidOperation
        except InvalidOperation:
            raise ShedError(f"{where}: {part!r} is not a number; give decimal numbers such as 0.25") from None
        if not value.is_finite():
            raise ShedError(f"{where} is {part}; give finite numbers")
        if value < 0:
            raise ShedError(f"{where} is {part}, a negative distance; give values >= 0")
        exponent = value.as_tuple().exponent
        if isinstance(exponent, int) and -exponent > MAX_PLACES:
            raise ShedError(f"{where} {part} has {-exponent} decimal places; exact comparison holds at most "
                            f"{MAX_PLACES}, round it")
        out.append(value)
    return out


def decimals(several: bool = True) -> Callable:
    """Finite decimals >= 0 (a comma list, or one value); the text is kept."""

    def check(flag: str, text: str) -> str:
        parse_decimals(flag, text, several)
        return text

    return value_check(check)


def columns() -> Callable:
    """A comma list of distinct, non-empty column names (any case counts as the same name)."""

    def check(flag: str, text: str) -> str:
        items = split_list(text)
        if any(not item for item in items) or len({item.lower() for item in items}) != len(items):
            raise ShedError(f"{flag} {text!r} must name distinct columns separated by commas, e.g. {flag} x,y")
        return text

    return value_check(check)


def named(error: ShedError, flag: str) -> str:
    """A library error about the value of ``flag``, naming the flag: where it names its parameter,
    else in front."""
    if error.param is not None:
        return error.naming(flag)
    return str(error) if flag in str(error) else f"{flag}: {error}"


def spark_master(flag: str, text: str) -> str:
    """A master Spark knows: local[*], local[N] with N >= 1, spark://HOST:PORT, yarn, k8s://...,
    mesos://... (checked here, so that a bad one never reaches the JVM and its exception text)."""
    from shedding.spark import check_master

    try:
        check_master(text.strip(), reach=False)
    except ShedError as exc:
        raise ShedError(named(exc, flag)) from None
    return text.strip()


def parsed(parse: Callable[[str], Any]) -> Callable:
    """The value's syntax as the library reads it (``parse`` raises ShedError); the text is kept."""

    def check(flag: str, text: str) -> str:
        try:
            parse(text)
        except ShedError as exc:
            raise ShedError(named(exc, flag)) from None
        return text

    return value_check(check)
