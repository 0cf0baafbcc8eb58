"""Figure 5 (Das, Gehrke, Riedewald 2003, 4.2): on uniform keys the online policies are alike and OPT
gains little."""

from __future__ import annotations

import pandas as pd

from shedding.studies.dgr.findings.causes import bound_fraction, foresight_text, joined
from shedding.studies.dgr.findings.memory import linearity
from shedding.studies.dgr.findings.stats import gain, paired, prefix, seed_mean, seed_outputs, seed_range
from shedding.studies.dgr.findings.thresholds import ONLINE, UNIFORM_OPT_GAIN, UNIFORM_SPREAD
from shedding.studies.dgr.summary import Layout, facet_parts
from shedding.studies.page.format import pct
from shedding.studies.page.criterion import Criterion, judge
from shedding.studies.page.verdicts import Check


def uniform_notes(rows: pd.DataFrame, lay: Layout) -> list[str]:
    """Figure 5: RAND's linearity in M (4.1), and the estimator the online policies used."""
    notes = []
    for label, part in facet_parts(rows, lay.facets):
        notes += linearity(part, label)
        estimators = sorted(set(part.loc[part["policy"].isin(["prob", "life"]), "estimator"]))
        if "online" in estimators:
            notes.append(f"{prefix(label)}PROB and LIFE count the keys seen so far (the online estimator): the "
                         "static table of whole-stream frequencies tells them which keys the rest of the stream "
                         "holds, foresight that uniform keys would otherwise reward.")
    return notes


def uniform_checks(rows: pd.DataFrame, lay: Layout, results: pd.DataFrame | None = None) -> list[Check]:
    """4.2: on uniform data the online policies produce about the same output, and "even knowing
    the future (OPT curve) does not result in a major improvement". Failures are set against the
    online bound, what any online policy can expect on i.i.d. streams."""
    checks = []
    for label, part in facet_parts(rows, lay.facets):
        outputs = seed_outputs(part, ["memory", "seed"])
        online = [p for p in ONLINE if p in outputs]
        bound = _bound_outputs(part)
        if len(online) >= 2:
            top = outputs[online].max(axis=1)
            seeds = ((top - outputs[online].min(axis=1)) / top.where(top > 0)).fillna(0)
            spread = seed_mean(seeds)
            j = judge(seeds, Criterion(high=UNIFORM_SPREAD))
            worst = spread.idxmax()
            checks.append(Check(bool(j.ok), f"{prefix(label)}{'/'.join(p.upper() for p in online)}: the worst is "
                                f"at most {pct(spread.max())} below the best (at M = {worst}{seed_range(seeds, worst)}"
                                f"); criterion: within {pct(UNIFORM_SPREAD)} at every M.",
                                "" if j.ok else _spread_cause(part, outputs[online], bound, worst), j.inside))
        if "opt" in outputs and online:
            lead = (outputs["opt"] / outputs[online].max(axis=1).where(lambda v: v > 0)).dropna()
            mean = seed_mean(lead)
            j = judge(lead, Criterion(high=1 + UNIFORM_OPT_GAIN))
            top_m = mean.idxmax()
            checks.append(Check(bool(j.ok), f"{prefix(label)}OPT is {gain(mean.min())} to {gain(mean.max())} above "
                                f"the best online policy over M (largest at M = {top_m}{seed_range(lead, top_m, gain)}); "
                                f"criterion for 'no major improvement' (4.2): at most {gain(1 + UNIFORM_OPT_GAIN)} "
                                "at every M.", "" if j.ok else _opt_cause(part, top_m), j.inside))
    return checks


def _bound_outputs(part: pd.DataFrame) -> pd.Series:
    """The online bound per memory (mean over seeds), in output tuples."""
    if "online_bound" not in part:
        return pd.Series(dtype=float)
    opt = part[(part["policy"] == "opt") & part["online_bound"].notna()]
    return opt.groupby("memory")["online_bound"].mean()


def _spread_cause(part: pd.DataFrame, online: pd.DataFrame, bound: pd.Series, m: int) -> str:
    """Why the online policies differ on uniform keys: against the online bound, the best is above
    what any policy can expect (foresight, with the static table) or they scatter around it."""
    if m not in bound.index:
        return joined()
    mean = online.groupby(level="memory").mean().loc[m]
    best, worst = mean.idxmax(), mean.idxmin()
    above = mean[best] / bound[m] - 1
    estimator = set(part.loc[part["policy"] == best, "estimator"])
    if above > UNIFORM_SPREAD / 2 and estimator == {"static"}:
        return (f"{best.upper()} is {gain(1 + above)} above the online bound at M = {m}, the most any online "
                "policy can expect on uniform keys: the static table of whole-stream frequencies tells it which "
                "keys the rest of the stream holds (foresight)")
    leaders = online.xs(m, level="memory").idxmax(axis=1).value_counts()
    who = ", ".join(f"{p.upper()} in {n}" for p, n in leaders.items())
    return (f"with uniform keys every policy can expect the same output (the online bound, {bound[m]:,.0f} at "
            f"M = {m}); {best.upper()} ({gain(mean[best] / bound[m])}) and {worst.upper()} "
            f"({gain(mean[worst] / bound[m])}) scatter around it by chance"
            + (f": the best policy changes from seed to seed ({who})" if len(leaders) > 1 else ""))


def _opt_cause(part: pd.DataFrame, m: int) -> str:
    """Why OPT gains much on uniform keys: the online bound shows how much of it no online policy can get."""
    bound = bound_fraction(part, ["memory"])
    if m not in bound.index:
        return joined()
    value = float(paired(part, "prob", "opt", ["memory"]).get(m, 0.0))
    if value > bound[m] + UNIFORM_SPREAD / 2 and set(part.loc[part["policy"] == "prob", "estimator"]) == {"static"}:
        return foresight_text(float(bound[m]), value)
    return (f"the online bound, the most any online policy can expect on uniform i.i.d. keys, is only {pct(bound[m])} "
            f"of OPT at M = {m}: OPT's lead is what knowing the future is worth here, which no online policy can get")
