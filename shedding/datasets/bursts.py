"""Bursty Zipf streams: arrival rates that switch between a quiet and a busy state, with the
busy periods concentrated on keys of their own (a flash crowd), so that neither the rate nor a
frequency table over the whole stream describes the present.

Both streams share one two-state process (a Markov-modulated Poisson process): a quiet phase
lasts a geometric number of steps with mean ``quiet`` and has ``rate_low`` arrivals per stream
and step on average (Poisson); a burst lasts ``burst`` steps on average with ``rate_high``. Keys
are Zipf(``skew``) ranks over ``domain`` values, R's rank ``i`` being value ``i`` and S's mapped by
``correlation`` (:func:`~shedding.datasets.zipf.s_value_map`), as in the paper's streams (Das,
Gehrke, Riedewald 2003, §4). During each burst both mappings rotate by an offset drawn uniformly
from ``0..domain-1`` for that burst (``rotate=True``), so its hot keys are its own.
"""

from __future__ import annotations

import numpy as np

from shedding.datasets import params
from shedding.datasets.zipf import s_value_map, zipf_ranks
from shedding.errors import ShedError
from shedding.model import Workload


def burst_phases(length: int, quiet: float, burst: float, rng: np.random.Generator) -> np.ndarray:
    """The phase index of each step 0..length-1: even phases are quiet, odd ones bursts."""
    mean = np.array([quiet, burst])
    ends, t, k = [], 0, 0
    while t < length:
        t += int(rng.geometric(1.0 / mean[k % 2]))
        ends.append(t)
        k += 1
    return np.searchsorted(np.array(ends, dtype=np.int64), np.arange(length), side="right")


def burst_workload(
    skew: float = 1.0,
    domain: int = 50,
    length: int = 5600,
    rate_low: float = 0.5,
    rate_high: float = 4.0,
    quiet: float = 800.0,
    burst: float = 200.0,
    rotate: bool = True,
    correlation: str = "independent",
    window: int = 400,
    seed: int = 0,
    warmup: int | None = None,
) -> Workload:
    """``length`` steps of bursty R and S streams (see the module docstring). Deterministic per
    ``seed``; ``meta["phase"]`` gives each step's phase (odd = burst).

    Args:
        skew: The Zipf skew of both streams (>= 0).
        domain: The number of key values (>= 1).
        length: The time steps (>= 0).
        rate_low: The mean arrivals per stream and step in a quiet phase (>= 0).
        rate_high: The mean arrivals per stream and step in a burst (>= 0).
        quiet: A quiet phase's mean length, in steps (>= 1).
        burst: A burst's mean length, in steps (>= 1).
        rotate: Whether each burst rotates the mappings to hot keys of its own.
        correlation: How S's ranks map to values (:data:`~shedding.datasets.zipf.CORRELATIONS`).
        window: w, in time steps (>= 1).
        seed: The random seed (>= 0).
        warmup: The first time whose outputs count; default 2w.

    Returns:
        The :class:`~shedding.model.Workload`, its parameters in ``meta``.

    Raises:
        ShedError: A bad parameter, naming it in ``param``.
    """
    skew = params.real(skew, "skew")
    domain = params.whole(domain, "domain", 1)
    length = params.whole(length, "length")
    rate_low = params.rate(rate_low, "rate_low")
    rate_high = params.rate(rate_high, "rate_high")
    quiet = params.real(quiet, "quiet", 1.0)
    burst = params.real(burst, "burst", 1.0)
    if not isinstance(rotate, (bool, np.bool_)):
        raise ShedError(f"{{param}} must be true or false, got {rotate!r}", param="rotate")
    correlation = params.correlation(correlation)
    seed = params.whole(seed, "seed")
    phase_seq, r_seq, s_seq = np.random.SeedSequence(seed).spawn(3)
    rng_phase = np.random.default_rng(phase_seq)
    phase = burst_phases(length, quiet, burst, rng_phase)
    offsets = rng_phase.integers(0, domain if rotate else 1, int(phase.max(initial=0)) + 1)
    step_offset = np.where(phase % 2 == 1, offsets[phase], 0)
    rate = np.where(phase % 2 == 1, rate_high, rate_low)
    s_map = s_value_map(domain, correlation, seed)
    streams = []
    for seq, to_value in ((r_seq, np.arange(domain)), (s_seq, s_map)):
        rng = np.random.default_rng(seq)
        times = np.repeat(np.arange(length, dtype=np.int64), rng.poisson(rate))
        ranks = zipf_ranks(skew, domain, len(times), rng)
        streams += [times, to_value[(ranks + step_offset[times]) % domain]]
    name = f"bursts({skew:g}, D={domain}, {rate_low:g}/{rate_high:g} per step, {quiet:g}/{burst:g} steps, seed={seed})"
    r_time, r_key, s_time, s_key = streams
    wl = Workload.from_streams(r_time, r_key, s_time, s_key, window, warmup, name)
    wl.meta.update(generator="bursts", skew=skew, domain=domain, length=length, rate_low=rate_low,
                   rate_high=rate_high, quiet=quiet, burst=burst, rotate=bool(rotate), correlation=correlation,
                   seed=seed, phase=phase)
    return wl
