"""Drifting Zipf streams: the paper's i.i.d. model (Das, Gehrke, Riedewald 2003, §4) whose key
ranks rotate over time, so that a frequency table over the whole stream (or over a long past)
lies about the present.

The streams are tuple-synchronous, as in the paper. Within each *epoch* of ``period`` steps the
keys are i.i.d. Zipf(``skew``) ranks over ``domain`` values; at every new epoch the rank-to-value
mapping of both streams rotates by ``shift`` values: at epoch ``e`` R's rank ``i`` (0-based) is
value ``(i + e * shift) mod domain`` and S's rank ``j`` is ``m[(j + e * shift) mod domain]``, ``m``
being S's mapping of :func:`~shedding.datasets.zipf.s_value_map` for ``correlation``. So each
epoch is the paper's stream, only the hot values move; ``shift = 0`` is the paper's stream itself.
"""

from __future__ import annotations

import numpy as np

from shedding.datasets import params
from shedding.datasets.zipf import s_value_map, zipf_ranks
from shedding.model import Workload


def drift_workload(
    skew: float = 1.0,
    domain: int = 50,
    length: int = 5600,
    period: int = 700,
    shift: int = 5,
    correlation: str = "independent",
    window: int = 400,
    seed: int = 0,
    warmup: int | None = None,
) -> Workload:
    """``length`` steps of R and S whose Zipf ranks rotate by ``shift`` values every ``period``
    steps (see the module docstring). Deterministic per ``seed``: the ranks are those of
    :func:`~shedding.datasets.zipf.zipf_workload` with the same seed, only mapped to other values.

    Args:
        skew: The Zipf skew of both streams (>= 0).
        domain: The number of key values (>= 1).
        length: The tuples per stream, one per time step (>= 0).
        period: The steps of one epoch (>= 1).
        shift: The values the rank-to-value mappings rotate by at every epoch (>= 0; 0 is the
            paper's stream).
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
    period = params.whole(period, "period", 1)
    shift = params.whole(shift, "shift")
    correlation = params.correlation(correlation)
    seed = params.whole(seed, "seed")
    r_seq, s_seq, _ = np.random.SeedSequence(seed).spawn(3)
    r_rank = zipf_ranks(skew, domain, length, np.random.default_rng(r_seq))
    s_rank = zipf_ranks(skew, domain, length, np.random.default_rng(s_seq))
    offset = (np.arange(length, dtype=np.int64) // period) * shift
    r_key = (r_rank + offset) % domain
    s_key = s_value_map(domain, correlation, seed)[(s_rank + offset) % domain]
    name = f"drift({skew:g}, D={domain}, shift {shift} every {period}, {correlation}, seed={seed})"
    wl = Workload.synchronous(r_key, s_key, window, warmup, name)
    wl.meta.update(generator="drift", skew=skew, domain=domain, length=length, period=period, shift=shift,
                   correlation=correlation, seed=seed)
    return wl
