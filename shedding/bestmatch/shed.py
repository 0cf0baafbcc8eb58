"""The constrained left-outer bestmatch join under load shedding.

MatWin's data windows get room for at most M tuples (:mod:`.matwin`): after each fill the
lowest-priority tuples of W_R u W_S leave for good. Unlike an equi-join, the result is not a
subset of the exact one: when the best partner s of r is shed, a pair (r, s') that s dominated is
output instead (a false pair). So a shed run is judged by precision, recall and the symmetric
difference against the exact result (Kemper and Stegmaier 2002 define the exact BMJ, §2).

Policies (the priority of a tuple; the lowest leaves first):

- ``rand``: a random priority per tuple (seeded), i.e. victims drawn at random.
- ``prob``: PROB's idea for the bestmatch join: keep the tuples likely to be in a best pair, i.e.
  with many candidate partners. The priority of r is the number of S tuples expected in r's
  eps-box, from a static eps-grid histogram of S (the 3^d cells around r's, times (2/3)^d), and
  of s the same with R; as PROB, the table is built over the whole stream.
- ``ahead`` (this project's design): the expected number of candidate partners a tuple can *still*
  meet. A tuple at y_1 = v meets partners of the other stream up to y_1 = v + eps_1; of that range
  of height 2 eps_1, only (v + eps_1 - maxRS) lies above the current window top. ``ahead`` is
  ``prob`` times that remaining fraction, so a tuple about to leave the window (whose pairs are
  already buffered) is shed before a fresh one with the same density: shedding it loses nothing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from shedding.errors import ShedError
from shedding.online.policies import BESTMATCH, names_for, require
from shedding.online.policies import POLICIES as REGISTRY
from shedding.bestmatch.ego import MAX_CELLS
from shedding.bestmatch.join import BestmatchResult, check_choice, order_signs, result_of
from shedding.bestmatch.matwin import matwin
from shedding.bestmatch.skyline import is_literal
from shedding.bestmatch.values import BestmatchInput

#: the policies of the registry (:mod:`shedding.online.policies`) that run on the bestmatch join,
#: and ``ahead``, this family's own (no other family has a window top to look ahead of)
OWN = ("ahead",)
POLICIES = (*names_for(BESTMATCH), *OWN)


def check_policy(name: str) -> str:
    """The policy name, lowercased; unknown names raise a one-line ShedError, and a registry policy
    the bestmatch join does not implement one naming the families it runs on."""
    key = name.strip().lower()
    if key not in POLICIES:
        if key in REGISTRY and not REGISTRY[key].replay:
            require(REGISTRY[key], BESTMATCH, OWN)
        raise ShedError(f"unknown bestmatch {{param}} {name!r}; choose from {', '.join(POLICIES)}", param="policy")
    return key


def seeded(policy: str) -> bool:
    """Whether ``policy`` draws random priorities, so that its seed matters (the registry's RAND)."""
    return policy in REGISTRY and REGISTRY[policy].seed


def partner_density(X: np.ndarray, Y: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """For every row of X, the number of rows of Y expected within its eps-box, from a histogram
    of Y on the eps-grid of all d dimensions (cells of edge eps_i, or 1 unit where eps_i = 0)."""
    d = X.shape[1]
    if len(X) == 0 or len(Y) == 0:
        return np.zeros(len(X))
    width = np.maximum(eps, 1)
    base = np.minimum(X.min(axis=0), Y.min(axis=0))
    cx, cy = (X - base) // width, (Y - base) // width
    shape = np.maximum(cx.max(axis=0), cy.max(axis=0)) + 3  # room for the -1/+1 neighbours, shifted by one
    if float(np.prod(shape.astype(float))) > MAX_CELLS:
        raise ShedError(f"the eps-grid histogram would have {float(np.prod(shape.astype(float))):.3g} cells; "
                        f"use larger eps or fewer attributes for {{param}} prob/ahead", param="policy")
    radix = np.cumprod(np.concatenate([[1], shape[::-1][:-1]]))[::-1]
    counts = np.bincount(((cy + 1) * radix).sum(axis=1), minlength=int(np.prod(shape)))
    total = np.zeros(len(X))
    for combo in range(3**d):
        offset = np.array([(combo // 3**i) % 3 - 1 for i in range(d)])
        total += counts[((cx + 1 + offset) * radix).sum(axis=1)]
    return total * (2.0 / 3.0) ** d


def _eps(data: BestmatchInput) -> np.ndarray:
    """The band widths MatWin needs (the input may have none: the unconstrained join)."""
    if data.eps is None:
        raise ShedError("shedding needs {param} (one maximum distance per attribute, e.g. {param} 0.1,0.1)",
                        param="eps")
    return data.eps


def priorities(data: BestmatchInput, policy: str, seed: int) -> tuple[np.ndarray, np.ndarray, bool]:
    """(priorities of R, of S, scale by the remaining range) of ``policy``."""
    policy = check_policy(policy)
    if seeded(policy):
        rng = np.random.default_rng(seed)
        return rng.random(len(data.r)), rng.random(len(data.s)), False
    return partner_density(data.r, data.s, _eps(data)), partner_density(data.s, data.r, _eps(data)), policy == "ahead"


def shed_bestmatch(data: BestmatchInput, memory: int, policy: str, *, seed: int = 0, ego: bool = False,
                   orders: list[str] | None = None, dominance: str = "pareto") -> BestmatchResult:
    """The constrained left-outer BMJ by MatWin with windows of at most ``memory`` tuples,
    shedding by ``policy`` (see the module docstring).

    Args:
        data: R and S with eps, sorted by the first attribute
            (:class:`~shedding.bestmatch.values.BestmatchInput`).
        memory: The tuples the windows W_R and W_S may hold together (>= 0).
        policy: One of :data:`POLICIES`: ``rand``, ``prob`` or ``ahead``.
        seed: The seed of ``rand``'s priorities.
        ego: Probe through the eps-grid (``matwin-ego``).
        orders: One order per attribute, ``minAttrDist`` or ``maxAttrDist``; default
            ``minAttrDist`` everywhere.
        dominance: The reading of §2.1, as in :func:`~shedding.bestmatch.join.bestmatch`.

    Returns:
        A :class:`~shedding.bestmatch.join.BestmatchResult`, with MatWin's statistics (the
        tuples dropped among them).

    Raises:
        ShedError: A negative ``memory``, an unknown ``policy`` or ``dominance`` (naming it in
            ``param``), no eps, or input not sorted by the first attribute.
    """
    if memory < 0:
        raise ShedError(f"{{param}} must be >= 0 tuples, got {memory}", param="memory")
    algorithm = "matwin-ego" if ego else "matwin"
    check_choice("constrained", algorithm, data)
    literal = is_literal(dominance)
    prio_r, prio_s, ahead = priorities(data, policy, seed)
    rows, stats = matwin(data.r, data.s, _eps(data), order_signs(orders, data.dims), True, literal=literal, ego=ego,
                         memory=memory, prio_r=prio_r, prio_s=prio_s, ahead=ahead)
    return result_of(rows, "constrained", algorithm, 0.0, stats.tested, stats, dominance.strip().lower())


def quality(exact: set, found: set) -> dict:
    """Precision, recall and symmetric difference of ``found`` against ``exact``.

    Args:
        exact: The exact result's pairs (r, s).
        found: A shed run's pairs.

    Returns:
        ``pairs``, ``exact``, ``true``, ``false``, ``missed``, ``precision`` (1 when nothing
        was found), ``recall`` (1 when nothing was to be found) and ``symdiff``.
    """
    hit = len(exact & found)
    return {"pairs": len(found), "exact": len(exact), "true": hit, "false": len(found) - hit,
            "missed": len(exact) - hit, "precision": hit / len(found) if found else 1.0,
            "recall": hit / len(exact) if exact else 1.0, "symdiff": len(exact ^ found)}


def shedding_study(data: BestmatchInput, fractions: list[float], policies: list[str], seeds: int = 1,
                   ego: bool = False) -> pd.DataFrame:
    """Shed runs against the exact constrained left-outer BMJ, over memories and policies.

    Args:
        data: R and S with eps, sorted by the first attribute.
        fractions: The memories, as fractions of the exact run's peak window memory.
        policies: The policies (:data:`POLICIES`).
        seeds: The seeds of a seeded policy (``rand``): 0..seeds-1; the others run once.
        ego: Run MatWin through the eps-grid.

    Returns:
        One row per (memory, policy, seed): ``fraction``, ``memory``, ``peak``, ``policy``,
        ``seed``, ``dropped`` and the columns of :func:`quality`.
    """
    exact_rows, exact_stats = matwin(data.r, data.s, _eps(data), order_signs(None, data.dims), True, ego=ego)
    exact = set(map(tuple, exact_rows[:, :2].tolist()))
    rows = []
    for fraction in fractions:
        memory = int(round(fraction * exact_stats.peak_memory))
        for policy in policies:
            for seed in range(seeds if seeded(check_policy(policy)) else 1):
                res = shed_bestmatch(data, memory, policy, seed=seed, ego=ego)
                assert res.stats is not None  # MatWin reports its statistics
                rows.append({"fraction": fraction, "memory": memory, "peak": exact_stats.peak_memory,
                             "policy": policy, "seed": seed, "dropped": res.stats.dropped,
                             **quality(exact, res.as_set())})
    return pd.DataFrame(rows)
