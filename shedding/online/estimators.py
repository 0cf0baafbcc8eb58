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
    (Srivastava and Widom 2004); without them AGE estimates its curve online.

    Attributes:
        keys: The distinct keys, sorted.
        counts_r: Each key's count in R.
        counts_s: Each key's count in S.
        age_curves: AGE's known age curves f[s, a], or None.
        rates: Arrivals per step per side, with ``age_curves``; or None.
    """

    keys: np.ndarray
    counts_r: np.ndarray
    counts_s: np.ndarray
    age_curves: np.ndarray | None = None
    rates: np.ndarray | None = None

    @classmethod
    def from_workload(cls, wl: Workload, ages: bool = False) -> "StaticEstimator":
        """The frequency table of a whole workload, as in the paper's experiments (§4).

        Args:
            wl: The workload (:class:`~shedding.model.Workload`).
            ages: Also its age curves and arrival rates
                (:func:`~shedding.online.ageing.known_curves`), AGE's known curve.

        Returns:
            The :class:`StaticEstimator` of ``wl``.
        """
        if not ages:
            return cls(*wl.key_counts())
        from shedding.online.ageing import known_curves

        return cls(*wl.key_counts(), *known_curves(wl))


@dataclass(frozen=True)
class OnlineEstimator:
    """Counts of the arrivals seen so far (including the current batch, before admission).

    Attributes:
        decay: The weight an arrival keeps per time step, in (0, 1]: 1 counts everything
            equally, 0.999 has a half-life of about 693 steps.

    Raises:
        ShedError: ``decay`` outside (0, 1], naming ``decay``.
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
    """The estimator's name if it and ``decay`` go together; callers can check before they read
    a workload.

    Args:
        name: ``static`` or ``online``, any case.
        decay: The online estimator's weight per time step, in (0, 1]; 1 with ``static``.

    Returns:
        The name in lower case.

    Raises:
        ShedError: An unknown ``estimator``, or a ``decay`` out of range or given with the
            static estimator, naming the parameter.
    """
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
    """The estimator of §3.3.1 by name.

    Args:
        name: ``static`` (the workload's key frequencies) or ``online`` (the counts so far).
        wl: The whole workload, which ``static`` needs.
        decay: The online estimator's weight per time step, in (0, 1].
        ages: ``static`` also gives AGE its known age curves.

    Returns:
        A :class:`StaticEstimator` or an :class:`OnlineEstimator`.

    Raises:
        ShedError: As :func:`check_estimator`, or ``static`` without a workload.
    """
    if check_estimator(name, decay) == "online":
        return OnlineEstimator(decay)
    if wl is None:
        raise ShedError("the static estimator needs the whole workload; use {param} online for streams", param="estimator")
    return StaticEstimator.from_workload(wl, ages)
