"""The W-join paper's claims against a run (Hammad, Aref, Elmagarmid 2002, §4.3 and §5.3): MW
against NLW and HW (Figures 9(a) and 9(b)), the slow stream (Figure 9(c)), GCA against LCA
(Figure 13) and the path W-join (Figure 14); the shedding study's checks are in :mod:`.shed`.

Each part of a claim is one check with its criterion stated, judged by the one pass criterion of
:mod:`shedding.studies.page.criterion`. Timed lines are compared round by round (:mod:`.timing`):
a seed's value is the median of its rounds, and a check is decided only where its spread (the
middle half of the rounds, and at least :data:`~.timing.RESOLUTION` either side) lies on one
side of its criterion, else it is not decidable at this scale. Where a figure has both MWs, the
paper's MW carries the claim about MW and the optimised MW's numbers are given beside it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from shedding.studies.page.criterion import Criterion, Judgement, combined
from shedding.studies.page.verdicts import Check, checked
from shedding.studies.wjoin.figures import label
from shedding.studies.wjoin.timing import Timed, per_round

ORDER_OF_MAGNITUDE = 10.0  # "more than an order of magnitude better" (§4.3): NLW / MW > 10
MAINTAINED = 2.0  # "maintained as N grows": at the largest N still > 10, and at least 1/2 of the smallest N's
CONVERGED = 1.5  # "converges": NLW / MW ends within a factor 1.5 of 1, closer to 1 than at the smallest N
GREATLY = 0.5  # "greatly improved": the service time at least halves
NO_CHANGE = 0.25  # "not changed significantly": the service time changes by at most 25%
SPEED_CAUSE = ("the operators here are pure Python, so a fixed per-tuple cost (the call, the clock, the queues, "
               "MW's sweep) bounds the speed-up, and NLW purges against the newest tuple of every stream, so it "
               "scans few tuples outside the window (the Benchmarks page, W-join, has the numbers)")
CONVERGE_CAUSE = ("NLW tests the window of every candidate at every level of its nested loop and recomputes the "
                  "period after every match, while Mode 2 of the paper's MW tests only the key; the difference "
                  "multiplies with the depth of the loop, so the ratio grows with N instead of falling to 1")
HW_CAUSE = ("HW's probe runs the shared nested loop with a period test for every candidate of each key's bucket, "
            "while in Form 1 MW needs no window test")
GCA_CAUSE = ("GCA and LCA run the same MW, and with windows this close the per-stream widest windows of LCA cut "
             "few candidates that GCA's single widest window keeps, so the saving is smaller than the refinement "
             "both pay per N-tuple")
PIPELINE_CAUSE = ("the pipelined NLW extends each new tuple along the path one neighbour at a time, and with equal "
                  "rates every buffer it scans is as full as MW's, so MW's key filter saves it the scans NLW pays")
PATH_CAUSE = ("MW's bookkeeping per tuple (input queues, the sweep, one Mode 2 per starting N-tuple) costs more in "
              "Python than the scans of the slow streams' sparse buffers it saves the pipeline")
MW_SLOW_CAUSE = ("MW's per-tuple cost here is mostly fixed bookkeeping (the queues and the sweep) that a slow stream "
                 "does not remove; only the Mode 2 joins it saves shrink")
SLOW_CAUSES = {"hw": "HW stops probing as soon as one stream has no tuple of the key, which the slow stream's sparse "
                     "buffer makes common, so HW gains from a slow stream too",
               "nlw": "NLW's buffers are purged against the newest tuple of every stream, so a slow stream changes "
                      "how much of the other buffers it keeps and scans"}


def _inside(j: Judgement, name: str = "") -> str:
    """The note on a failure inside the seed range: at each failing point how many seeds meet it."""
    if j.ok is not False or not j.inside:
        return ""
    where = "; ".join((f"at {name} = {k}, " if name and k is not None else "") + j.seeds_met(k) for k in j.failing)
    return f" The failure is inside the seed range ({where})."


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
        t = per_round(rows[rows["rates"] == rates], ["streams"])
        prefix = f"Rates {rates}: " if len(sets) > 1 else ""
        found = (_converge_checks if rates == "comparable" else _magnitude_checks)(t)
        checks += [Check(c.ok, prefix + c.text, c.cause, c.within_seeds, c.undecided) for c in found]
    return checks


def _ratio_note(t: pd.DataFrame, other: str | None) -> str:
    if other is None or "nlw" not in t:
        return ""
    return f" ({label(other)}: NLW / MW = {Timed.of(t['nlw'] / t[other]).listed('N')}.)"


def _ends(ratio: pd.Series) -> tuple[object, object, pd.Series, pd.Series]:
    """The smallest and largest N of a per-round series, and its rounds at each (index: seed, round)."""
    ns = sorted(set(ratio.index.get_level_values(0)))
    return ns[0], ns[-1], ratio.xs(ns[0], level=0), ratio.xs(ns[-1], level=0)


def _magnitude_checks(t: pd.DataFrame) -> list[Check]:
    """9(a): MW more than an order of magnitude better than NLW at every N, maintained as N grows;
    HW the most scalable (the fastest at the largest N)."""
    checks = []
    mw, other = _claim_mw(t.columns)
    if {"nlw", mw} <= set(t.columns):
        rounds = t["nlw"] / t[mw]
        ratio = Timed.of(rounds)
        j = ratio.judge(Criterion(low=ORDER_OF_MAGNITUDE))
        checks.append(checked(j, f"{label(mw)} is more than an order of magnitude faster than NLW at every N "
                                 f"(NLW / MW > {ORDER_OF_MAGNITUDE:g}): {ratio.listed('N')}." + _inside(j, "N")
                              + _ratio_note(t, other), SPEED_CAUSE))
        first, last, at_first, at_last = _ends(rounds)
        top = Timed.of(at_last).judge(Criterion(low=ORDER_OF_MAGNITUDE))
        kept = Timed.of(at_last / at_first).judge(Criterion(low=1 / MAINTAINED))
        j = combined(top, kept)
        checks.append(checked(j, f"The advantage is maintained as N grows (at the largest N, NLW / MW > "
                                 f"{ORDER_OF_MAGNITUDE:g} and at least 1/{MAINTAINED:g} of its value at the smallest "
                                 f"N): {ratio.text(first)} at N = {first}, {ratio.text(last)} at N = {last}."
                              + _inside(j), SPEED_CAUSE))
    checks += _hw_fastest(t, every_n=False)
    return checks


def _converge_checks(t: pd.DataFrame) -> list[Check]:
    """9(b): NLW and MW converge as N grows; HW achieves the best performance."""
    checks = []
    mw, other = _claim_mw(t.columns)
    if {"nlw", mw} <= set(t.columns):
        rounds = t["nlw"] / t[mw]
        ratio = Timed.of(rounds)
        first, last, at_first, at_last = _ends(rounds)
        band = Timed.of(at_last).judge(Criterion(1 / CONVERGED, CONVERGED))
        closer = Timed.of(np.abs(np.log(at_first)) - np.abs(np.log(at_last)), log=True).judge(Criterion(low=0.0))
        j = combined(band, closer)
        checks.append(checked(j, f"NLW and {label(mw)} converge as N grows (NLW / MW moves toward 1 from the smallest "
                                 f"N to the largest, and ends within a factor {CONVERGED:g} of 1): "
                                 f"{ratio.listed('N')}." + _inside(j) + _ratio_note(t, other),
                              CONVERGE_CAUSE if mw == "mw-paper" else SPEED_CAUSE))
    checks += _hw_fastest(t, every_n=True)
    return checks


def _hw_fastest(t: pd.DataFrame, every_n: bool) -> list[Check]:
    """HW faster than every other line, at the largest N (scalable) or at every N (best)."""
    others = [p for p in t.columns if p != "hw"]
    if "hw" not in t.columns or not others:
        return []
    rounds = t["hw"] / t[others].min(axis=1)  # below 1: HW is the fastest in that round
    last = max(rounds.index.get_level_values(0))
    if not every_n:
        rounds = rounds[rounds.index.get_level_values(0) == last]
    lead = Timed.of(rounds)
    j = lead.judge(Criterion(high=1.0))
    means = t.xs(last, level=0).median().sort_values()
    fastest = ", ".join(f"{label(p)} {v:.2f} µs" for p, v in means.items())
    what = ("HW achieves the best performance: the fastest line at every N" if every_n else
            f"HW is the most scalable: the fastest line at the largest N = {last}")
    return [checked(j, f"{what} (HW / fastest other < 1: {lead.listed('N')}; median round at N = {last}: "
                       f"{fastest})." + _inside(j, "N"), HW_CAUSE)]


def slow_checks(rows: pd.DataFrame, exp: dict) -> list[Check]:
    """Figure 9(c): MW's service time greatly improves with the switching stream; NLW's and HW's
    do not change significantly; switching against comparable rates, round by round."""
    t = per_round(rows, ["policy"], column="rates")
    if not {"comparable", "switching"} <= set(t.columns):
        return [Check(None, "Needs runs with comparable and switching rates.")]
    change = t["switching"] / t["comparable"]
    lines = set(change.index.get_level_values(0))
    checks = []
    mw, other = _claim_mw(pd.Index(sorted(lines)))
    if mw in lines:
        one = Timed.of(change).at(mw)
        j = one.judge(Criterion(high=GREATLY))
        note = f" ({label(other)}: {Timed.of(change).text(other)}.)" if other is not None and other in lines else ""
        checks.append(checked(j, f"{label(mw)}'s performance is greatly improved by the slow stream (its service time "
                                 f"at least halves: switching / comparable <= {GREATLY:g}): {one.text()} over "
                                 f"{len(one.value)} seed(s)." + _inside(j) + note, MW_SLOW_CAUSE))
    for p in ("nlw", "hw"):
        if p in lines:
            one = Timed.of(change).at(p)
            j = one.judge(Criterion(1 - NO_CHANGE, 1 + NO_CHANGE))
            checks.append(checked(j, f"{label(p)}'s service time does not change significantly (by at most "
                                     f"{NO_CHANGE:.0%}: switching / comparable = {one.text()})." + _inside(j),
                                  SLOW_CAUSES[p]))
    checks.append(Check(None, "MW reacts rapidly to the changes in the rates: not tested (the figure shows the "
                        "service time per block of arrivals; no number states how fast a reaction must be)."))
    return checks


def _faster_checks(t: pd.DataFrame, cases: Sequence[tuple[object, str, str, str]], setting) -> list[Check]:
    """For each (x value, winner, what, cause): the winner faster than every other line there
    (fastest other / winner > 1), round by round."""
    checks = []
    for x, winner, what, cause in cases:
        if x not in t.index.get_level_values(0) or winner not in t.columns:
            continue
        part = t.xs(x, level=0)
        others = [p for p in part.columns if p != winner]
        if not others:
            continue
        lead = Timed.of(part[others].min(axis=1) / part[winner])
        j = lead.judge(Criterion(low=1.0))
        checks.append(checked(j, f"{what} ({setting(x)}: fastest other / {label(winner)} > 1: {lead.text()})."
                              + _inside(j), cause))
    return checks


def windows_checks(rows: pd.DataFrame, exp: dict) -> list[Check]:
    """Figure 13: LCA outperforms GCA at every window setting, even for small variations."""
    t = per_round(rows, ["small"])
    window = int(rows["window"].iloc[0])
    smalls = sorted(set(rows["small"]), key=lambda s: abs(window - s))  # the smallest variation first
    cases = [(s, "lca", ("LCA outperforms GCA even for a small variation between the windows" if i == 0 and
                         len(smalls) > 1 else "LCA outperforms GCA"), GCA_CAUSE) for i, s in enumerate(smalls)]
    return _faster_checks(t, cases, lambda s: f"other windows {s}, A-B {window}")


def path_checks(rows: pd.DataFrame, exp: dict) -> list[Check]:
    """Figure 14: for streams of comparable rates the pipelined NLW outperforms LCA; for variable
    rates LCA performs the best."""
    t = per_round(rows, ["rates"])
    cases = [("comparable", "pipeline", "With small variations between the rates, NLW (pipeline) outperforms LCA",
              PIPELINE_CAUSE),
             ("variable", "lca", "With large variations between the rates, LCA performs the best", PATH_CAUSE)]
    return _faster_checks(t, cases, lambda r: f"rates {r}")
