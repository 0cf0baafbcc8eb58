"""Synthetic Zipf workloads, as in the paper's experiments (Das, Gehrke, Riedewald 2003, §4).

"For our synthetic datasets, we used Zipfian distributions with varying degrees of skew and
correlation between the data in the two joining streams. Within a stream, the data values were
generated in iid (independently and identically distributed) fashion from the corresponding
Zipfian distribution." The streams are tuple-synchronous: r(t) and s(t) arrive at every t.

Rank ``i`` (1..D) has probability proportional to ``1 / i**skew``. R maps rank ``i`` to value
``i - 1``; S maps ranks to values according to the correlation mode (see :data:`CORRELATIONS`).
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any

import numpy as np

from shedding.errors import ShedError
from shedding.model import Workload

#: S's rank-to-value mapping: ``independent`` (the paper's "uncorrelated"; a seeded random
#: permutation), ``same`` (the paper's "correlated": identical to R's) and ``reversed``
#: (anti-correlated: S's most frequent value is R's least frequent).
CORRELATIONS = ("independent", "same", "reversed")


def check_int(value: Any, name: str, minimum: int) -> int:
    """The integer parameter ``name`` >= ``minimum`` (integral floats such as 50.0 are accepted)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ShedError(f"{{param}} must be an integer >= {minimum}, got {value!r}", param=name)
    if not isinstance(value, Integral) and not (math.isfinite(value) and float(value).is_integer()):
        raise ShedError(f"{{param}} must be an integer >= {minimum}, got {value!r}", param=name)
    if int(value) < minimum:  # type: ignore[call-overload]  # typeshed's numbers.Real has no __int__
        raise ShedError(f"{{param}} must be an integer >= {minimum}, got {value!r}", param=name)
    return int(value)  # type: ignore[call-overload]  # as above


def check_skew(value: Any, name: str) -> float:
    """The Zipf skew parameter ``name``: a finite real number >= 0 (0 means uniform)."""
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value) or value < 0:
        raise ShedError(f"{{param}} must be a finite number >= 0 (0 = uniform), got {value!r}", param=name)
    return float(value)


def _check_correlation(correlation: Any) -> str:
    if correlation not in CORRELATIONS:
        raise ShedError(f"unknown {{param}} {correlation!r}; use one of: {', '.join(CORRELATIONS)}",
                        param="correlation")
    return str(correlation)


def zipf_probabilities(skew: float, domain: int) -> np.ndarray:
    """P(rank i) for i = 1..domain, proportional to 1 / i**skew (index 0 holds rank 1)."""
    skew = check_skew(skew, "skew")
    domain = check_int(domain, "domain", 1)
    weights = np.arange(1, domain + 1, dtype=np.float64) ** -skew
    return weights / weights.sum()


def zipf_ranks(skew: float, domain: int, length: int, rng: np.random.Generator) -> np.ndarray:
    """``length`` iid Zipf ranks, returned 0-based (0 is the most frequent rank), by inverse CDF."""
    cdf = np.cumsum(zipf_probabilities(skew, domain))
    cdf[-1] = 1.0
    ranks = np.searchsorted(cdf, rng.random(check_int(length, "length", 0)), side="right")
    return np.minimum(ranks, domain - 1).astype(np.int64)


def _generators(seed: int) -> tuple[np.random.Generator, np.random.Generator, np.random.Generator]:
    """Independent generators for R, S and the S permutation, all derived from ``seed``."""
    r_seq, s_seq, perm_seq = np.random.SeedSequence(seed).spawn(3)
    return np.random.default_rng(r_seq), np.random.default_rng(s_seq), np.random.default_rng(perm_seq)


def s_value_map(domain: int, correlation: str = "independent", seed: int = 0) -> np.ndarray:
    """S's mapping: entry ``i`` is the value of S's rank ``i + 1`` (R's rank ``i + 1`` is ``i``).

    Exactly the mapping :func:`zipf_workload` uses for the same ``domain``, ``correlation`` and
    ``seed``; it is always a permutation of ``0..domain-1``.
    """
    domain = check_int(domain, "domain", 1)
    correlation = _check_correlation(correlation)
    seed = check_int(seed, "seed", 0)
    if correlation == "same":
        return np.arange(domain, dtype=np.int64)
    if correlation == "reversed":
        return np.arange(domain - 1, -1, -1, dtype=np.int64)
    return _generators(seed)[2].permutation(domain).astype(np.int64)


def zipf_workload(
    skew: float = 1.0,
    domain: int = 50,
    length: int = 5600,
    seed: int = 0,
    correlation: str = "independent",
    window: int = 400,
    warmup: int | None = None,
    skew_s: float | None = None,
) -> Workload:
    """Two tuple-synchronous streams of ``length`` tuples each, iid Zipf over ``domain`` values.

    Paper §4: "Within a stream, the data values were generated in iid fashion from the
    corresponding Zipfian distribution"; the defaults are its Figure 3 setup (Zipf(1.0), domain
    50, 5600 tuples, w = 400, uncorrelated).

    Deterministic per ``seed``: R, S and the permutation draw from three generators spawned from
    ``SeedSequence(seed)``, so R's keys do not depend on ``correlation`` or ``skew_s``.

    Args:
        skew: The Zipf skew of R (and of S unless ``skew_s``): a finite number >= 0, 0 being
            uniform.
        domain: The number of key values (>= 1).
        length: The tuples per stream, one per time step (>= 0).
        seed: The random seed (>= 0).
        correlation: How S's ranks map to values, one of :data:`CORRELATIONS`: ``independent``
            (a random permutation), ``same`` (R's hot values are S's) or ``reversed``.
        window: w, in time steps (>= 1).
        warmup: The first time whose outputs count; default 2w.
        skew_s: S's own skew; default ``skew``.

    Returns:
        The :class:`~shedding.model.Workload`, its parameters in ``meta``.

    Raises:
        ShedError: A bad parameter, naming it in ``param``.
    """
    skew = check_skew(skew, "skew")
    skew_s = skew if skew_s is None else check_skew(skew_s, "skew_s")
    domain = check_int(domain, "domain", 1)
    length = check_int(length, "length", 0)
    seed = check_int(seed, "seed", 0)
    correlation = _check_correlation(correlation)

    rng_r, rng_s, _ = _generators(seed)
    r_keys = zipf_ranks(skew, domain, length, rng_r)
    s_keys = s_value_map(domain, correlation, seed)[zipf_ranks(skew_s, domain, length, rng_s)]

    skews = f"{skew!r}" if skew_s == skew else f"{skew!r}/{skew_s!r}"
    name = f"zipf({skews}, D={domain}, {correlation}, seed={seed})"
    wl = Workload.synchronous(r_keys, s_keys, window, warmup, name)
    wl.meta.update(
        generator="zipf", skew=skew, skew_s=skew_s, domain=domain, length=length,
        seed=seed, correlation=correlation,
    )
    return wl
