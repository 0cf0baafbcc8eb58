"""Figures 3 and 4 (Das, Gehrke, Riedewald 2003, 4.1, 4.2, 4.5, 4.6): PROB against the other online
policies and OPT as memory grows, LIFE between RAND and PROB, PROB's fraction of EXACT at M = w, and
Figure 4 against Figure 3."""

from __future__ import annotations

import numpy as np
import pandas as pd

from shedding.studies.dgr.findings.causes import (bound_cause, correlated_text, joined, life_position,
                                                  life_readings)
from shedding.studies.dgr.findings.stats import (at_w, gain, paired, per_seed, prefix, seed_mean, seed_outputs,
                                                 seed_range)
from shedding.studies.dgr.findings.thresholds import (BY_FAR, LIFE_MARGINAL, MEMORY_CLOSE, ONLINE, PROB_EXACT,
                                                      SIMILAR_W, TOLERANCE)
from shedding.studies.dgr.spec import LIFE_READINGS
from shedding.studies.dgr.summary import Layout, facet_parts, memory_label
from shedding.studies.page.criterion import Criterion, judge
from shedding.studies.page.format import pct
from shedding.studies.page.verdicts import Check


def prob_exact_check(label: str, part: pd.DataFrame, results: pd.DataFrame | None = None) -> list[Check]:
    """4.5, 4.6: PROB gives over 90% of EXACT's output with 50% of the memory (M = w). A failure's
    cause: OPT itself below 90% of EXACT (then no online policy can reach it), else the online
    bound and PROB on correlated streams of the same shape."""
    found = at_w(part, "prob", "exact")
    if not found:
        return []
    m, windows, ratio = found
    seeds = per_seed(part, "prob", "exact", ["memory"])
    j = judge(seeds[seeds.index.get_level_values("memory") == m], Criterion(low=PROB_EXACT))
    ok = bool(j.ok)
    cause = ""
    opt = paired(part, "opt", "exact", ["memory"])
    if not ok and m in opt.index and opt[m] <= PROB_EXACT:
        cause = (f"OPT, the upper bound of every online policy, itself gives only {pct(opt[m])} of EXACT at this "
                 f"M, so no online policy can reach {pct(PROB_EXACT)} in this setting")
    elif not ok:
        cause = joined(bound_cause(part, ["memory"], m, float(ratio[m]), PROB_EXACT, of="exact"),
                       correlated_text(results, part, ["memory"], m, of="exact"))
    return [Check(ok, f"{prefix(label)}PROB produces {pct(ratio[m])}{seed_range(seeds, m)} of EXACT's output at "
                      f"M = {memory_label(m, windows[m])}; criterion: over {pct(PROB_EXACT)} (paper 4.5, 4.6: "
                      "over 90% with 50% of the memory).", cause, j.inside)]


def memory_notes(rows: pd.DataFrame, lay: Layout) -> list[str]:
    """Figures 3, 4: PROB's fraction of OPT at M = w, and RAND's linearity in M (4.1)."""
    notes = []
    for label, part in facet_parts(rows, lay.facets):
        if found := at_w(part, "prob", "opt"):
            m, windows, prob_opt = found
            worst = prob_opt.idxmin()
            notes.append(f"{prefix(label)}PROB reaches {pct(prob_opt[m])} of OPT at "
                         f"M = {memory_label(m, windows[m])}; "
                         f"lowest {pct(prob_opt[worst])} at M = {memory_label(worst, windows[worst])}.")
        notes += linearity(part, label)
        for reading, position in life_readings(part, part).items():
            notes.append(f"{prefix(label)}{LIFE_READINGS[reading]} ({reading.upper()}) sits {pct(position.min())} "
                         f"to {pct(position.max())} of the way from RAND to PROB over M.")
    return notes


def linearity(part: pd.DataFrame, label: str) -> list[str]:
    """RAND's output against M: a least-squares line and its R^2 (paper 4.1: "increases linearly")."""
    rand = part[part["policy"] == "rand"].groupby("memory")["outputs"].mean()
    if len(rand) < 3 or rand.var() == 0:
        return []
    x, y = rand.index.to_numpy(float), rand.to_numpy(float)
    slope, intercept = np.polyfit(x, y, 1)
    r2 = 1 - float(np.sum((y - (slope * x + intercept)) ** 2) / np.sum((y - y.mean()) ** 2))
    shape = "grows linearly" if r2 >= 0.95 else "does not grow linearly"
    return [f"{prefix(label)}RAND output {shape} with M (R^2 = {r2:.2f}, {slope:.1f} tuples per unit of M)."]


def memory_checks(rows: pd.DataFrame, lay: Layout, results: pd.DataFrame | None = None) -> list[Check]:
    """4.1: PROB by far outperforms RAND and LIFE and is very close to OPT; 4.2: LIFE is only
    marginally better than RAND; 4.5, 4.6: PROB gives over 90% of EXACT at M = w."""
    checks = []
    for label, part in facet_parts(rows, lay.facets):
        checks += _first_check(label, part) + _by_far_checks(label, part) + _close_check(label, part, results)
        checks += _life_check(label, part, results) + prob_exact_check(label, part, results)
    return checks


def _first_check(label: str, part: pd.DataFrame) -> list[Check]:
    """PROB ranks first among the online policies at every M (ties within 0.5%), by the one pass
    criterion on PROB's output over the best rival's."""
    outputs = seed_outputs(part, ["memory", "seed"])
    online = [p for p in ONLINE if p in outputs]
    if "prob" not in outputs or len(online) < 2:
        return []
    rivals = outputs[[p for p in online if p != "prob"]].max(axis=1)
    j = judge(outputs["prob"] / rivals.where(rivals > 0), Criterion(low=1 - TOLERANCE))
    lost = list(j.failing)
    memories = outputs.index.get_level_values("memory").nunique()
    seeds = outputs.index.get_level_values("seed").nunique()
    margin = (outputs["prob"] / rivals.where(rivals > 0)).min()
    names = "/".join(p.upper() for p in online if p != "prob")
    cause = "" if not lost else ("the seeds disagree: PROB leads in some seeds at those M and not in others"
                                 if j.inside else
                                 f"{names} keeps tuples that find more partners there in every seed")
    return [Check(not lost, f"{prefix(label)}PROB is the best online policy (ties within {pct(TOLERANCE)}) at "
                  f"{memories - len(lost)} of {memories} memories over {seeds} seed(s)"
                  + (f" (behind at M = {', '.join(map(str, lost))})" if lost else "")
                  + f"; smallest lead over {names} in any seed: {gain(margin)}.", cause, j.inside)]


def _by_far_checks(label: str, part: pd.DataFrame) -> list[Check]:
    """4.1 "by far outperforms RAND and LIFE": per rival, PROB's lead is at least 10 points of EXACT
    (the figure's scale) at every M. A failure's cause is the rival's own standing (LIFE: its
    check; RAND: how little room EXACT leaves)."""
    checks = []
    prob = per_seed(part, "prob", "exact", ["memory"])
    for rival in ("rand", "life"):
        other = per_seed(part, rival, "exact", ["memory"])
        if prob.empty or other.empty:
            continue
        seeds = (prob - other).dropna()
        lead = seed_mean(seeds)
        j = judge(seeds, Criterion(low=BY_FAR))
        short = lead[list(j.failing)]
        worst = lead.idxmin()
        cause = ""
        if len(short) and rival == "life":
            cause = "LIFE is close to PROB here, not to RAND; see the LIFE check for the readings of LIFE tested"
        elif len(short):
            room = 1 - paired(part, rival, "exact", ["memory"])
            cause = (f"RAND already gives {pct(1 - room[worst])} of EXACT at M = {worst}, which leaves PROB at most "
                     f"{100 * room[worst]:.1f} points to lead by" if room[worst] < BY_FAR else
                     bound_cause(part, ["memory"], worst, float(paired(part, "prob", "exact", ["memory"])[worst]),
                                 1.0 - room[worst] + BY_FAR, of="exact") or joined())
        checks.append(Check(short.empty, f"{prefix(label)}PROB leads {rival.upper()} by {100 * lead.min():.1f} to "
                            f"{100 * lead.max():.1f} points of EXACT over M (least at M = {worst}"
                            f"{seed_range(seeds, worst, _points)}); criterion for 'by far outperforms' (4.1): at least "
                            f"{100 * BY_FAR:.0f} points at every M.", cause, j.inside))
    return checks


def _points(value: float) -> str:
    """A difference of two fractions in points ("12.3 points")."""
    return f"{100 * value:.1f} points"


def _close_check(label: str, part: pd.DataFrame, results: pd.DataFrame | None) -> list[Check]:
    """4.1: PROB "is very close to the OPT curve": within 10% of OPT at every M (mean over seeds)."""
    prob_opt = per_seed(part, "prob", "opt", ["memory"])
    if prob_opt.empty:
        return []
    mean = seed_mean(prob_opt)
    worst = mean.idxmin()
    j = judge(prob_opt, Criterion(low=1 - MEMORY_CLOSE))
    failing = list(j.failing)
    cause = "" if not failing else joined(bound_cause(part, ["memory"], worst, float(mean[worst]), 1 - MEMORY_CLOSE),
                                             correlated_text(results, part, ["memory"], worst))
    return [Check(not failing, f"{prefix(label)}PROB is at most {pct(1 - mean.min())} below OPT (at M = "
                  f"{worst}{seed_range(1 - prob_opt, worst)}); criterion: within {pct(MEMORY_CLOSE)} at every M.",
                  cause, j.inside)]


def _life_check(label: str, part: pd.DataFrame, results: pd.DataFrame | None) -> list[Check]:
    """4.2: "the LIFE heuristic does only marginally better than RAND": LIFE at most a quarter of
    the way from RAND to PROB at every M. A failure's cause is tested with the LIFE readings the
    suite ran (:data:`shedding.studies.dgr.spec.LIFE_READINGS`)."""
    position = life_position(part)
    if position.empty:
        return []
    mean = seed_mean(position)
    j = judge(position, Criterion(high=LIFE_MARGINAL))
    return [Check(bool(j.ok), f"{prefix(label)}LIFE sits {pct(mean.min())} to {pct(mean.max())} of the way from "
                  f"RAND (0%) to PROB (100%) over M (seeds {pct(position.min())} to {pct(position.max())}); criterion "
                  f"for 'only marginally better than RAND' (4.2): at most {pct(LIFE_MARGINAL)} at every M.",
                  "" if j.ok else _life_cause(results, part), j.inside)]


TIED = 0.05  # a LIFE reading at most this far below RAND (towards 0% of the way to PROB) is tied with it


def _life_cause(results: pd.DataFrame | None, part: pd.DataFrame) -> str:
    """Which reading of LIFE's priority, if any, is only marginally better than RAND: at most 25% of
    the way to PROB at every M, above RAND somewhere and never clearly below it."""
    base = ("LIFE here is section 3.3.2's priority, remaining lifetime times the partner stream's probability, "
            "which ranks the frequent keys first as PROB does")
    readings = life_readings(results, part)
    if not readings:
        return f"{base}; the suite runs no other reading of it to test"
    tested = "; ".join(f"{LIFE_READINGS[r]} sits {pct(p.min())} to {pct(p.max())} of the way" for r, p in
                       readings.items())
    marginal = [r for r, p in readings.items() if 0 < p.max() <= LIFE_MARGINAL and p.min() >= -TIED]
    verdict = (f"so the paper's LIFE curve matches {' and '.join(LIFE_READINGS[r] for r in marginal)}, as if its "
               "lifetime outweighed the probability, which is what the paper's own explanation describes (newly "
               "arriving tuples almost always enter memory)" if marginal else
               "so no tested reading is marginally better than RAND either: the paper's LIFE curve, a little above "
               "RAND, lies between the stated product and the lifetime alone")
    return f"{base}; tested readings: {tested}; {verdict}"


def like_checks(rows: pd.DataFrame, lay: Layout, results: pd.DataFrame | None, like: str) -> list[Check]:
    """4.1: "the behavior of the various algorithms ... is similar for different window sizes"
    (Figure 4 against Figure 3, the experiment ``like``): per M/w, the online policies and OPT in
    the same order and each within 5 points of EXACT of the other figure's."""
    if results is None or not like:
        return []
    other = results[results["experiment"] == like]
    if other.empty or rows.empty:
        return [Check(None, f"Experiment {like}, the figure this one should resemble, has no runs yet.")]
    a, b = _by_multiple(rows), _by_multiple(other)
    both = a.join(b, lsuffix="_a", rsuffix="_b", how="inner")
    policies = [p for p in (*ONLINE, "opt") if f"{p}_a" in both and f"{p}_b" in both]
    if both.empty or not policies:
        return []
    diff = pd.DataFrame({p: both[f"{p}_a"] - both[f"{p}_b"] for p in policies})
    big = diff.abs().max(axis=1)
    worst_m, worst_p = big.idxmax(), diff.loc[big.idxmax()].abs().idxmax()
    order_a = both[[f"{p}_a" for p in policies]].rank(axis=1).to_numpy()
    order_b = both[[f"{p}_b" for p in policies]].rank(axis=1).to_numpy()
    same_order = bool((order_a == order_b).all())
    ok = bool(big.max() <= SIMILAR_W) and same_order
    cause = ""
    if not ok:
        cause = (f"{worst_p.upper()} moves most: {pct(both.loc[worst_m, f'{worst_p}_b'])} of EXACT in {like} and "
                 f"{pct(both.loc[worst_m, f'{worst_p}_a'])} here at M = {w_text(worst_m)}")
    return [Check(ok, f"Against {like} at the same M/w: {', '.join(p.upper() for p in policies)} differ by at most "
                  f"{100 * big.max():.1f} points of EXACT ({worst_p.upper()} at M = {w_text(worst_m)}), "
                  f"{'in the same order' if same_order else 'in another order'} at every M/w; criterion for "
                  f"'similar for different window sizes' (4.1): the same order and within {100 * SIMILAR_W:.0f} points.",
                  cause)]


def _by_multiple(rows: pd.DataFrame) -> pd.DataFrame:
    """Each policy's fraction of EXACT per M/w, mean over seeds."""
    frame = rows.assign(mw=(rows["memory"] / rows["window"]).round(4))
    return frame.pivot_table(index="mw", columns="policy", values="ratio", aggfunc="mean")


def w_text(multiple: float) -> str:
    """A memory as a multiple of w ("0.5w")."""
    return f"{multiple:g}w"
