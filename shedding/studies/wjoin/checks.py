"""The W-join paper's claims against a run (Hammad, Aref, Elmagarmid 2002, §4.3): MW against NLW
and HW (Figures 9(a) and 9(b)), the slow stream (Figure 9(c)), and DGR's policies on N streams."""

from __future__ import annotations

import pandas as pd

from shedding.studies.page.format import pct
from shedding.studies.page.verdicts import Check

ORDER_OF_MAGNITUDE = 10.0  # the paper's "more than an order of magnitude" (§4.3)
NO_CHANGE = 0.25  # a change of service time within 25% counts as "not changed significantly"
SPEED_CAUSE = ("the operators here are pure Python, so a fixed per-tuple cost (the call, the clock, the "
               "merge) bounds the speed-up, and NLW purges against the newest tuple of every stream, so "
               "it scans few tuples outside the window; README 'Performance (W-join)' has the numbers")
SLOW_CAUSES = {"hw": "HW stops probing as soon as one stream has no tuple of the key, which the slow stream's sparse "
                     "buffer makes common, so HW gains from a slow stream too",
               "nlw": "NLW's buffers are purged against the newest tuple of every stream, so a slow stream changes "
                      "how much of the other buffers it keeps and scans"}


def _means(rows: pd.DataFrame, keys: list[str], y: str) -> pd.Series:
    """Mean of ``y`` over seeds per ``keys`` and line."""
    return rows.groupby([*keys, "policy"])[y].mean()


def service_checks(rows: pd.DataFrame, exp: dict) -> list[Check]:
    """Figure 9(a)/(b): MW against NLW at every N, and HW at the largest N."""
    t = _means(rows, ["streams"], "us_per_tuple").unstack("policy")
    checks: list[Check] = []
    if {"nlw", "mw"} <= set(t.columns):
        ratio = (t["nlw"] / t["mw"]).dropna()
        listed = ", ".join(f"{r:.2f} at N = {n}" for n, r in ratio.items())
        checks.append(Check(bool((ratio > 1).all()), f"MW is faster than NLW at every N: NLW / MW = {listed}."))
        if "comparable" in set(rows["rates"]):
            first, last = ratio.iloc[0], ratio.iloc[-1]
            checks.append(Check(bool(last < first), f"NLW / MW shrinks as streams are added (converges): "
                                f"{first:.2f} at N = {ratio.index[0]}, {last:.2f} at N = {ratio.index[-1]}."))
        else:
            ok = bool((ratio >= ORDER_OF_MAGNITUDE).all())
            checks.append(Check(ok, f"An order of magnitude: NLW / MW >= {ORDER_OF_MAGNITUDE:g} at every N "
                                f"(lowest {ratio.min():.2f}, highest {ratio.max():.2f}).", "" if ok else SPEED_CAUSE))
    if "hw" in t.columns and len(t):
        last = t.iloc[-1]
        best = last.idxmin()
        checks.append(Check(bool(best == "hw"), f"HW is the fastest at N = {t.index[-1]}: fastest is "
                            f"{str(best).upper()} ({', '.join(f'{p.upper()} {v:.2f} µs' for p, v in last.items())})."))
    return checks


def slow_checks(rows: pd.DataFrame, exp: dict) -> list[Check]:
    """Figure 9(c): MW's service time drops with the switching stream; NLW's and HW's barely move."""
    t = _means(rows, ["rates"], "us_per_tuple").unstack("rates")
    if not {"comparable", "switching"} <= set(t.columns):
        return [Check(None, "Needs runs with comparable and switching rates.")]
    change = t["switching"] / t["comparable"]
    checks = []
    if "mw" in change:
        checks.append(Check(bool(change["mw"] < 1 - NO_CHANGE), f"MW's service time drops with the slow stream by "
                            f"more than {NO_CHANGE:.0%}: switching / comparable = {change['mw']:.2f}."))
    for p in ("nlw", "hw"):
        if p in change:
            ok = bool(abs(change[p] - 1) <= NO_CHANGE)
            checks.append(Check(ok, f"{p.upper()}'s service time changes by at most {NO_CHANGE:.0%}: switching / "
                                f"comparable = {change[p]:.2f}.", "" if ok else SLOW_CAUSES[p]))
    return checks


def shedding_checks(rows: pd.DataFrame, exp: dict) -> list[Check]:
    """PROB-N against RAND and LIFE-N at every point; the variable split where rates differ."""
    t = _means(rows, ["streams", "rates", "memory"], "ratio").unstack("policy")
    checks = []
    for better, worse in (("prob", "rand"), ("life", "rand"), ("prob", "life")):
        if {better, worse} <= set(t.columns):
            wins = int((t[better] >= t[worse]).sum())
            checks.append(Check(wins == len(t), f"{better.upper()} >= {worse.upper()} at {wins} of {len(t)} points "
                                f"(mean {pct(t[better].mean())} against {pct(t[worse].mean())} of exact)."))
    if {"prob", "probv"} <= set(t.columns) and "variable" in set(rows["rates"]):
        v = t.xs("variable", level="rates")
        wins = int((v["probv"] >= v["prob"]).sum())
        checks.append(Check(wins == len(v), f"With variable rates PROBV >= PROB at {wins} of {len(v)} points "
                            f"(mean {pct(v['probv'].mean())} against {pct(v['prob'].mean())})."))
    return checks


CHECKS = {"service": service_checks, "slow": slow_checks, "shedding": shedding_checks}
