"""The age-based arrival model of Srivastava and Widom (VLDB 2004, "Memory-Limited Execution of
Windowed Stream Joins"), as a synthetic workload.

In their age-based model a tuple's matches depend on its *age*, not on its key's frequency: a bid
follows its auction, a response its request, an arrival its departure. The expected number of
partners a tuple meets at age ``a`` is its *age curve*. Here each R tuple gets one partner in S
(with probability ``partner``) after a lag drawn from a distribution over ``1..w-1`` (the lag's
probability mass is R's age curve), and S carries background traffic whose keys are drawn i.i.d.
from the same Zipf distribution as R's (the frequency-based model of Das, Gehrke, Riedewald 2003,
§4), a share ``background`` of all S tuples.

Per step, the number of R arrivals is Poisson with mean ``rate`` and the number of background S
arrivals Poisson with the mean that makes ``background`` the expected share of S. R keys are
Zipf(``skew``) ranks over ``domain`` values (rank ``i`` is value ``i - 1``); background S keys use
the rank-to-value mapping of ``correlation`` (:data:`~shedding.datasets.zipf.CORRELATIONS`).
Partners arriving at or after ``length`` are cut off with the stream.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from shedding.datasets import params
from shedding.datasets.zipf import s_value_map, zipf_probabilities, zipf_ranks
from shedding.errors import ShedError
from shedding.model import Workload, check_window

#: The lag distributions: ``normal`` (mean, standard deviation ``spread``), ``uniform`` (integers
#: within ``spread`` of the mean) and ``gamma`` (mean, standard deviation ``spread``; ``spread`` =
#: mean is the exponential), each discretized to the lags ``1..w-1`` and renormalized.
LAGS = ("normal", "uniform", "gamma")
#: the spreads a lag distribution takes besides 0, in steps: below a millionth of a step every
#: shape is the mean's lag alone (as with 0), and beyond a thousand windows the normal's mass per lag
#: drowns in rounding; far outside, the gamma's shape (mean / spread)^2 overflows
MIN_SPREAD, MAX_SPREAD_WINDOWS = 1e-6, 1000


#: the lag distribution's mean unless set (a quarter of the default window of 400 steps)
DEFAULT_LAG_MEAN = 100.0


def lag_distribution(lag: str, mean: float, spread: float, window: int) -> np.ndarray:
    """P(lag = a) for a = 0..w-1 (entry 0 is always 0): the partner's share of R's age curve."""
    if lag not in LAGS:
        raise ShedError(f"unknown {{param}} {lag!r}; choose one of {', '.join(LAGS)}", param="lag")
    w = check_window(window)
    if w < 2:
        raise ShedError("{param} must be >= 2 for a partner to arrive after its tuple", param="window")
    mean = params.real(mean, "lag_mean", 1.0, w - 1.0)
    spread = params.real(spread, "lag_spread", 0.0)
    if spread != 0.0 and not MIN_SPREAD <= spread <= MAX_SPREAD_WINDOWS * w:
        raise ShedError(f"{{param}} must be 0 or from {MIN_SPREAD:g} to {MAX_SPREAD_WINDOWS:,} windows "
                        f"({MAX_SPREAD_WINDOWS * w:,} steps), got {spread!r}", param="lag_spread")
    a = np.arange(w, dtype=np.float64)
    if lag == "uniform" or spread == 0.0:
        weights = (np.abs(a - mean) <= spread + 1e-9).astype(np.float64)
        if not weights[1:].any():  # a fractional mean with no spread: its nearest lag
            weights[int(min(max(round(mean), 1), w - 1))] = 1.0
    elif lag == "normal":
        cdf = 0.5 * (1.0 + np.vectorize(math.erf)((np.arange(w + 1) - 0.5 - mean) / (spread * math.sqrt(2.0))))
        weights = np.diff(cdf)
    else:  # gamma with shape k = (mean / spread)^2 and scale spread^2 / mean, at the integer lags
        shape, scale = (mean / spread) ** 2, spread ** 2 / mean
        with np.errstate(divide="ignore"):
            log_pdf = (shape - 1.0) * np.log(a) - a / scale
        weights = np.exp(log_pdf - np.max(log_pdf[1:]))
    weights[0] = 0.0
    total = weights.sum()
    if not total > 0.0:
        raise ShedError(f"the {lag} lag with mean {mean} and spread {spread} has no mass on the lags 1..{w - 1}; "
                        "move the mean into the window", param="lag_mean")
    return weights / total


def check_age_curve(curve: Any, window: int, param: str = "lag_pmf") -> np.ndarray:
    """A lag distribution given as probabilities for the lags 0..len-1 (entry 0 must be 0): finite,
    non-negative, summing to 1, no lag beyond w-1. Returned padded to length w."""
    w = check_window(window)
    try:
        arr = np.asarray(curve, dtype=np.float64)
    except (TypeError, ValueError):  # text, or lists of unequal lengths
        arr = np.zeros(0)
    if arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ShedError("{param} must be a list of finite probabilities >= 0 (one per lag 0, 1, 2, ...)", param=param)
    if arr.size > w and np.any(arr[w:] > 0):
        raise ShedError(f"{{param}} puts mass on lags beyond w-1 = {w - 1}; a partner must arrive inside the window",
                        param=param)
    if arr[0] > 0:
        raise ShedError("{param} puts mass on lag 0; partners arrive at lags 1..w-1", param=param)
    if abs(arr.sum() - 1.0) > 1e-6:
        raise ShedError(f"{{param}} must sum to 1 (a distribution), got {arr.sum():.6g}", param=param)
    out = np.zeros(w)
    out[: min(w, arr.size)] = arr[:w]
    return out


def age_workload(
    length: int = 5600,
    window: int = 400,
    lag: str = "normal",
    lag_mean: float = DEFAULT_LAG_MEAN,
    lag_spread: float = 20.0,
    background: float = 0.5,
    partner: float = 1.0,
    rate: float = 1.0,
    skew: float = 0.5,
    domain: int = 1000,
    correlation: str = "same",
    seed: int = 0,
    warmup: int | None = None,
    lag_pmf: Any = None,
) -> Workload:
    """The age-based model over ``length`` steps (see the module docstring).

    ``meta["lag_pmf"]`` holds the lag distribution used (entry ``a`` for lag ``a``).
    Deterministic per ``seed``.

    Args:
        length: The time steps (>= 0).
        window: w, in time steps (>= 1).
        lag: The lag distribution's shape, one of :data:`LAGS`.
        lag_mean: The lag's mean, in steps, within 1..w-1 (the default, 100, is refused when
            the window is shorter).
        lag_spread: The lag's spread, in steps (see :data:`LAGS`).
        background: The expected share of S tuples that are background traffic, in [0, 0.99].
        partner: The probability that an R tuple has a partner, in [0, 1].
        rate: The mean number of R arrivals per step (> 0).
        skew: The Zipf skew of R's and the background's keys (>= 0).
        domain: The number of key values (>= 1).
        correlation: How the background's ranks map to values
            (:data:`~shedding.datasets.zipf.CORRELATIONS`).
        seed: The random seed (>= 0).
        warmup: The first time whose outputs count; default 2w.
        lag_pmf: The lag distribution given directly instead of ``lag``, ``lag_mean`` and
            ``lag_spread``: probabilities of the lags 0, 1, ..., which must form a
            distribution on 1..w-1.

    Returns:
        The :class:`~shedding.model.Workload`, its parameters in ``meta``.

    Raises:
        ShedError: A bad parameter, naming it in ``param``.
    """
    length = params.whole(length, "length")
    w = check_window(window)
    if lag_pmf is None and lag_mean == DEFAULT_LAG_MEAN and w - 1 < DEFAULT_LAG_MEAN:
        raise ShedError(f"{{param}} is {DEFAULT_LAG_MEAN:g} steps (its default unless set), beyond the window of {w}; "
                        f"set it from 1 to {w - 1}, e.g. lag_mean={max(1, w // 4)}", param="lag_mean")
    pmf = (lag_distribution(lag, lag_mean, lag_spread, w) if lag_pmf is None else check_age_curve(lag_pmf, w))
    background = params.real(background, "background", 0.0, 0.99)
    partner = params.real(partner, "partner", 0.0, 1.0)
    rate = params.rate(rate, "rate", positive=True)
    skew = params.real(skew, "skew")
    domain = params.whole(domain, "domain", 1)
    correlation = params.correlation(correlation)
    seed = params.whole(seed, "seed")
    r_time, r_key, p_time, b_time, b_key = _draws(length, pmf, background, partner, rate, skew, domain,
                                                  correlation, seed)
    has = p_time < length
    s_time = np.concatenate([p_time[has], b_time])
    s_key = np.concatenate([r_key[has], b_key])
    order = np.argsort(s_time, kind="stable")

    shape = "lag_pmf" if lag_pmf is not None else f"{lag}({lag_mean:g}, {lag_spread:g})"
    name = f"age({shape}, bg={background:g}, D={domain}, seed={seed})"
    wl = Workload.from_streams(r_time, r_key, s_time[order], s_key[order], w, warmup, name)
    wl.meta.update(
        generator="age", lag=None if lag_pmf is not None else lag, lag_mean=float(lag_mean),
        lag_spread=float(lag_spread), background=background, partner=partner, rate=rate, skew=skew,
        domain=domain, correlation=correlation, length=length, seed=seed, lag_pmf=pmf,
    )
    return wl


def _draws(length: int, pmf: np.ndarray, background: float, partner: float, rate: float, skew: float, domain: int,
           correlation: str, seed: int) -> tuple[np.ndarray, ...]:
    """The model's random draws: R's times and keys, each R tuple's partner time (``length`` or
    later: none, or cut off with the stream) and the background S times and keys."""
    rng_r, rng_lag, rng_bg = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(3))
    per_step = rng_r.poisson(rate, length)
    r_time = np.repeat(np.arange(length, dtype=np.int64), per_step)
    r_key = zipf_ranks(skew, domain, len(r_time), rng_r)
    has = rng_lag.random(len(r_time)) < partner
    cdf = np.cumsum(pmf)
    cdf[-1] = 1.0
    lags = np.searchsorted(cdf, rng_lag.random(len(r_time)), side="right")
    p_time = np.where(has, r_time + lags, length + len(pmf))
    bg_step = rng_bg.poisson(background_rate(rate, partner, background), length)
    b_time = np.repeat(np.arange(length, dtype=np.int64), bg_step)
    b_key = s_value_map(domain, correlation, seed)[zipf_ranks(skew, domain, len(b_time), rng_bg)]
    return r_time, r_key, p_time, b_time, b_key


def key_probabilities(meta: dict) -> tuple[np.ndarray, np.ndarray]:
    """(P_R(key), P_bg(key)) over the values 0 .. domain-1 of an age workload's ``meta``: R's
    Zipf ranks (rank i is value i - 1) and the background S keys' rank-to-value map."""
    domain = int(meta["domain"])
    p_r = zipf_probabilities(meta["skew"], domain)
    p_bg = np.zeros(domain)
    p_bg[s_value_map(domain, meta["correlation"], int(meta["seed"]))] = p_r
    return p_r, p_bg


def background_rate(rate: float, partner: float, background: float) -> float:
    """Background S arrivals per step that make ``background`` the expected share of S."""
    return rate * partner * background / (1.0 - background)


def partner_times(wl: Workload) -> np.ndarray:
    """When each R tuple's partner arrives (``meta["length"]`` or later: never within the stream;
    -1 for S tuples), from the draws of :func:`age_workload` that made ``wl``. The workload must be
    that function's, unchanged: the draws are made again from its ``meta`` and checked against it."""
    meta = wl.meta
    if meta.get("generator") != "age":
        raise ShedError("{param} must come from age_workload (the generator's partner lags are needed)",
                        param="workload")
    length = int(meta["length"])
    r_time, r_key, p_time, b_time, b_key = _draws(
        length, np.asarray(meta["lag_pmf"], dtype=np.float64), meta["background"], meta["partner"], meta["rate"],
        meta["skew"], int(meta["domain"]), meta["correlation"], int(meta["seed"]))
    r = wl.side == 0
    if not (np.array_equal(wl.time[r], r_time) and np.array_equal(wl.key[r], r_key)
            and int(np.count_nonzero(~r)) == int(np.count_nonzero(p_time < length)) + len(b_time)):
        raise ShedError("{param} is not the stream age_workload made from its meta; use it unchanged",
                        param="workload")
    out = np.full(len(wl), -1, dtype=np.int64)
    out[r] = p_time
    return out
