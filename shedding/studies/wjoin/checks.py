"""The W-join paper's claims against a run (Hammad, Aref, Elmagarmid 2002, §4.3 and §5.3): MW
against NLW and HW (Figures 9(a) and 9(b)), the slow stream (Figure 9(c)), GCA against LCA
(Figure 13), the path W-join (Figure 14), and DGR's policies on N streams.

Each part of a claim is one check with its criterion stated. Two lines are compared seed by seed
(a seed is the same streams for both), and a check passes only if every seed meets its criterion;
when some seeds meet it and others do not, the failure lies inside the seed range and the check
says so. Where a figure has both MWs, the paper's MW carries the claim about MW and the optimised
MW's numbers are given beside it.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Callable

import numpy as np
import pandas as pd

from shedding.studies.page.format import pct
from shedding.studies.page.verdicts import Check
from shedding.studies.wjoin.figures import label

ORDER_OF_MAGNITUDE = 10.0  # "more than an order of magnitude better" (§4.3): NLW / MW > 10
MAINTAINED = 2.0  # "maintained as N grows": at the largest N still > 10, and at least 1/2 of the smallest N's
CONVERGED = 1.5  # "converges": NLW / MW ends within a factor 1.5 of 1, closer to 1 than at the smallest N
GREATLY = 0.5  # "greatly improved": the service time at least halves
NO_CHANGE = 0.25  # "not changed significantly": the service time changes by at most 25%
FAR = 0.10  # "far outperforms": never behind, and ahead by at least 10 points of exact on average
MARGINAL = 0.05  # "only marginally beats": ahead by 0 to 5 points of exact at every point
SPEED_CAUSE = ("the operators here are pure Python, so a fixed per-tuple cost (the call, the clock, the queues, "
               "MW's sweep) bounds the speed-up, and NLW purges against the newest tuple of every stream, so it "
               "scans few tuples outside the window (the Benchmarks page, W-join, has the numbers)")
CONVERGE_CAUSE = ("NLW tests the window of every candidate at every level of its nested loop and recomputes the "
                  "period after every match, while Mode 2 of the paper's MW tests only the key; the difference "
                  "multiplies with the depth of the loop, so the ratio grows with N instead of falling to 1")
HW_CAUSE = ("HW's probe runs the shared nested loop with a period test for every candidate of each key's bucket, "
            "while in Form 1 MW needs no window test")
PATH_CAUSE = ("MW's bookkeeping per tuple (input queues, the sweep, one Mode 2 per starting N-tuple) costs more in "
              "Python than the scans of the slow streams' sparse buffers it saves the pipeline")
LIFE_CAUSE = ("LIFE-N multiplies PROB-N's priority by the remaining lifetime, and over N streams PROB-N's "
              "priorities (products of N - 1 key frequencies) span orders of magnitude, so LIFE-N ranks tuples "
              "almost as PROB-N does")
SLOW_CAUSES = {"hw": "HW stops probing as soon as one stream has no tuple of the key, which the slow stream's sparse "
                     "buffer makes common, so HW gains from a slow stream too",
               "nlw": "NLW's buffers are purged against the newest tuple of every stream, so a slow stream changes "
                      "how much of the other buffers it keeps and scans"}

Spread = dict  # a point (an x value) -> the values of its seeds, in seed order


def _seconds(rows: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Service time per (keys, seed), one column per line."""
    return rows.pivot_table(index=[*keys, "seed"], columns="policy", values="us_per_tuple", aggfunc="mean")


def _spread(values: pd.Series) -> Spread:
    """A per-(point, seed) series as {point: [seed values]}."""
    return {point: part.dropna().to_numpy() for point, part in values.groupby(level=0, sort=True)}


def _fmt(values: np.ndarray, digits: int = 2) -> str:
    """The mean over seeds, with the lowest and highest seed when they differ."""
    mean, lo, hi = (f"{v:.{digits}f}" for v in (values.mean(), values.min(), values.max()))
    return mean if lo == hi else f"{mean} ({lo}\u2013{hi})"


def _listed(spread: Spread, name: str) -> str:
    return ", ".join(f"{_fmt(v)} at {name} = {k}" for k, v in spread.items())


def _judge(spread: Spread, meets: Callable[[float], bool], name: str = "") -> tuple[bool, str]:
    """(every seed at every point meets the criterion, the note on a failure inside the seed
    range: at every failing point some seed meets it); ``name`` names the points (``N = 4``), or
    none for one point. The note is empty unless the failure lies inside the seed range (then the
    check's ``within_seeds`` is set)."""
    ok = all(meets(v) for values in spread.values() for v in values)
    failing = [k for k, values in spread.items() if not all(meets(v) for v in values)]
    mixed = [k for k in failing if any(meets(v) for v in spread[k])]
    if ok or mixed != failing:
        return ok, ""
    where = "; ".join((f"at {name} = {k}, " if name else "") +
                      f"{sum(meets(v) for v in spread[k])} of {len(spread[k])} seeds meet it" for k in mixed)
    return False, f" The failure is inside the seed range ({where})."


def _claim_mw(lines: pd.Index) -> tuple[str, str | None]:
    """The MW that carries the paper's claim (the paper's, when run) and the other one, if run."""
    if "mw-paper" in lines:
        return "mw-paper", ("mw" if "mw" in lines else None)
    return "mw", None


def service_checks(rows: pd.DataFrame, exp: dict) -> list[Check]:
    """Figures 9(a) (variable rates) and 9(b) (comparable rates), per rate set of the runs."""
    checks: list[Check] = []
    sets = sorted(set(rows["rates"]))
    for rates in sets:
        t = _seconds(rows[rows["rates"] == rates], ["streams"])
        prefix = f"Rates {rates}: " if len(sets) > 1 else ""
        found = (_converge_checks if rates == "comparable" else _magnitude_checks)(t)
        checks += [replace(c, text=prefix + c.text) for c in found]
    return checks


def _ratio_note(t: pd.DataFrame, other: str | None) -> str:
    if other is None or "nlw" not in t:
        return ""
    return f" ({label(other)}: NLW / MW = {_listed(_spread(t['nlw'] / t[other]), 'N')}.)"


def _magnitude_checks(t: pd.DataFrame) -> list[Check]:
    """9(a): MW more than an order of magnitude better than NLW at every N, maintained as N grows;
    HW the most scalable (the fastest at the largest N)."""
    checks = []
    mw, other = _claim_mw(t.columns)
    if {"nlw", mw} <= set(t.columns):
        ratio = _spread(t["nlw"] / t[mw])
        ok, inside = _judge(ratio, lambda v: v > ORDER_OF_MAGNITUDE, "N")
        checks.append(Check(ok, f"{label(mw)} is more than an order of magnitude faster than NLW at every N "
                            f"(NLW / MW > {ORDER_OF_MAGNITUDE:g} in every seed): {_listed(ratio, 'N')}."
                            + inside + _ratio_note(t, other), "" if ok else SPEED_CAUSE, bool(inside)))
        first, last = min(ratio), max(ratio)
        top, inside = _judge({last: ratio[last]}, lambda v: v > ORDER_OF_MAGNITUDE)
        kept = bool(ratio[last].mean() >= ratio[first].mean() / MAINTAINED)
        checks.append(Check(top and kept, f"The advantage is maintained as N grows (at the largest N, NLW / MW > "
                            f"{ORDER_OF_MAGNITUDE:g} in every seed and at least 1/{MAINTAINED:g} of its value at the "
                            f"smallest N): {_fmt(ratio[first])} at N = {first}, {_fmt(ratio[last])} at N = {last}."
                            + inside, "" if top and kept else SPEED_CAUSE, bool(inside) and kept))
    checks += _hw_fastest(t, every_n=False)
    return checks


def _converge_checks(t: pd.DataFrame) -> list[Check]:
    """9(b): NLW and MW converge as N grows; HW achieves the best performance."""
    checks = []
    mw, other = _claim_mw(t.columns)
    if {"nlw", mw} <= set(t.columns):
        ratio = _spread(t["nlw"] / t[mw])
        first, last = min(ratio), max(ratio)
        band, inside = _judge({last: ratio[last]}, lambda v: 1 / CONVERGED <= v <= CONVERGED)
        closer = bool(abs(math.log(ratio[last].mean())) < abs(math.log(ratio[first].mean())))
        ok = band and closer
        checks.append(Check(ok, f"NLW and {label(mw)} converge as N grows (NLW / MW moves toward 1 from the smallest "
                            f"N to the largest, and ends within a factor {CONVERGED:g} of 1 in every seed): "
                            f"{_listed(ratio, 'N')}." + inside + _ratio_note(t, other),
                            "" if ok or mw != "mw-paper" else CONVERGE_CAUSE, bool(inside) and closer))
    checks += _hw_fastest(t, every_n=True)
    return checks


def _hw_fastest(t: pd.DataFrame, every_n: bool) -> list[Check]:
    """HW faster than every other line in every seed, at the largest N (scalable) or at every N (best)."""
    others = [p for p in t.columns if p != "hw"]
    if "hw" not in t.columns or not others:
        return []
    lead = t["hw"] / t[others].min(axis=1)  # below 1: HW is the fastest in that seed
    spread = _spread(lead)
    last = max(spread)
    if not every_n:
        spread = {last: spread[last]}
    ok, inside = _judge(spread, lambda v: v < 1, "N")
    means = t.xs(last, level="streams").mean()
    fastest = ", ".join(f"{label(p)} {v:.2f} µs" for p, v in means.sort_values().items())
    what = ("HW achieves the best performance: the fastest line at every N in every seed" if every_n else
            f"HW is the most scalable: the fastest line at the largest N = {last} in every seed")
    return [Check(ok, f"{what} (HW / fastest other = {_listed(spread, 'N')}; at N = {last}: {fastest})." + inside,
                  "" if ok else HW_CAUSE, bool(inside))]


def slow_checks(rows: pd.DataFrame, exp: dict) -> list[Check]:
    """Figure 9(c): MW's service time greatly improves with the switching stream; NLW's and HW's
    do not change significantly; judged seed by seed (switching against comparable, same seed)."""
    t = rows.pivot_table(index=["policy", "seed"], columns="rates", values="us_per_tuple", aggfunc="mean")
    if not {"comparable", "switching"} <= set(t.columns):
        return [Check(None, "Needs runs with comparable and switching rates.")]
    change = _spread(t["switching"] / t["comparable"])
    checks = []
    mw, other = _claim_mw(pd.Index(change))
    if mw in change:
        ok, inside = _judge({mw: change[mw]}, lambda v: v <= GREATLY)
        note = f" ({label(other)}: {_fmt(change[other])}.)" if other in change else ""
        checks.append(Check(ok, f"{label(mw)}'s performance is greatly improved by the slow stream (its service time "
                            f"at least halves: switching / comparable <= {GREATLY:g} in every seed): "
                            f"{_fmt(change[mw])} over {len(change[mw])} seed(s)." + inside + note,
                            within_seeds=bool(inside)))
    for p in ("nlw", "hw"):
        if p in change:
            ok, inside = _judge({p: change[p]}, lambda v: abs(v - 1) <= NO_CHANGE)
            checks.append(Check(ok, f"{label(p)}'s service time does not change significantly (by at most "
                                f"{NO_CHANGE:.0%} in every seed): switching / comparable = {_fmt(change[p])}." + inside,
                                "" if ok else SLOW_CAUSES[p], bool(inside)))
    checks.append(Check(None, "MW reacts rapidly to the changes in the rates: not tested (the figure shows the "
                        "service time per block of arrivals; no number states how fast a reaction must be)."))
    return checks


def _faster_checks(t: pd.DataFrame, key: str, cases: list[tuple[object, str, str, str]],
                   setting: Callable[[object], str]) -> list[Check]:
    """For each (x value, winner, what, cause): the winner faster than every other line there, in
    every seed."""
    checks = []
    for x, winner, what, cause in cases:
        if x not in t.index.get_level_values(key) or winner not in t.columns:
            continue
        part = t.xs(x, level=key)
        others = [p for p in part.columns if p != winner]
        if not others:
            continue
        lead = {x: (part[others].min(axis=1) / part[winner]).dropna().to_numpy()}
        ok, inside = _judge(lead, lambda v: v > 1)
        checks.append(Check(ok, f"{what} ({setting(x)}: fastest other / {label(winner)} > 1 in every seed: "
                            f"{_fmt(lead[x])})." + inside, "" if ok else cause, bool(inside)))
    return checks


def windows_checks(rows: pd.DataFrame, exp: dict) -> list[Check]:
    """Figure 13: LCA outperforms GCA at every window setting, even for small variations."""
    t = _seconds(rows, ["small"])
    window = int(rows["window"].iloc[0])
    smalls = sorted(set(rows["small"]), key=lambda s: abs(window - s))  # the smallest variation first
    cases = [(s, "lca", ("LCA outperforms GCA even for a small variation between the windows" if i == 0 and
                         len(smalls) > 1 else "LCA outperforms GCA"), "") for i, s in enumerate(smalls)]
    return _faster_checks(t, "small", cases, lambda s: f"other windows {s}, A-B {window}")


def path_checks(rows: pd.DataFrame, exp: dict) -> list[Check]:
    """Figure 14: for streams of comparable rates the pipelined NLW outperforms LCA; for variable
    rates LCA performs the best."""
    t = _seconds(rows, ["rates"])
    cases = [("comparable", "pipeline", "With small variations between the rates, NLW (pipeline) outperforms LCA",
              ""), ("variable", "lca", "With large variations between the rates, LCA performs the best", PATH_CAUSE)]
    return _faster_checks(t, "rates", cases, lambda r: f"rates {r}")


def shedding_checks(rows: pd.DataFrame, exp: dict) -> list[Check]:
    """DGR's claims for two streams carried to N: PROB far above RAND and LIFE, LIFE only
    marginally above RAND, the variable split gaining where the rates differ (means over seeds)."""
    t = rows.groupby(["streams", "rates", "memory", "policy"])["ratio"].mean().unstack("policy")
    checks = []
    for better, worse in (("prob", "rand"), ("prob", "life")):
        if {better, worse} <= set(t.columns):
            lead = t[better] - t[worse]
            ok = bool((lead >= 0).all() and lead.mean() >= FAR)
            checks.append(Check(ok, f"{label(better)} far outperforms {label(worse)} (never behind, and ahead by at "
                                f"least {FAR * 100:.0f} points of exact on average): ahead or level at "
                                f"{int((lead >= 0).sum())} of {len(t)} points, by {lead.mean() * 100:.1f} points on "
                                f"average (means {pct(t[better].mean())} against {pct(t[worse].mean())}).",
                                "" if ok or worse != "life" else LIFE_CAUSE))
    if {"life", "rand"} <= set(t.columns):
        lead = t["life"] - t["rand"]
        within = int(((lead >= 0) & (lead <= MARGINAL + 1e-12)).sum())
        ok = within == len(t)
        checks.append(Check(ok, f"LIFE only marginally beats RAND (ahead by 0 to {MARGINAL * 100:.0f} points of exact "
                            f"at every point): within that band at {within} of {len(t)} points; the lead ranges from "
                            f"{lead.min() * 100:.1f} to {lead.max() * 100:.1f} points (means {pct(t['life'].mean())} "
                            f"against {pct(t['rand'].mean())}).", "" if ok or lead.max() <= MARGINAL else LIFE_CAUSE))
    if {"prob", "probv"} <= set(t.columns) and "variable" in set(rows["rates"]):
        v = t.xs("variable", level="rates")
        gain = v["probv"] - v["prob"]
        ok = bool((gain >= 0).all() and gain.mean() > 0)
        worst = gain.idxmin()  # (N, M)
        behind = "" if gain.min() >= 0 else (f" PROBV is behind by up to {-gain.min() * 100:.1f} points, at N = "
                                             f"{worst[0]}, M = {worst[1]}.")
        checks.append(Check(ok, f"With variable rates the variable split gains: PROBV >= PROB at {int((gain >= 0).sum())} "
                            f"of {len(v)} points and ahead on average by {gain.mean() * 100:.1f} points (means "
                            f"{pct(v['probv'].mean())} against {pct(v['prob'].mean())})." + behind))
    return checks


CHECKS = {"service": service_checks, "slow": slow_checks, "shedding": shedding_checks, "windows": windows_checks,
          "path": path_checks}
