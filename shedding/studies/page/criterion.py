"""The one pass criterion every study's checks use: a check's numbers, one per seed at each point
(and, for a timed number, the spread of its repeats), against the interval its criterion allows.

At a point, with the seeds' values v_1..v_n:

* *pass*: the mean over seeds meets the criterion and at most :data:`MISS_SHARE` of the seeds
  (rounded down) miss it;
* *fail inside the seed range*: not a pass, but at most half of the seeds miss it (the seeds
  straddle the criterion, so more seeds could tell);
* *fail*: more than half of the seeds miss it.

A check passes when every point passes; it fails inside the seed range when its worst point does.
A timed value is not one number but its spread (``low`` to ``high``; for the W-join timings the
middle half of its rounds, at least 25% either side: :mod:`shedding.studies.wjoin.timing`). The
judgment is made twice, with every value moved to the end of its spread nearest the criterion and
to the end farthest from it; where the two differ, the difference lies inside the timing spread
and the check is *not decidable at this scale*. Numbers without a spread (counts of outputs) are
always decided. :data:`CRITERION` states this on every page.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

#: the share of seeds that may miss the criterion at a point where the mean meets it
MISS_SHARE = 1 / 3
PASS, INSIDE, FAIL = 2, 1, 0  # a point's outcome, best first
CRITERION = ("A check's criterion is met at a point when the mean over seeds meets it and at most a third of the "
             "seeds (rounded down; none of one or two) miss it; a failure lies inside the seed range when at every "
             "failing point at most half of the seeds miss it. A timed number is the median of repeated rounds "
             "(after a discarded warm-up) with a spread: the middle half of its rounds, widened to the timing "
             "resolution its page states (what separate runs moved); a check is decided only where the judgment "
             "is the same at both ends of every spread, else it is 'not decidable at this scale'.")


@dataclass(frozen=True)
class Criterion:
    """The closed interval [low, high] a value must lie in (either end may be infinite)."""

    low: float = -math.inf
    high: float = math.inf

    def meets(self, values: np.ndarray) -> np.ndarray:
        """Per value, whether it lies in the interval."""
        return (values >= self.low) & (values <= self.high)

    def nearest(self, value: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        """The point of each spread [low, high] nearest the interval (inside it where they overlap)."""
        return np.clip(np.clip(value, self.low, self.high), low, high)

    def farthest(self, value: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        """The point of each spread farthest outside the interval (the value itself when the whole
        spread lies inside it)."""
        below = np.maximum(self.low - low, 0.0)
        above = np.maximum(high - self.high, 0.0)
        return np.where((below == 0) & (above == 0), value, np.where(below >= above, low, high))


@dataclass(frozen=True)
class Judgement:
    """A check's numbers judged by :data:`CRITERION`: ``ok`` (None when not decidable),
    ``inside`` (a failure inside the seed range), and per point the seeds that meet the criterion
    out of all (``met``), with the points that fail and those that cannot be decided."""

    ok: bool | None
    inside: bool
    met: dict
    failing: tuple
    undecided: tuple

    def seeds_met(self, point: object) -> str:
        """"2 of 3 seeds meet it" at ``point``."""
        met, n = self.met[point]
        return f"{met} of {n} seed{'s' if n != 1 else ''} meet{'s' if n == 1 else ''} it"


def _outcome(values: np.ndarray, criterion: Criterion) -> int:
    """:data:`PASS`, :data:`INSIDE` or :data:`FAIL` for one point's seed values."""
    n = len(values)
    missed = int(n - criterion.meets(values).sum())
    if bool(criterion.meets(np.array([values.mean()]))[0]) and missed <= math.floor(MISS_SHARE * n + 1e-9):
        return PASS
    return INSIDE if 2 * missed <= n else FAIL


def judge(values: pd.Series, criterion: Criterion, low: pd.Series | None = None,
          high: pd.Series | None = None) -> Judgement:
    """Judge ``values`` (index: the point's levels, then the seed as the last level; one level
    means one point) against ``criterion``; ``low`` and ``high`` (same index) give each value's
    timing spread, none for exact numbers."""
    values = values.dropna().astype(float)
    low = values if low is None else low.reindex(values.index).astype(float).fillna(values)
    high = values if high is None else high.reindex(values.index).astype(float).fillna(values)
    levels = list(range(values.index.nlevels - 1))
    groups = values.groupby(level=levels if len(levels) > 1 else levels[0], sort=True) if levels else [(None, values)]
    met, failing, undecided, worst = {}, [], [], (PASS, PASS)
    for point, part in groups:
        v, lo, hi = part.to_numpy(), low.loc[part.index].to_numpy(), high.loc[part.index].to_numpy()
        best = _outcome(criterion.nearest(v, lo, hi), criterion)
        bad = _outcome(criterion.farthest(v, lo, hi), criterion)
        met[point] = (int(criterion.meets(v).sum()), len(v))
        if best != bad:
            undecided.append(point)
        elif best != PASS:
            failing.append(point)
        worst = (min(worst[0], best), min(worst[1], bad))
    if worst[0] == PASS and worst[1] != PASS:  # passes at one end of the spreads only
        return Judgement(None, False, met, tuple(failing), tuple(undecided))
    # fails even at the ends nearest the criterion: inside the seed range only if at the far ends too
    return Judgement(worst[0] == PASS, worst[1] == INSIDE, met, tuple(failing), tuple(undecided))


def combined(*judgements: Judgement) -> Judgement:
    """A check with several criteria: it fails where any fails (inside the seed range only if
    every failing one is), is not decidable where none fails and some is not, else passes."""
    failed = [j for j in judgements if j.ok is False]
    ok = False if failed else None if any(j.ok is None for j in judgements) else True
    # a point's seeds as the failing criterion counts them, where one fails there
    met = {k: v for j in sorted(judgements, key=lambda j: j.ok is False) for k, v in j.met.items()}
    return Judgement(ok, bool(failed) and all(j.inside for j in failed), met,
                     tuple(dict.fromkeys(p for j in judgements for p in j.failing)),
                     tuple(dict.fromkeys(p for j in judgements for p in j.undecided)))
