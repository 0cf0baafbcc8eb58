"""Estimators of the partner-arrival probabilities p_R(v), p_S(v) (paper §3.3.1).

The paper's experiments use a static frequency table over the whole stream; an online system
can only count what it has seen ("use history to predict the future", §3.3.1), optionally
forgetting old arrivals with exponential decay.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from shedding.errors import ShedError
from shedding.model import Workload


@dataclass(frozen=True)
class StaticEstimator:
    """Key frequencies known in advance: ``counts_r[i]``, ``counts_s[i]`` for ``keys[i]``.
    Keys outside the table have probability 0. ``age_curves`` (f[s, a], partners per tuple at
    age a) and ``rates`` (arrivals per step per side), when given, are AGE's known age curve
    (Srivastava and Widom 2004); without them AGE estimates its curve online."""

    keys: np.ndarray
    counts_r: np.ndarray
    counts_s: np.ndarray
    age_curves: np.ndarray | None = None
    rates: np.ndarray | None = None

    @classmethod
    def from_workload(cls, wl: Workload, ages: bool = False) -> "StaticEstimator":
        """The frequency table of a whole workload, as in the paper's experiments (§4); with
        ``ages`` also its age curves and arrival rates (:func:`~shedding.online.ageing.known_curves`)."""
        if not ages:
            return cls(*wl.key_counts())
        from shedding.online.ageing import known_curves

        return cls(*wl.key_counts(), *known_curves(wl))


@dataclass(frozen=True)
class OnlineEstimator:
    """Counts of the arrivals seen so far (including the current batch, before admission).

    ``decay`` in (0, 1] is the weight an arrival keeps per time step: 1 counts everything
    equally, 0.999 has a half-life of about 693 steps.
    """

    decay: float = 1.0

    def __post_init__(self) -> None:
        if not (0.0 < self.decay <= 1.0):
            raise ShedError(f"{{param}} must be in (0, 1], got {self.decay}; use 1 for plain counts", param="decay")


Estimator = StaticEstimator | OnlineEstimator


#: the file formats whose workloads default to the online estimator (CSV and Parquet: any data;
#: the weather formats are the paper's own data, §4.5, and keep its static table)
ONLINE_FORMATS = ("csv", "parquet")


def default_estimator(wl: Workload) -> str:
    """The estimator a run on ``wl`` takes when none is given: ``static``, the whole stream's key
    counts, only where those counts are the model itself (the paper's i.i.d. Zipf streams and its
    weather data, §4); ``online``, the counts so far, on every other workload (a CSV or Parquet file,
    the flights, the beyond-i.i.d. generators: the registry's
    :attr:`~shedding.datasets.generators.Source.estimator`), where the static counts would tell a
    policy which keys are still to come. A workload built by hand keeps the paper's static table."""
    from shedding.datasets.generators import GENERATORS

    source = GENERATORS.get(str(wl.meta.get("generator", "")))
    if source is not None:
        return source.estimator
    formats = wl.meta.get("format")
    formats = formats if isinstance(formats, tuple) else (formats,)
    return "online" if any(f in ONLINE_FORMATS for f in formats) else "static"


def check_estimator(name: str, decay: float = 1.0) -> str:
    """The estimator's name (``static`` or ``online``, any case) if it and ``decay`` go together,
    else a ShedError; callers can check before they read a workload."""
    if not isinstance(name, str):
        raise ShedError(f"{{param}} must be static or online, got {type(name).__name__} {name!r}", param="estimator")
    name = name.strip().lower()
    if name not in ("static", "online"):
        raise ShedError(f"unknown {{param}} {name!r}; choose static or online", param="estimator")
    if name == "static" and decay != 1.0:
        raise ShedError("{param} applies to the online estimator only; add estimator online", param="decay")
    if name == "online":
        OnlineEstimator(decay)  # checks decay
    return name


def make_estimator(name: str, wl: Workload | None = None, decay: float = 1.0, ages: bool = False) -> Estimator:
    """``static`` (needs the workload; with ``ages`` its age curves too) or ``online``."""
    if check_estimator(name, decay) == "online":
        return OnlineEstimator(decay)
    if wl is None:
        raise ShedError("the static estimator needs the whole workload; use {param} online for streams", param="estimator")
    return StaticEstimator.from_workload(wl, ages)
