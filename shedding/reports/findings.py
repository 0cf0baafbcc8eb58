"""Findings computed from a suite's results, and a check of each experiment's claim against the
statements of Das, Gehrke, Riedewald (SIGMOD 2003), section 4.

Each check states its criterion and the numbers, and says "disagrees" when the data does:

* memory (Figures 3, 4): PROB is the best online policy at every M and within 10% of OPT (4.1).
* uniform memory (Figure 5): the online policies are within 5% of each other at every M (4.2).
* variable split (4.3): PROBV and OPTV are at least as good as PROB and OPT, and gain at most 10%.
* skew (Figure 6): PROB >= 96% of OPT for skew >= 1; RAND falls behind PROB as skew grows (4.3).
* domain (Figures 9-11): the EXACT/OPT gap shrinks and the OPT/PROB gap grows with the domain (4.4).
* share (4.3, Figure 8): the more skewed stream gets more memory, at most about 75% (+10 points).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .figures import Layout, facet_parts, field_text, memory_label, pct, plan, share_curves, share_stats

ONLINE = ("rand", "prob", "life")
VARIABLE = {"probv": "prob", "optv": "opt", "randv": "rand", "lifev": "life"}
MEMORY_CLOSE = 0.10     # 4.1: PROB "very close to the OPT curve"
UNIFORM_SPREAD = 0.05   # 4.2: online policies produce "about the same number of output tuples"
VARIABLE_GAIN = 0.10    # 4.3: the variable split's gain "never exceeded 10%"
SKEW_PROB = 0.96        # 4.3: "over 96% of the output tuples ... for moderate to high skew"
SKEW_HIGH = 1.0         # skew from which the 96% applies
SHARE_PEAK = 75.0       # 4.3: "up to a share of 75%"
SHARE_SLACK = 10.0      # percentage points of slack on the 75%
WEATHER_EXACT = 0.90    # 4.5: "over 90% of the output tuples ... with 50% of the memory"
WEATHER_SAME = 0.02     # 4.5: PROB and PROBV "almost identical"
TOLERANCE = 0.005       # relative ties, so that seed noise does not flip an ordering


@dataclass(frozen=True)
class Check:
    """One part of a claim: passed (True), failed (False) or not checkable (None), and why."""

    ok: bool | None
    text: str


@dataclass(frozen=True)
class Verdict:
    """Whether this run agrees with an experiment's claim, from its checks."""

    claim: str
    checks: tuple[Check, ...]

    @property
    def word(self) -> str:
        """agrees, disagrees, partly agrees, or not checked."""
        known = [c.ok for c in self.checks if c.ok is not None]
        if not known:
            return "not checked"
        return "agrees" if all(known) else "disagrees" if not any(known) else "partly agrees"


def gain(value: float) -> str:
    """A ratio as a signed percentage change (1.023 -> +2.3%)."""
    return "-" if not np.isfinite(value) else f"{100 * (value - 1):+.1f}%"


def paired(rows: pd.DataFrame, a: str, b: str, keys: list[str]) -> pd.Series:
    """Mean over seeds of outputs(a) / outputs(b) per ``keys``, pairing runs of the same seed
    (0/0 counts as 1, like the runner's ``ratio_opt``); empty when a policy is missing."""
    if not {a, b} <= set(rows["policy"]):
        return pd.Series(dtype=float)
    table = rows.pivot_table(index=[*keys, "seed"], columns="policy", values="outputs", aggfunc="mean")
    ratio = table[a] / table[b].where(table[b] > 0)
    ratio[(table[a] == 0) & (table[b] == 0)] = 1.0
    return ratio.groupby(level=list(range(len(keys)))).mean().dropna()


def mean_outputs(rows: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Mean outputs over seeds, one column per policy."""
    return rows.pivot_table(index=keys, columns="policy", values="outputs", aggfunc="mean")


def _windows(rows: pd.DataFrame) -> dict:
    return rows.groupby("memory")["window"].first().to_dict()


def _nearest_w(memories: list[int], windows: dict) -> int:
    """The memory closest to M = w, where the paper quotes its numbers."""
    return min(memories, key=lambda m: (abs(m / windows[m] - 1) if windows[m] else m, m))


def _prefix(label: str) -> str:
    return f"{label}: " if label else ""


def _at_w(part: pd.DataFrame, a: str, b: str) -> tuple[int, dict, pd.Series] | None:
    """outputs(a) / outputs(b) per memory, with the memory nearest M = w and the windows; None
    when that memory has no pair."""
    windows = _windows(part)
    m = _nearest_w(list(windows), windows) if windows else None
    ratio = paired(part, a, b, ["memory"])
    return (m, windows, ratio) if m in ratio.index else None


def _prob_exact_text(label: str, m: int, windows: dict, value: float) -> str:
    return (f"{_prefix(label)}PROB produces {pct(value)} of EXACT's output at M = {memory_label(m, windows[m])} "
            f"(paper: over {100 * WEATHER_EXACT:.0f}% with 50% of the memory).")


def memory_notes(rows: pd.DataFrame, lay: Layout, with_exact: bool = True) -> list[str]:
    """Figures 3, 4: PROB's fraction of OPT and EXACT at M = w, and RAND's linearity in M (4.1)."""
    notes = []
    for label, part in facet_parts(rows, lay.facets):
        if found := _at_w(part, "prob", "opt"):
            m, windows, prob_opt = found
            worst = prob_opt.idxmin()
            notes.append(f"{_prefix(label)}PROB reaches {pct(prob_opt[m])} of OPT at "
                         f"M = {memory_label(m, windows[m])}; "
                         f"lowest {pct(prob_opt[worst])} at M = {memory_label(worst, windows[worst])}.")
        if with_exact and (found := _at_w(part, "prob", "exact")):
            m, windows, prob_exact = found
            notes.append(_prob_exact_text(label, m, windows, prob_exact[m]))
        notes += _linearity(part, label)
    return notes


def _linearity(part: pd.DataFrame, label: str) -> list[str]:
    """RAND's output against M: a least-squares line and its R^2 (paper 4.1: "increases linearly")."""
    rand = part[part["policy"] == "rand"].groupby("memory")["outputs"].mean()
    if len(rand) < 3 or rand.var() == 0:
        return []
    x, y = rand.index.to_numpy(float), rand.to_numpy(float)
    slope, intercept = np.polyfit(x, y, 1)
    r2 = 1 - float(np.sum((y - (slope * x + intercept)) ** 2) / np.sum((y - y.mean()) ** 2))
    shape = "grows linearly" if r2 >= 0.95 else "does not grow linearly"
    return [f"{_prefix(label)}RAND output {shape} with M (R^2 = {r2:.2f}, {slope:.1f} tuples per unit of M)."]


def memory_checks(rows: pd.DataFrame, lay: Layout) -> list[Check]:
    """4.1: PROB by far outperforms RAND and LIFE and is very close to OPT."""
    checks = []
    for label, part in facet_parts(rows, lay.facets):
        means = mean_outputs(part, ["memory"])
        online = [p for p in ONLINE if p in means]
        if "prob" in means and len(online) > 1:
            rivals = means[[p for p in online if p != "prob"]].max(axis=1)
            lost = means.index[means["prob"] < rivals * (1 - TOLERANCE)].tolist()
            margin = (means["prob"] / rivals.where(rivals > 0)).min()
            checks.append(Check(not lost, f"{_prefix(label)}PROB is the best online policy at "
                                f"{len(means) - len(lost)} of {len(means)} memories"
                                + (f" (behind at M = {', '.join(map(str, lost))})" if lost else "")
                                + f"; smallest lead over {'/'.join(p.upper() for p in online if p != 'prob')}: "
                                  f"{gain(margin)}."))
        prob_opt = paired(part, "prob", "opt", ["memory"])
        if not prob_opt.empty:
            worst = prob_opt.idxmin()
            ok = bool(prob_opt.min() >= 1 - MEMORY_CLOSE)
            checks.append(Check(ok, f"{_prefix(label)}PROB trails OPT by at most {pct(1 - prob_opt.min())} "
                                f"(at M = {worst}); criterion: within {pct(MEMORY_CLOSE)} at every M."))
    return checks


def uniform_notes(rows: pd.DataFrame, lay: Layout) -> list[str]:
    """Figure 5: how much OPT gains over the best online policy ("even knowing the future does not
    result in a major improvement", 4.2), and RAND's linearity."""
    notes = []
    for label, part in facet_parts(rows, lay.facets):
        means = mean_outputs(part, ["memory"])
        online = [p for p in ONLINE if p in means]
        if "opt" in means and online:
            lead = means["opt"] / means[online].max(axis=1).where(lambda v: v > 0)
            notes.append(f"{_prefix(label)}OPT beats the best online policy by {gain(lead.min())} to "
                         f"{gain(lead.max())} over M (paper: no major improvement on uniform data).")
        notes += _linearity(part, label)
    return notes


def uniform_checks(rows: pd.DataFrame, lay: Layout) -> list[Check]:
    """4.2: on uniform data the online policies produce about the same output."""
    checks = []
    for label, part in facet_parts(rows, lay.facets):
        means = mean_outputs(part, ["memory"])
        online = [p for p in ONLINE if p in means]
        if len(online) < 2:
            continue
        top = means[online].max(axis=1)
        spread = ((top - means[online].min(axis=1)) / top.where(top > 0)).fillna(0)
        ok = bool(spread.max() <= UNIFORM_SPREAD)
        checks.append(Check(ok, f"{_prefix(label)}{'/'.join(p.upper() for p in online)} differ by at most "
                            f"{pct(spread.max())} (at M = {spread.idxmax()}); criterion: within "
                            f"{pct(UNIFORM_SPREAD)} at every M."))
    return checks


def variable_checks(rows: pd.DataFrame, lay: Layout) -> list[Check]:
    """4.3: PROBV and OPTV beat their fixed-split counterparts, by at most 10%."""
    checks = []
    for label, part in facet_parts(rows, lay.facets):
        for var, fixed in (("probv", "prob"), ("optv", "opt")):
            ratio = paired(part, var, fixed, ["memory"])
            if ratio.empty:
                continue
            best, worst = ratio.idxmax(), ratio.idxmin()
            ok = bool(ratio.min() >= 1 - TOLERANCE and ratio.max() <= 1 + VARIABLE_GAIN)
            checks.append(Check(ok, f"{_prefix(label)}{var.upper()} vs {fixed.upper()}: from {gain(ratio[worst])} "
                                f"(M = {worst}) to {gain(ratio[best])} (M = {best}); criterion: between 0% and "
                                f"+{100 * VARIABLE_GAIN:.0f}% at every M."))
    if checks:
        checks.append(Check(None, "The memory-share part of the claim is checked by the share figure."))
    return checks


def variable_notes(rows: pd.DataFrame, lay: Layout) -> list[str]:
    """Gains of every variable-split policy over its fixed-split counterpart at each M (4.3)."""
    notes = []
    for label, part in facet_parts(rows, lay.facets):
        windows = _windows(part)
        for var, fixed in VARIABLE.items():
            ratio = paired(part, var, fixed, ["memory"])
            if not ratio.empty:
                best = ratio.idxmax()
                notes.append(f"{_prefix(label)}{var.upper()} beats {fixed.upper()} by {gain(ratio[best])} at "
                             f"M = {memory_label(best, windows[best])} (largest gain).")
    return notes


def skew_notes(rows: pd.DataFrame, lay: Layout) -> list[str]:
    """Figure 6: PROB's and RAND's fraction of OPT at the lowest skew, at Zipf 1 and at the highest
    skew, and the effect of correlation on PROB (4.3)."""
    notes = []
    for label, part in facet_parts(rows, lay.facets):
        for corr, sub in part.groupby("correlation"):
            prob, rand = (paired(sub, p, "opt", ["skew"]) for p in ("prob", "rand"))
            where = f"{_prefix(label)}{field_text('correlation', corr)}, {_memories(sub)}"
            shown = sorted({prob.index.min(), prob.index.max(), *(s for s in prob.index if s == SKEW_HIGH)})
            for skew in shown if not prob.empty else []:
                notes.append(f"{where}: PROB reaches {pct(prob[skew])} of OPT at Zipf {skew:g}"
                             + (f" (RAND {pct(rand[skew])})." if skew in rand.index else "."))
        by_corr = paired(part, "prob", "opt", ["correlation", "skew"])
        if by_corr.index.nlevels > 1 and by_corr.index.get_level_values("correlation").nunique() > 1:
            by_corr = by_corr.unstack("correlation")
            diff = (by_corr.max(axis=1) - by_corr.min(axis=1)).max()
            notes.append(f"{_prefix(label)}Correlation changes PROB's fraction of OPT by at most "
                         f"{100 * diff:.1f} points (paper: almost identical).")
    return notes


def _memories(rows: pd.DataFrame) -> str:
    return ", ".join(sorted({f"M = {memory_label(m, w)}" for m, w in zip(rows["memory"], rows["window"])}))


def skew_checks(rows: pd.DataFrame, lay: Layout) -> list[Check]:
    """4.3: PROB over 96% of OPT for moderate to high skew; RAND falls behind as skew grows."""
    checks = []
    for label, part in facet_parts(rows, lay.facets):
        for corr, sub in part.groupby("correlation"):
            where = f"{_prefix(label)}{field_text('correlation', corr)}: "
            prob, rand = (paired(sub, p, "opt", ["skew"]) for p in ("prob", "rand"))
            high = prob[prob.index >= SKEW_HIGH]
            if not high.empty:
                checks.append(Check(bool(high.min() >= SKEW_PROB),
                                    f"{where}PROB reaches at least {pct(high.min())} of OPT for skew >= "
                                    f"{SKEW_HIGH:g} ({_memories(sub)}); criterion: >= {pct(SKEW_PROB)}."))
            both = pd.concat({"prob": prob, "rand": rand}, axis=1).dropna()
            if len(both) > 1:
                lo, hi = both.index.min(), both.index.max()
                gap_lo, gap_hi = (both.loc[s, "prob"] - both.loc[s, "rand"] for s in (lo, hi))
                checks.append(Check(bool(gap_hi > gap_lo and both.loc[hi, "rand"] < both.loc[lo, "rand"]),
                                    f"{where}RAND reaches {pct(both.loc[lo, 'rand'])} of OPT at skew {lo:g} and "
                                    f"{pct(both.loc[hi, 'rand'])} at {hi:g}; PROB's lead over RAND goes from "
                                    f"{100 * gap_lo:.1f} to {100 * gap_hi:.1f} points."))
    return checks


def domain_gaps(rows: pd.DataFrame) -> pd.DataFrame:
    """Per domain, mean over M of EXACT/OPT - 1 and of 1 - PROB/OPT (Figures 9-11)."""
    exact = paired(rows, "exact", "opt", ["domain", "memory"])
    prob = paired(rows, "prob", "opt", ["domain", "memory"])
    gaps = {}
    if not exact.empty:
        gaps["exact_opt"] = (exact - 1).groupby(level="domain").mean()
    if not prob.empty:
        gaps["opt_prob"] = (1 - prob).groupby(level="domain").mean()
    return pd.DataFrame(gaps)


def domain_notes(rows: pd.DataFrame, lay: Layout) -> list[str]:
    """The two gaps per domain, and whether OPT meets EXACT at M = w for the largest domain (4.4)."""
    notes = []
    for label, part in facet_parts(rows, tuple(f for f in lay.facets if f != "domain")):
        gaps = domain_gaps(part)
        for domain, row in gaps.iterrows():
            notes.append(f"{_prefix(label)}domain {domain}: EXACT exceeds OPT by {pct(row.get('exact_opt'))} and "
                         f"PROB trails OPT by {pct(row.get('opt_prob'))} (means over M).")
        exact = paired(part, "exact", "opt", ["domain", "memory"])
        if not exact.empty:
            big = exact.index.get_level_values("domain").max()
            at = exact.xs(big, level="domain")
            windows = _windows(part[part["domain"] == big])
            m = _nearest_w(list(at.index), windows)
            notes.append(f"{_prefix(label)}domain {big}: EXACT/OPT = {pct(at[m])} at M = {memory_label(m, windows[m])} "
                         f"(paper, Figure 11: OPT meets EXACT at M = w).")
    return notes


def domain_checks(rows: pd.DataFrame, lay: Layout) -> list[Check]:
    """4.4: as the domain grows, OPT approaches EXACT while PROB falls further from OPT."""
    checks = []
    for label, part in facet_parts(rows, tuple(f for f in lay.facets if f != "domain")):
        gaps = domain_gaps(part).sort_index()
        if len(gaps) < 2:
            continue
        small, big = gaps.index[0], gaps.index[-1]
        for col, what, shrinks in (("exact_opt", "EXACT/OPT gap", True), ("opt_prob", "OPT/PROB gap", False)):
            if col not in gaps:
                continue
            a, b = gaps.loc[small, col], gaps.loc[big, col]
            ok = bool(b < a if shrinks else b > a)
            steady = gaps[col].is_monotonic_decreasing if shrinks else gaps[col].is_monotonic_increasing
            checks.append(Check(ok, f"{_prefix(label)}{what} {'shrinks' if shrinks else 'grows'} from domain {small} "
                                f"to {big}? {pct(a)} -> {pct(b)}"
                                + ("" if len(gaps) < 3 else f" ({'monotonic' if steady else 'not monotonic'})")
                                + "."))
    return checks


def _skewed_stream(rows: pd.DataFrame) -> str | None:
    """'R' or 'S' when one stream is more skewed throughout, else None."""
    if (rows["skew"] > rows["skew_s"]).all():
        return "R"
    if (rows["skew"] < rows["skew_s"]).all():
        return "S"
    return None


def share_notes(rows: pd.DataFrame, lay: Layout) -> list[str]:
    """R's largest and mean share of memory per policy after the warmup (Figure 8)."""
    stats = share_stats(share_curves(rows, lay), lay)
    notes = []
    for label, part in facet_parts(stats, lay.facets):
        for _, s in part.iterrows():
            notes.append(f"{_prefix(label)}max R share of {str(s['policy']).upper()} memory: {s['hi']:.1f}% "
                         f"(mean {s['mean']:.1f}%, min {s['lo']:.1f}% after the warmup, M = {s['memory']}).")
    return notes


def share_checks(rows: pd.DataFrame, lay: Layout) -> list[Check]:
    """4.3: the stream with the higher Zipf parameter gets more memory, up to a share of 75%."""
    stats = share_stats(share_curves(rows, lay), lay)
    checks = []
    for label, part in facet_parts(stats, lay.facets):
        sub = rows if not lay.facets else rows.merge(part[list(lay.facets)].drop_duplicates(), on=list(lay.facets))
        stream = _skewed_stream(sub)
        for _, s in part.iterrows():
            checks += _share_check(_prefix(label) + str(s["policy"]).upper(), stream, s)
    return checks


def _share_check(who: str, stream: str | None, s: pd.Series) -> list[Check]:
    """The share checks of one policy: which stream gets more memory, and how much at most. Shares
    are of the tuples held (OPT may leave memory partly empty: it keeps only tuples that will join)."""
    if stream is None:
        return [Check(bool(abs(s["mean"] - 50) <= 5), f"{who}: equal skews; R's mean share is {s['mean']:.1f}% "
                      f"(criterion: 45-55%).")]
    mean, peak = (s["mean"], s["hi"]) if stream == "R" else (100 - s["mean"], 100 - s["lo"])
    return [Check(bool(mean > 50), f"{who}: the more skewed stream {stream} holds {mean:.1f}% of memory on "
                  f"average (criterion: > 50%)."),
            Check(bool(peak <= SHARE_PEAK + SHARE_SLACK), f"{who}: {stream}'s largest share is {peak:.1f}% "
                  f"(paper: up to {SHARE_PEAK:.0f}%; criterion: <= {SHARE_PEAK + SHARE_SLACK:.0f}%).")]


def weather_notes(rows: pd.DataFrame, lay: Layout) -> list[str]:
    """Figure 7: the memory notes (PROB against EXACT is a check here) plus the variable split's
    gains (4.5)."""
    return memory_notes(rows, lay, with_exact=False) + variable_notes(rows, lay)


def weather_checks(rows: pd.DataFrame, lay: Layout) -> list[Check]:
    """4.5: PROB gives over 90% of EXACT's output with 50% of the memory (M = w); PROB and PROBV
    are almost identical."""
    checks = []
    for label, part in facet_parts(rows, lay.facets):
        if found := _at_w(part, "prob", "exact"):
            m, windows, prob_exact = found
            checks.append(Check(bool(prob_exact[m] > WEATHER_EXACT),
                                _prob_exact_text(label, m, windows, prob_exact[m])))
        ratio = paired(part, "probv", "prob", ["memory"])
        if not ratio.empty:
            spread = float((ratio - 1).abs().max())
            checks.append(Check(bool(spread <= WEATHER_SAME), f"{_prefix(label)}PROBV and PROB differ by at most "
                                f"{100 * spread:.1f}% (criterion: {100 * WEATHER_SAME:.0f}%; "
                                "paper: almost identical)."))
    return checks


def _kind(rows: pd.DataFrame, exp: dict) -> str:
    """Which of the paper's claims an experiment reproduces."""
    figure = exp.get("figure", "memory")
    if figure != "memory":
        return figure
    if "dataset" in rows and (rows["dataset"] != "zipf").all():
        return "weather"
    if any(p in VARIABLE for p in exp.get("policies", [])):
        return "variable"
    if ((rows["skew"] == 0) & (rows["skew_s"] == 0)).all():
        return "uniform"
    return "memory"


NOTES = {"weather": weather_notes, "memory": memory_notes, "uniform": uniform_notes, "variable": variable_notes,
         "skew": skew_notes, "domain": domain_notes, "share": share_notes}
CHECKS = {"weather": weather_checks, "memory": memory_checks, "uniform": uniform_checks, "variable": variable_checks,
          "skew": skew_checks, "domain": domain_checks, "share": share_checks}


def findings(rows: pd.DataFrame, exp: dict) -> tuple[list[str], Verdict]:
    """The findings of one experiment's runs and the verdict on its claim."""
    claim = str(exp.get("claim", ""))
    if rows.empty:
        return [], Verdict(claim, (Check(None, "No results yet."),))
    kind = _kind(rows, exp)
    lay = plan(rows, exp)
    checks = CHECKS[kind](rows, lay) or [Check(None, "The runs needed to check this claim are missing.")]
    return NOTES[kind](rows, lay), Verdict(claim, tuple(checks))
