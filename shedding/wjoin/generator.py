"""N synthetic streams, as in the W-join paper's experiments (Hammad et al. 2002, §4.2).

"Each stream consists of a sequence of integers, and the interarrival time between two numbers
follows the exponential distribution with mean lambda." Stream i arrives at ``rates[i]`` tuples
per time unit (mean inter-arrival ``1 / rates[i]``); timestamps are the arrival instants rounded
down to whole time units, so equal timestamps occur. A rate may be a sequence, cycled every
``switch_every`` tuples: the paper's slow-stream test (Figure 9(c)) switches one stream between 10
and 1000 tuples/s every 100 tuples. Keys are iid Zipf ranks over ``domain`` values (the paper uses
"a small set of integer numbers ... to increase the selectivity of the join"), drawn by the
generator of :mod:`shedding.datasets.zipf`.

Deterministic per ``seed``: stream i draws from the i-th generator spawned from
``SeedSequence(seed)``.
"""

from __future__ import annotations

import math
from numbers import Real
from typing import Sequence

import numpy as np

from shedding.datasets.zipf import check_int, check_skew, zipf_ranks
from shedding.errors import ShedError
from shedding.wjoin.streams import Streams


def _check_rate(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value) or value <= 0:
        raise ShedError(f"{what} must be a finite number > 0 (tuples per time unit), got {value!r}")
    return float(value)


def synthetic_streams(
    n_streams: int = 3,
    length: int = 1000,
    rates: Sequence[float | Sequence[float]] | None = None,
    skew: float = 1.0,
    domain: int = 10,
    seed: int = 0,
    switch_every: int = 100,
    names: Sequence[str] | None = None,
) -> Streams:
    """``n_streams`` streams of ``length`` tuples each (the paper's synthetic streams, §4.2):
    exponential inter-arrival times at the given ``rates`` and iid Zipf(``skew``) keys over
    ``domain``.

    Args:
        n_streams: N, the streams (>= 2).
        length: The tuples per stream (>= 0).
        rates: Per stream, its mean arrivals per time unit (> 0), or a list of rates it cycles
            through, switching every ``switch_every`` tuples; default 1 for every stream.
        skew: The Zipf skew of the keys (>= 0; 0 is uniform).
        domain: The number of key values (>= 1).
        seed: The random seed (>= 0).
        switch_every: The tuples between two rates of a cycle (>= 1).
        names: The streams' names; default A, B, C, ...

    Returns:
        The :class:`~shedding.wjoin.streams.Streams`.

    Raises:
        ShedError: A bad parameter (naming it in ``param``), or not one rate per stream.
    """
    n = check_int(n_streams, "n_streams", 2)
    length = check_int(length, "length", 0)
    skew = check_skew(skew, "skew")
    domain = check_int(domain, "domain", 1)
    seed = check_int(seed, "seed", 0)
    every = check_int(switch_every, "switch_every", 1)
    rates = [1.0] * n if rates is None else list(rates)
    if len(rates) != n:
        raise ShedError(f"got {len(rates)} rates for {n} streams; give one rate per stream")
    times, keys = [], []
    for i, (rate, seq) in enumerate(zip(rates, np.random.SeedSequence(seed).spawn(n))):
        cycle = [_check_rate(r, f"rate of stream {i}") for r in (rate if isinstance(rate, Sequence) else [rate])]
        if not cycle:
            raise ShedError(f"rate of stream {i} is an empty list; give at least one rate")
        rng = np.random.default_rng(seq)
        mean = 1.0 / np.asarray(cycle)[(np.arange(length) // every) % len(cycle)]
        times.append(np.floor(np.cumsum(rng.exponential(mean))).astype(np.int64))
        keys.append(zipf_ranks(skew, domain, length, rng))
    return Streams.of(times, keys, names)
