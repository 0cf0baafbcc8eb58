"""Timed comparisons of the W-join study, round by round (Hammad, Aref, Elmagarmid 2002, §4.3:
"We repeated the experiment multiple times").

A timed run stores the service time of every round (``rounds``, µs per tuple; :mod:`.execute`),
and runs timed together share their rounds. A comparison of two lines (a ratio, a lead) is made
round by round, so both sides of it saw the same load, and summed up per seed by its median and
its spread (which the pass criterion decides against,
:func:`shedding.studies.page.criterion.judge`): the middle half of its rounds, widened to at least
:data:`RESOLUTION` either side of the median. The rounds of one process do not show how far a
ratio moves between two processes (another memory layout, hash seed, load on the shared cores):
between two runs of the ``wjoin`` suite in a row (28 Nov 2026, load average 5-7 on 2 cores,
each timed run timed for 1 s), a seed's median ratio moved by 4.6% at the median, 15% at the
90th percentile, 21% at the 95th and 35% at most over the 228 compared; with 0.2 s per run the
90th percentile was 30%. Rows without rounds (stored before rounds were) count as one round.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pandas as pd

from shedding.studies.page.criterion import Criterion, Judgement, judge

#: the least spread of a timed ratio either side of its median (25%: a factor 1.25), the resolution
#: of timings on a shared machine between two processes: above the 95th percentile of how far a
#: seed's ratio moved between two runs (see the module docstring)
RESOLUTION = 0.25


def per_round(rows: pd.DataFrame, keys: list[str], column: str = "policy") -> pd.DataFrame:
    """Service time (µs per tuple) per (``keys``, seed, round), one column per value of ``column``."""
    def rounds(row: pd.Series) -> list[float]:
        stored = row.get("rounds")
        return json.loads(stored) if isinstance(stored, str) else [float(row["us_per_tuple"])]

    long = rows[[*keys, "seed", column]].assign(us=rows.apply(rounds, axis=1)).explode("us")
    long["round"] = long.groupby([*keys, "seed", column]).cumcount()
    long["us"] = long["us"].astype(float)
    return long.pivot_table(index=[*keys, "seed", "round"], columns=column, values="us", aggfunc="mean")


@dataclass(frozen=True)
class Timed:
    """A per-round comparison summed up per (point, seed): the median of its rounds (``value``)
    and the middle half of them (``low`` to ``high``)."""

    value: pd.Series
    low: pd.Series
    high: pd.Series

    @classmethod
    def of(cls, rounds: pd.Series, log: bool = False) -> Timed:
        """From a series indexed (point levels..., seed, round): a ratio of two times, or with
        ``log`` a difference of logarithms of ratios (its resolution is then log(1 + RESOLUTION))."""
        rounds = rounds.replace([np.inf, -np.inf], np.nan).dropna()
        levels = list(range(rounds.index.nlevels - 1))
        by = rounds.groupby(level=levels if len(levels) > 1 else levels[0], sort=True)
        value, low, high = by.median(), by.quantile(0.25), by.quantile(0.75)
        if log:
            step = np.log1p(RESOLUTION)
            return cls(value, np.minimum(low, value - step), np.maximum(high, value + step))
        return cls(value, np.minimum(low, value / (1 + RESOLUTION)), np.maximum(high, value * (1 + RESOLUTION)))

    def judge(self, criterion: Criterion) -> Judgement:
        """The pass criterion on these values and their spreads."""
        return judge(self.value, criterion, self.low, self.high)

    def at(self, point: object) -> Timed:
        """One point (the first index level) of a comparison over several."""
        return Timed(*(s.xs(point, level=0) for s in (self.value, self.low, self.high)))

    def points(self) -> list:
        """The values of the first index level, in order (none for one point)."""
        return sorted(set(self.value.index.get_level_values(0))) if self.value.index.nlevels > 1 else []

    def text(self, point: object = None) -> str:
        """The mean over seeds of the medians, with the lowest and highest seed when they differ and
        the widest spread ("1.20 (1.10-1.30; spread 0.95-1.40)")."""
        part = self if point is None else self.at(point)
        v = part.value.to_numpy()
        mean, lo, hi = (f"{x:.2f}" for x in (v.mean(), v.min(), v.max()))
        seeds = "" if lo == hi else f"{lo}\u2013{hi}"
        low, high = f"{part.low.min():.2f}", f"{part.high.max():.2f}"
        spread = "" if low == high or (low, high) == (lo, hi) else f"spread {low}\u2013{high}"
        inner = "; ".join(x for x in (seeds, spread) if x)
        return mean + (f" ({inner})" if inner else "")

    def listed(self, name: str) -> str:
        """Every point's :meth:`text` ("1.20 at N = 2, ...")."""
        return ", ".join(f"{self.text(k)} at {name} = {k}" for k in self.points())
