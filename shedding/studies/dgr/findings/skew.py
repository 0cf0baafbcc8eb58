"""Figure 6 (Das, Gehrke, Riedewald 2003, 4.3): PROB's and RAND's fraction of OPT as the Zipf skew grows,
judged on uncorrelated streams, and correlated streams against them."""

from __future__ import annotations

import pandas as pd

from shedding.studies.dgr.findings.causes import bound_cause, bound_fraction, correlated_text, joined
from shedding.studies.dgr.findings.stats import (paired, path, per_seed, prefix, same_shape, seed_mean, seed_range,
                                                 step_changes, without)
from shedding.studies.dgr.findings.thresholds import CORRELATED_SAME, MOVES, SKEW_HIGH, SKEW_PROB, SKEW_SAME
from shedding.studies.dgr.summary import Layout, facet_parts, field_text, memory_label
from shedding.studies.page.criterion import Criterion, Judgement, judge
from shedding.studies.page.format import pct
from shedding.studies.page.verdicts import Check


def skew_notes(rows: pd.DataFrame, lay: Layout) -> list[str]:
    """Figure 6: PROB's and RAND's fraction of OPT at the lowest skew, at Zipf 1 and at the highest
    skew, and the online bound's fraction of OPT beside them (4.3)."""
    notes = []
    for label, part in facet_parts(rows, without(lay.facets, "correlation")):
        for corr, sub in part.groupby("correlation"):
            prob, rand = (paired(sub, p, "opt", ["skew"]) for p in ("prob", "rand"))
            bound = bound_fraction(sub, ["skew"])
            where = f"{prefix(label)}{field_text('correlation', corr)}, {_memories(sub)}"
            shown = sorted({prob.index.min(), prob.index.max(), *(s for s in prob.index if s == SKEW_HIGH)})
            for skew in shown if not prob.empty else []:
                extra = [f"RAND {pct(rand[skew])}"] if skew in rand.index else []
                extra += [f"online bound {pct(bound[skew])}"] if skew in bound.index else []
                notes.append(f"{where}: PROB reaches {pct(prob[skew])} of OPT at Zipf {skew:g}"
                             + (f" ({', '.join(extra)})." if extra else "."))
    return notes


def _memories(rows: pd.DataFrame) -> str:
    """The memories of ``rows`` with their multiples of w ("M = 200 (0.5w)")."""
    return ", ".join(sorted({f"M = {memory_label(m, w)}" for m, w in zip(rows["memory"], rows["window"])}))


def skew_checks(rows: pd.DataFrame, lay: Layout, results: pd.DataFrame | None = None) -> list[Check]:
    """4.3 on uncorrelated streams, which Figure 6 plots (all streams when there are none): PROB over
    96% of OPT for moderate to high skew; RAND and PROB essentially identical at skew 0; RAND falls
    behind as skew grows, step by step; and correlated streams almost identical to uncorrelated ones."""
    checks = []
    for label, part in facet_parts(rows, without(lay.facets, "correlation")):
        judged = part[part["correlation"] == "independent"]
        for corr, sub in (judged if not judged.empty else part).groupby("correlation"):
            where = f"{prefix(label)}{field_text('correlation', corr)}: "
            checks += _high_skew_check(where, sub, results) + _uniform_check(where, sub, results)
            checks += _falls_behind_checks(where, sub)
        if not judged.empty:
            checks += _correlation_checks(prefix(label), part)
    return checks


def _high_skew_check(where: str, sub: pd.DataFrame, results: pd.DataFrame | None) -> list[Check]:
    """4.3: "over 96% of the output tuples ... for input with moderate to high skew" (skew >= 1)."""
    seeds = per_seed(sub, "prob", "opt", ["skew"])
    seeds = seeds[seeds.index.get_level_values("skew") >= SKEW_HIGH] if not seeds.empty else seeds
    if seeds.empty:
        return []
    mean = seed_mean(seeds)
    j = judge(seeds, Criterion(low=SKEW_PROB))
    worst = mean.idxmin()
    cause = "" if j.ok else joined(bound_cause(sub, ["skew"], worst, float(mean[worst]), SKEW_PROB),
                                             correlated_text(results, sub, ["skew"], worst))
    return [Check(bool(j.ok), f"{where}PROB reaches {pct(mean.min())} to {pct(mean.max())} of OPT for skew >= "
                  f"{SKEW_HIGH:g} (least at {worst:g}{seed_range(seeds, worst)}; {_memories(sub)}); criterion: >= "
                  f"{pct(SKEW_PROB)} at every such skew.", cause, j.inside)]


def _uniform_check(where: str, sub: pd.DataFrame, results: pd.DataFrame | None) -> list[Check]:
    """4.3: "for uniform data distribution (Zipf with parameter 0), the performance of RAND and PROB
    is essentially identical": within 2 points of OPT."""
    prob, rand = (per_seed(sub, p, "opt", ["skew"]) for p in ("prob", "rand"))
    if prob.empty or rand.empty or 0.0 not in prob.index.get_level_values("skew"):
        return []
    seeds = (prob - rand).dropna().xs(0.0, level="skew")
    gap = float(seeds.mean())
    j = judge(seeds, Criterion(-SKEW_SAME, SKEW_SAME))
    ok = bool(j.ok)
    cause = "" if ok else _uniform_cause(sub, results, gap)
    return [Check(ok, f"{where}at skew 0 PROB is {100 * gap:+.1f} points of OPT from RAND ("
                  f"{pct(seed_mean(prob)[0.0])} against {pct(seed_mean(rand)[0.0])}"
                  f"{seed_range(seeds, seeds.index[0], _points) if len(seeds) > 1 else ''}); criterion for "
                  f"'essentially identical' (4.3): within {100 * SKEW_SAME:.0f} points.", cause, j.inside)]


def _points(value: float) -> str:
    return f"{100 * value:+.1f} points"


def _uniform_cause(sub: pd.DataFrame, results: pd.DataFrame | None, gap: float) -> str:
    """PROB apart from RAND on uniform keys: above the online bound (foresight of the static table),
    and what the online estimator gives on the same streams elsewhere in the suite."""
    uniform = sub[sub["skew"] == 0.0]
    prob = paired(uniform, "prob", "opt", ["skew"])
    rand = paired(uniform, "rand", "opt", ["skew"])
    parts = ([bound_cause(uniform, ["skew"], 0.0, float(prob[0.0]), float(rand.get(0.0, 0.0)) + SKEW_SAME)]
             if 0.0 in prob.index else [])
    online = same_shape(results, uniform, estimator="online")
    if not online.empty and set(uniform["estimator"]) == {"static"}:
        memory = int(uniform["memory"].iloc[0])
        p, r = (paired(online, name, "opt", ["memory"]) for name in ("prob", "rand"))
        if memory in p.index and memory in r.index:
            where = ", ".join(sorted(set(online["experiment"].astype(str))))
            parts.append(f"with the online estimator on the same streams (experiment {where}, M = {memory}) PROB "
                         f"gives {pct(p[memory])} of OPT and RAND {pct(r[memory])}, "
                         f"{100 * (p[memory] - r[memory]):+.1f} points")
    return joined(*parts)


def _falls_behind_checks(where: str, sub: pd.DataFrame) -> list[Check]:
    """4.3: "as the skew becomes larger, the performance gap between RAND and PROB increases":
    PROB's lead over RAND grows, and RAND's fraction of OPT falls, at every step of the skew."""
    prob, rand = (per_seed(sub, p, "opt", ["skew"]) for p in ("prob", "rand"))
    if prob.empty or rand.empty or rand.index.get_level_values("skew").nunique() < 2:
        return []
    checks = []
    for seeds, what, grows in (((prob - rand).dropna(), "PROB's lead over RAND (points of OPT)", True),
                               (rand, "RAND's fraction of OPT", False)):
        mean = seed_mean(seeds)
        j = judge(step_changes(seeds), Criterion(low=MOVES) if grows else Criterion(high=-MOVES))
        wrong = list(j.failing)
        text = path(mean, _plain if grows else pct)
        at = ", ".join(f"{_before(mean, s):g} to {s:g}" for s in wrong)
        cause = "" if not wrong else _trend_cause(sub, j, at, grows)
        checks.append(Check(not wrong, f"{where}{what} over skew {', '.join(f'{s:g}' for s in mean.index)}: {text}"
                            + (f" (against the trend from skew {at})" if len(wrong) else "")
                            + f"; criterion: {'grows' if grows else 'falls'} at every step.", cause, j.inside))
    return checks


def _trend_cause(sub: pd.DataFrame, j: Judgement, at: str, grows: bool) -> str:
    """Why a step goes against the trend: the seeds' scatter, or (for RAND) OPT's share of EXACT,
    since RAND keeps about the same share of EXACT at every skew."""
    if j.inside:
        return "inside the seeds' scatter: at every such step at most half of the seeds move against the paper's way"
    if grows or "ratio" not in sub:
        return f"in every seed it moves against the trend from skew {at}; the suite has no runs that test why"
    rand = sub[sub["policy"] == "rand"].groupby("skew")["ratio"].mean()
    opt = sub[sub["policy"] == "opt"].groupby("skew")["ratio"].mean()
    if rand.empty or opt.empty or rand.max() - rand.min() > CORRELATED_SAME:
        return f"in every seed it moves against the trend from skew {at}; the suite has no runs that test why"
    return (f"RAND keeps about the same share of EXACT at every skew ({pct(rand.min())} to {pct(rand.max())}: it "
            f"ignores the keys), so its fraction of OPT mirrors OPT's share of EXACT, {path(opt)} over the same "
            f"skews: it rises where OPT's share falls")


def _plain(value: float) -> str:
    return f"{100 * value:.1f}"


def _before(mean: pd.Series, skew: float) -> float:
    """The skew before ``skew`` in ``mean``'s index."""
    index = list(mean.index)
    return index[index.index(skew) - 1]


def _correlation_checks(where: str, part: pd.DataFrame) -> list[Check]:
    """4.3: "Results for correlated Zipf distributions ... were almost identical": PROB's and RAND's
    fractions of OPT on correlated streams within 3 points of the uncorrelated ones at every skew."""
    same = part[part["correlation"] == "same"]
    indep = part[part["correlation"] == "independent"]
    if same.empty:
        return []
    checks = []
    for policy in ("prob", "rand"):
        a, b = per_seed(same, policy, "opt", ["skew"]), per_seed(indep, policy, "opt", ["skew"])
        if a.empty or b.empty:
            continue
        seeds = (a - b).dropna()
        mean = seed_mean(seeds)
        j = judge(seeds, Criterion(-CORRELATED_SAME, CORRELATED_SAME))
        worst = mean.abs().idxmax()
        cause = "" if j.ok else _correlation_cause(part, policy, worst, float(mean[worst]))
        checks.append(Check(bool(j.ok), f"{where}correlated against uncorrelated streams: {policy.upper()}'s "
                            f"fraction of OPT differs by up to {100 * mean[worst]:+.1f} points (at skew {worst:g}); "
                            f"criterion for 'almost identical' (4.3): within {100 * CORRELATED_SAME:.0f} points at every "
                            "skew.", cause, j.inside))
    return checks


def _correlation_cause(part: pd.DataFrame, policy: str, skew: float, moved: float) -> str:
    """Why a policy's fraction of OPT moves with the correlation: what moves with it (OPT's share of
    EXACT, the online bound) against what does not (RAND's share of EXACT)."""
    at = part[part["skew"] == skew]
    if "ratio" not in at:
        return joined()
    share = {c: at[at["correlation"] == c].groupby("policy")["ratio"].mean() for c in ("independent", "same")}
    bound = {c: bound_fraction(at[at["correlation"] == c], ["skew"]) for c in ("independent", "same")}
    if (policy == "rand" and "rand" in share["same"] and "rand" in share["independent"]
            and abs(share["same"]["rand"] - share["independent"]["rand"]) <= CORRELATED_SAME):
        return (f"RAND keeps the same share of EXACT either way ({pct(share['independent']['rand'])} uncorrelated, "
                f"{pct(share['same']['rand'])} correlated) but OPT does not, as the paper notes that correlation "
                "changes the total output: the figure's denominator moves, not RAND")
    if all(skew in b.index for b in bound.values()):
        b0, b1 = float(bound["independent"][skew]), float(bound["same"][skew])
        return (f"the online bound, what any online policy can expect, moves with it from {pct(b0)} to {pct(b1)} of "
                f"OPT ({100 * (b1 - b0):+.1f} points against PROB's {100 * moved:+.1f}): correlation changes how much "
                "knowing the future is worth, not how PROB ranks tuples")
    return joined()
