"""Synthetic inputs of the paper's experiments (Kemper/Stegmaier 2002, §4): join attributes in [0, 1]
drawn uniform, correlated, anti-correlated (as in Börzsönyi et al.'s skyline paper) or normal,
rounded to ``decimals`` places (the granularity of Figure 14) and sorted on y_1 as MatWin reads them."""

from __future__ import annotations

import numpy as np

from shedding.errors import ShedError
from shedding.bestmatch.values import BestmatchInput

DISTRIBUTIONS = ("uniform", "correlated", "anticorrelated", "normal")


def _unit(rng: np.random.Generator, n: int, d: int, dist: str) -> np.ndarray:
    if dist == "uniform":
        return rng.random((n, d))
    if dist == "normal":
        return rng.normal(0.5, 0.15, (n, d))
    if dist == "correlated":  # close to the diagonal: one value plus small noise per dimension
        return rng.random((n, 1)) + rng.normal(0.0, 0.05, (n, d))
    if dist == "anticorrelated":  # close to the plane sum = d/2: spread within it, narrow across it
        spread = rng.random((n, d))
        spread -= spread.mean(axis=1, keepdims=True)
        return rng.normal(0.5, 0.05, (n, 1)) + spread
    raise ShedError(f"unknown distribution {dist!r}; choose from {', '.join(DISTRIBUTIONS)}")


def synthetic_relation(n: int, d: int, dist: str, decimals: int, rng: np.random.Generator,
                       first_decimals: int | None = None) -> np.ndarray:
    """(n, d) integers: values in [0, 1] times 10**decimals, sorted on y_1. ``first_decimals``
    rounds y_1 coarser (Figure 14: 1 to 5 decimal places) on the same integer scale."""
    scale = 10**decimals
    x = np.clip(_unit(rng, n, d, dist), 0.0, 1.0)
    values = np.rint(x * scale).astype(np.int64)
    if first_decimals is not None and first_decimals < decimals:
        step = 10 ** (decimals - first_decimals)
        values[:, 0] = np.rint(values[:, 0] / step).astype(np.int64) * step
    return values[np.argsort(values[:, 0], kind="stable")]


def synthetic_input(n_r: int, n_s: int, d: int = 2, dist: str = "uniform", eps: float = 0.1, decimals: int = 6,
                    seed: int = 0, first_decimals: int | None = None) -> BestmatchInput:
    """R and S of the paper's §4 setting: ``d`` join attributes, every eps_i = ``eps``."""
    if not 1 <= decimals <= 15:
        raise ShedError(f"{{param}} must be 1..15, got {decimals}", param="decimals")
    rng = np.random.default_rng(seed)
    r = synthetic_relation(n_r, d, dist, decimals, rng, first_decimals)
    s = synthetic_relation(n_s, d, dist, decimals, rng, first_decimals)
    scale = 10**decimals
    eps_scaled = np.full(d, int(round(eps * scale)), dtype=np.int64)
    return BestmatchInput(r, s, eps_scaled, np.full(d, scale, dtype=np.int64), tuple(f"y{i + 1}" for i in range(d)))
