"""Figures 3 and 4 (Das, Gehrke, Riedewald 2003, 4.1, 4.2, 4.5, 4.6): PROB against the other online
policies and OPT as memory grows, LIFE between RAND and PROB, PROB's fraction of EXACT at M = w."""

from __future__ import annotations

import numpy as np
import pandas as pd

from shedding.studies.dgr.findings.stats import (at_w, gain, paired, per_seed, prefix, seed_mean, seed_outputs,
                                                 seed_range)
from shedding.studies.dgr.findings.thresholds import LIFE_CAUSE, LIFE_MARGINAL, MEMORY_CLOSE, ONLINE, PROB_EXACT, TOLERANCE
from shedding.studies.dgr.summary import Layout, facet_parts, memory_label
from shedding.studies.page.format import pct
from shedding.studies.page.verdicts import Check


def prob_exact_check(label: str, part: pd.DataFrame) -> list[Check]:
    """4.5, 4.6: PROB gives over 90% of EXACT's output with 50% of the memory (M = w); when it
    does not and OPT ran, OPT's own fraction of EXACT bounds every online policy."""
    found = at_w(part, "prob", "exact")
    if not found:
        return []
    m, windows, ratio = found
    seeds = per_seed(part, "prob", "exact", ["memory"])
    ok = bool(ratio[m] > PROB_EXACT)
    cause = ""
    opt = paired(part, "opt", "exact", ["memory"])
    if not ok and m in opt.index and opt[m] <= PROB_EXACT:
        cause = (f"OPT, the upper bound of every online policy, itself gives only {pct(opt[m])} of EXACT at this "
                 f"M, so no online policy can reach {pct(PROB_EXACT)} in this setting")
    return [Check(ok, f"{prefix(label)}PROB produces {pct(ratio[m])}{seed_range(seeds, m)} of EXACT's output at "
                      f"M = {memory_label(m, windows[m])}; criterion: over {pct(PROB_EXACT)} (paper 4.5, 4.6: "
                      "over 90% with 50% of the memory).", cause)]


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


def memory_checks(rows: pd.DataFrame, lay: Layout) -> list[Check]:
    """4.1: PROB by far outperforms RAND and LIFE and is very close to OPT; 4.2: LIFE is only
    marginally better than RAND; 4.5, 4.6: PROB gives over 90% of EXACT at M = w."""
    checks = []
    for label, part in facet_parts(rows, lay.facets):
        outputs = seed_outputs(part, ["memory", "seed"])
        online = [p for p in ONLINE if p in outputs]
        if "prob" in outputs and len(online) > 1:
            rivals = outputs[[p for p in online if p != "prob"]].max(axis=1)
            behind = outputs["prob"] < rivals * (1 - TOLERANCE)
            lost = sorted(set(behind[behind].index.get_level_values("memory")))
            memories = outputs.index.get_level_values("memory").nunique()
            seeds = outputs.index.get_level_values("seed").nunique()
            margin = (outputs["prob"] / rivals.where(rivals > 0)).min()
            checks.append(Check(not lost, f"{prefix(label)}PROB is the best online policy at "
                                f"{memories - len(lost)} of {memories} memories in every seed ({seeds})"
                                + (f" (behind at M = {', '.join(map(str, lost))})" if lost else "")
                                + f"; smallest lead over {'/'.join(p.upper() for p in online if p != 'prob')} "
                                  f"in any seed: {gain(margin)}."))
        prob_opt = per_seed(part, "prob", "opt", ["memory"])
        if not prob_opt.empty:
            mean = seed_mean(prob_opt)
            worst = mean.idxmin()
            ok = bool(mean.min() >= 1 - MEMORY_CLOSE)
            checks.append(Check(ok, f"{prefix(label)}PROB is at most {pct(1 - mean.min())} below OPT (at M = "
                                f"{worst}{seed_range(1 - prob_opt, worst)}); criterion: within "
                                f"{pct(MEMORY_CLOSE)} at every M."))
        checks += _life_check(label, part) + prob_exact_check(label, part)
    return checks


def life_position(rows: pd.DataFrame) -> pd.Series:
    """Per memory and seed, how far LIFE is from RAND towards PROB: 0 at RAND, 1 at PROB (4.2)."""
    if not {"rand", "prob", "life"} <= set(rows["policy"]):
        return pd.Series(dtype=float)
    out = seed_outputs(rows, ["memory", "seed"])
    span = (out["prob"] - out["rand"]).where(lambda v: v > 0)
    return ((out["life"] - out["rand"]) / span).dropna()


def _life_check(label: str, part: pd.DataFrame) -> list[Check]:
    """4.2: "the LIFE heuristic does only marginally better than RAND" (Figures 3 and 4; on the uniform
    data of Figure 5 PROB and RAND coincide, which leaves no way between them to measure)."""
    position = life_position(part)
    if position.empty:
        return []
    mean = seed_mean(position)
    ok = bool(mean.max() <= LIFE_MARGINAL)
    return [Check(ok, f"{prefix(label)}LIFE sits {pct(mean.min())} to {pct(mean.max())} of the way from RAND (0%) "
                      f"to PROB (100%) over M (seeds {pct(position.min())} to {pct(position.max())}); criterion for "
                      f"'only marginally better than RAND' (4.2): at most {pct(LIFE_MARGINAL)} at every M.",
                  "" if ok else LIFE_CAUSE)]
